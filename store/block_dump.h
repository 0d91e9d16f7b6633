// Public API: a table's block structure as text, for debugging and for comparing with git:
// exactly what git's `test-tool dump-reftable -b` prints (the fixtures record it), which is
// the header's block size, then every block in file order, grouped by section:
//
//   header:
//     block_size: 4096
//   ref:
//     - length: <where its restart table starts, from the block's start>
//       restarts: <how many restart points it has>
//   idx: / obj: / log:  (a line where the block type changes, then the blocks alike)
#ifndef REFTAB_STORE_BLOCK_DUMP_H_
#define REFTAB_STORE_BLOCK_DUMP_H_

#include <string>

#include "format/status.h"
#include "format/visibility.h"
#include "store/table_reader.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Appends the text above for `table` to `*out`. A block that does not decode ends it with
// the table's error (naming the file and the offset); `*out` then holds the blocks before.
Status AppendBlockDump(const TableReader& table, std::string* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_BLOCK_DUMP_H_

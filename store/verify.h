// Public API: deep consistency checks of tables and stacks (what `reftab verify` runs).
//
// Beyond what reading needs, Verify checks that every block decodes, keys are strictly
// increasing within each section, update indexes lie within the table's limits, every ref
// found by a scan is found again by an exact lookup (so the index agrees with the data), that
// the obj section agrees with the ref blocks (every count and position in range and in order,
// each record listing exactly the ref blocks holding its id prefix), and that a stack's
// tables have increasing, non-overlapping update index ranges.
#ifndef REFTAB_STORE_VERIFY_H_
#define REFTAB_STORE_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/progress.h"
#include "store/stack.h"
#include "store/table_reader.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct VerifyReport {
  uint64_t tables = 0;
  uint64_t blocks = 0;
  uint64_t refs = 0;
  uint64_t logs = 0;
  // Problems that do not make data unreadable (e.g. a table name that does not follow
  // git's 0x%012x-0x%012x-%08x.ref convention), one line each.
  std::vector<std::string> warnings;
};

// Receives a table's live refs (tombstones are not given) in name order as VerifyTable's
// scan decodes them, so that checks of another layer need no read of their own.
class VerifyRefSink {
 public:
  // `ref`, its name included, is valid for the call only. A non-OK status ends the
  // verification with it.
  virtual Status OnRef(const RefRecord& ref) = 0;

 protected:
  ~VerifyRefSink() = default;
};

// Checks one table. The first error found is returned (naming the table and the offset or
// record); counts accumulate into `report`. `refs` (may be null) gets the table's live refs
// as they are checked: on an error, only some of them.
Status VerifyTable(const TableReader& table, VerifyReport* report, VerifyRefSink* refs = nullptr);

// Checks every table of the snapshot and the relations between them.
// `progress` (may be null) counts tables. When `refs` is given and the snapshot is one
// table, VerifyTable gives that table's live refs to it and *fed (may be null) is set true;
// otherwise `refs` gets nothing and *fed is false.
Status VerifyStack(const Stack& stack, VerifyReport* report, Progress* progress = nullptr,
                   VerifyRefSink* refs = nullptr, bool* fed = nullptr);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_VERIFY_H_

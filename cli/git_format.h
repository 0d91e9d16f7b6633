// Text formats of git's `test-tool dump-reftable` (-t table, -s stack, -b blocks), which the
// fixtures record and `reftab dump --format=git` reproduces byte for byte.
#ifndef REFTAB_CLI_GIT_FORMAT_H_
#define REFTAB_CLI_GIT_FORMAT_H_

#include <string>

#include "format/block_reader.h"
#include "format/record.h"

namespace reftab::cli {

// ref{<name>(<update_index>) ...}\n
void AppendRefGit(const RefRecord& r, size_t hash_size, std::string* out);
// log{<name>(<update_index>) ...}: a multi-line entry, or "log{<name>(<i>) delete\n".
void AppendLogGit(const LogRecord& r, size_t hash_size, std::string* out);
// "  - length: <restart offset>\n    restarts: <count>\n", preceded by "ref:"/"idx:"/"obj:"/
// "log:" when the block type differs from *last_type (which is then updated).
void AppendBlockGit(const BlockView& b, char* last_type, std::string* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_GIT_FORMAT_H_

// Text formats of git's `test-tool dump-reftable` (-t table, -s stack), which the fixtures
// record and `reftab dump --format=git` reproduces byte for byte. The block listing (-b) is
// the library's (store/block_dump.h).
#ifndef REFTAB_CLI_GIT_FORMAT_H_
#define REFTAB_CLI_GIT_FORMAT_H_

#include <string>

#include "format/record.h"

namespace reftab::cli {

// ref{<name>(<update_index>) ...}\n
void AppendRefGit(const RefRecord& r, size_t hash_size, std::string* out);
// log{<name>(<update_index>) ...}: a multi-line entry, or "log{<name>(<i>) delete\n".
void AppendLogGit(const LogRecord& r, size_t hash_size, std::string* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_GIT_FORMAT_H_

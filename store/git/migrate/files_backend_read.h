// Reading git's "files" ref storage, as git's files backend reads it for `git refs migrate`:
// loose refs under refs/ (a file per ref: "<hex>\n" or "ref: <target>\n"), the packed-refs
// file (its "# pack-refs with:" traits line, "<hex> <name>" lines and "^<hex>" peeled lines),
// root refs (HEAD, ORIG_HEAD, ... as files in the git directory; FETCH_HEAD and MERGE_HEAD
// are pseudorefs, not refs, and stay where they are), and the reflogs in logs/.
// Nothing here writes. Refs git would list as broken (bad names, unreadable contents) are
// reported as problems, not guessed at: git's own migration refuses them too.
#ifndef REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_READ_H_
#define REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_READ_H_

#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/git/migrate/migrate.h"  // RefProblem

namespace reftab {

// The refs of a files repository: loose refs shadow packed ones, as in git. Each record is
// kVal1 (peeled values are not carried over: git's migration drops them too) or kSymref,
// with update index 0; sorted by name.
struct FilesRefs {
  std::vector<RefRecord> refs;
  std::vector<RefProblem> problems;
};
Status ReadFilesRefs(const std::string& git_dir, size_t hash_size, FilesRefs* out);

// packed-refs text into kVal1 records (peeled lines skipped), sorted by name whatever the
// file's "sorted" trait says. A line that is not "<hex> <name>" fails, naming the line.
Status ParsePackedRefs(std::string_view text, size_t hash_size, std::vector<RefRecord>* out);

// What a loose ref file says: an id, a symref target, or nothing git can use.
enum class LooseKind { kId, kSymref, kBroken };
LooseKind ParseLooseRef(std::string_view contents, size_t hash_size, RefRecord* out);

// One reflog file, oldest entry first. Entries are as the file has them: name and email as
// split from "Name <email>", the message with its trailing newline; update_index 0.
struct FilesReflog {
  std::string refname;
  std::vector<LogRecord> entries;
};
// Every reflog under logs/ in the order git's reflog iterator visits them (depth first,
// each directory's entries in byte order), skipping what git skips: non-regular files,
// names that are not valid one-level ref names, and lines git cannot parse.
Status ReadFilesReflogs(const std::string& git_dir, size_t hash_size,
                        std::vector<FilesReflog>* out);
void ParseFilesReflog(std::string_view text, size_t hash_size, std::vector<LogRecord>* out);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_READ_H_

// Reading git's "files" ref storage, as git's files backend reads it for `git refs migrate`:
// loose refs under refs/ (a file per ref: "<hex>\n" or "ref: <target>\n"), the packed-refs
// file (its "# pack-refs with:" traits line, "<hex> <name>" lines and "^<hex>" peeled lines),
// root refs (HEAD, ORIG_HEAD, ... as files in the git directory; FETCH_HEAD and MERGE_HEAD
// are pseudorefs, not refs, and stay where they are), and the reflogs in logs/.
// Nothing here writes. Refs git would list as broken (bad names, unreadable contents) are
// reported as problems, not guessed at: git's own migration refuses them too.
#ifndef REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_READ_H_
#define REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_READ_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/file.h"
#include "store/git/migrate/migrate.h"  // RefProblem

namespace reftab {

// The refs of a files repository in name order, loose refs shadowing packed ones as in git.
// Each is kVal1 (peeled values are not carried over: git's migration drops them too) or
// kSymref, with update index 0. Packed refs stay lines of the packed-refs text until asked
// for: a million packed refs are a million offsets here, not a million records.
class FilesRefs {
 public:
  size_t size() const { return order_.size(); }
  // The i-th ref into `out` (whose buffers are reused), i < size().
  void Get(size_t i, RefRecord* out) const;
  std::string_view name(size_t i) const { return Name(order_[i]); }
  // Whether the i-th ref is an id of zeros (not a symref).
  bool HasNullId(size_t i) const;
  // Leaves out the refs whose names are in `sorted_names`.
  void Drop(const std::vector<std::string>& sorted_names);

  // Refs git would list as broken (bad names, unreadable contents): not among the refs.
  std::vector<RefProblem> problems;

 private:
  friend Status ReadFilesRefs(const std::string& git_dir, size_t hash_size, FilesRefs* out);
  std::string_view Name(uint64_t entry) const;

  struct PackedName {
    uint64_t at;  // in packed_
    uint32_t size;
  };
  size_t hash_size_ = 20;
  std::unique_ptr<RandomAccessFile> packed_file_;  // packed-refs, mapped
  std::string_view packed_;                        // its bytes
  std::vector<PackedName> packed_names_;
  std::string packed_ids_;        // hash_size_ bytes per packed ref, as packed_names_
  std::vector<RefRecord> loose_;  // loose and root refs
  std::vector<uint64_t> order_;   // kLooseBit | index into loose_, or into packed_names_
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

// Writing git's "files" ref storage into a new, empty directory (the migration's temporary
// directory), as git's files backend writes it in one initial transaction: ordinary refs go
// to packed-refs (with git's "# pack-refs with: peeled fully-peeled sorted " traits line),
// symrefs and root refs become loose files, each reflog a file under logs/.
//
// Names come from a table that any tool may have written, so every path is checked before
// anything is created, and created with care:
//  - a name that is not a valid git ref name, or neither under refs/ nor a root ref, never
//    becomes a path (it is a problem: "not a valid ref name");
//  - on a case-insensitive file system, names that would land on the same path (or on a
//    directory of another name) are problems, never merged;
//  - directories are opened one component at a time with O_NOFOLLOW and files created
//    with O_EXCL | O_NOFOLLOW, so nothing is written through a symbolic link or over an
//    existing file, even if the directory changes while we write.
#ifndef REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_WRITE_H_
#define REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_WRITE_H_

#include <memory>
#include <string>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/file.h"
#include "store/git/migrate/files_backend_read.h"

namespace reftab {

// What to write. Reflog entries oldest first, already in the form they are written (name
// and email as in the line, the message without a newline: "" writes no tab).
// What becomes files: the loose refs (symrefs and root refs) and the reflogs. Packed refs go
// to a PackedRefsWriter as they come (a million refs are a million lines, not a million
// records).
struct FilesLayout {
  std::vector<RefRecord> loose;
  std::vector<FilesReflog> reflogs;
};

// Whether a ref is stored as a loose file (symrefs and root refs) or in packed-refs.
bool IsLooseInFiles(const RefRecord& ref);

// packed-refs, written as refs arrive: git's traits line, then "<hex> <name>" per ref (no
// peeled lines: git's migration writes none), in large writes. Refs must come in name
// order with valid names; they are not checked again.
class PackedRefsWriter {
 public:
  // Creates `path`.new (which must not exist) with `mode`, as git's packed backend writes
  // packed-refs through a temporary file, so that a failed write names the file git's would;
  // Finish() renames it to `path`, after syncing it with `sync` (core.fsync asks for refs:
  // CoreFsyncIncludesRefs).
  static Result<std::unique_ptr<PackedRefsWriter>> Create(const std::string& path, uint32_t mode,
                                                          size_t hash_size, bool sync = false);
  Status Add(const RefRecord& ref);
  Status Finish();
  uint64_t count() const { return count_; }

 private:
  PackedRefsWriter(std::string path, std::unique_ptr<WritableFile> file, size_t hash_size,
                   bool sync)
      : path_(std::move(path)), file_(std::move(file)), hash_size_(hash_size), sync_(sync) {}
  Status Flush();
  std::string path_;  // where Finish() puts the file
  std::unique_ptr<WritableFile> file_;
  size_t hash_size_;
  bool sync_;
  std::string buf_;
  uint64_t count_ = 0;
};

// Adds `ref` where the files backend keeps it: `layout` for loose refs, `packed` otherwise.
Status AddRef(FilesLayout* layout, PackedRefsWriter* packed, const RefRecord& ref);

// The refs and reflogs whose names must not become paths (see above). `case_insensitive`:
// the target file system folds case (ProbeCaseInsensitive).
std::vector<RefProblem> CheckFilesLayoutNames(const FilesLayout& layout, bool case_insensitive);

// Whether the file system holding `dir` folds ASCII case (creates and removes a probe file).
Result<bool> ProbeCaseInsensitive(const std::string& dir);

// One reflog line, "<old> <new> <name> <<email>> <time> <tz>[\t<message>]\n".
std::string FormatFilesReflogLine(const LogRecord& log, size_t hash_size);

struct FilesWriteOptions {
  size_t hash_size = 20;
  uint32_t file_mode = 0644;  // every file created (git: 0666 & ~umask, or core.sharedRepository)
  uint32_t dir_mode = 0755;   // every directory created
  // Sync each loose ref before closing it (core.fsync asks for refs); reflogs are not
  // synced, as git's files backend does not sync them.
  bool sync_refs = false;
};

// Writes `layout` into the existing directory `dir` (new files only): refs/heads/ and
// refs/tags/ (always, as git creates them), loose refs and logs/. Call CheckFilesLayoutNames
// first; a name that fails it is refused here too.
Status WriteFilesLayout(const std::string& dir, const FilesLayout& layout,
                        const FilesWriteOptions& options);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_MIGRATE_FILES_BACKEND_WRITE_H_

// Internals of store/git/migrate/migrate.cc: the facts a migration reads once, the two builders of
// the new storage (git_migrate_build.cc) and the rules git's migration transaction applies
// to every reflog entry.
#ifndef REFTAB_STORE_GIT_MIGRATE_MIGRATE_INTERNAL_H_
#define REFTAB_STORE_GIT_MIGRATE_MIGRATE_INTERNAL_H_

#include <string>
#include <string_view>

#include "format/record.h"
#include "format/status.h"
#include "store/git/config/config.h"
#include "store/git/migrate/migrate.h"
#include "store/table_writer.h"

namespace reftab::migrate {

struct RepoFacts {
  std::string git_dir;
  std::string config_path;  // the repository's own config file
  GitConfig config;         // every level, as git reads it
  RefStorageFormat current = RefStorageFormat::kFiles;
  HashId hash = HashId::kSha1;
  size_t hash_size = 20;
  uint32_t file_mode = 0644;   // new files (core.sharedRepository over the umask)
  uint32_t dir_mode = 0755;    // new directories
  WriteOptions write_options;  // the reftable.* settings
  bool sync_refs = false;      // core.fsync includes refs: what holds refs is synced
};

// git's crud rule for identities (fmt_ident): leading and trailing bytes <= ' ' and
// , : ; < > " \ ' go, and so do '<', '>' and '\n' inside.
std::string CleanIdentPart(std::string_view s);
// git's reflog message normalization: every run of whitespace becomes one space, leading
// and trailing whitespace go (so no newline is left).
std::string NormalizeReflogMessage(std::string_view msg);
// Both, to an entry as the migration transaction sees it.
void NormalizeEntry(LogRecord* log);

// Writes the files storage's refs and reflogs as one reftable table (and tables.list, and
// the stubs) into `temp`.
Status BuildReftable(const RepoFacts& repo, const MigrateOptions& options, const std::string& temp,
                     MigrateResult* result);
// Writes the reftable storage's refs and reflogs as files storage into `temp`.
Status BuildFiles(const RepoFacts& repo, const MigrateOptions& options, const std::string& temp,
                  MigrateResult* result);

// Writes `contents` to the new file `path` with `mode` (O_EXCL: never over a file).
Status WriteNewFile(const std::string& path, std::string_view contents, uint32_t mode,
                    bool sync = false);

}  // namespace reftab::migrate

#endif  // REFTAB_STORE_GIT_MIGRATE_MIGRATE_INTERNAL_H_

// See git_migrate.h. The destructive half of a migration, as named steps, each a rename (or
// an exchange of two directories), ordered around the one rename that switches formats:
// the config. Before it, the old format's files stay untouched where the old format reads
// them and the new storage goes only where the old format does not look; after it, the new
// storage is complete and the old one is only moved away.
#include "store/git/migrate/migrate.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/file.h"
#include "store/git/config/config_edit.h"
#include "store/git/migrate/migrate_internal.h"
#include "store/git/refs/refname.h"
#include "store/lock_file.h"

namespace reftab {
namespace {

using migrate::RepoFacts;

Status Errno(const std::string& what) {
  return Status::IoError(what + ": " + std::strerror(errno));
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// Removes the entry `name` of the directory `dir_fd` and everything below it, without
// following symbolic links; `path` names it in errors. Types come from readdir (a stat only
// where the file system does not tell), names relative to an open directory: a retired
// logs/ holds a file per reflog.
Status RemoveAt(int dir_fd, const char* name, const std::string& path) {
  if (unlinkat(dir_fd, name, 0) == 0) return Status::Ok();
  if (errno == ENOENT) return Status::Ok();
  if (errno != EISDIR && errno != EPERM) return Errno(path);
  const int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Errno(path);
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return Errno(path);
  }
  Status s = Status::Ok();
  while (struct dirent* de = readdir(d)) {
    if (std::strcmp(de->d_name, ".") == 0 || std::strcmp(de->d_name, "..") == 0) continue;
    bool is_dir = de->d_type == DT_DIR;
    if (de->d_type == DT_UNKNOWN) {
      struct stat st;
      is_dir = fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    const std::string child = path + "/" + de->d_name;
    s = is_dir
            ? RemoveAt(fd, de->d_name, child)
            : (unlinkat(fd, de->d_name, 0) == 0 || errno == ENOENT ? Status::Ok() : Errno(child));
    if (!s.ok()) break;
  }
  closedir(d);
  REFTAB_RETURN_IF_ERROR(s);
  return unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 ? Status::Ok() : Errno(path);
}

// Removes `path` and everything below it without following symbolic links.
Status RemoveTree(const std::string& path) { return RemoveAt(AT_FDCWD, path.c_str(), path); }

Status Rename(const std::string& from, const std::string& to) {
  return rename(from.c_str(), to.c_str()) == 0 ? Status::Ok() : Errno("rename " + from);
}

// Moves `from` to `to` if it exists.
Status RenameIfExists(const std::string& from, const std::string& to) {
  return Exists(from) ? Rename(from, to) : Status::Ok();
}

// Puts directory `fresh` at `place`, the old `place` at `fresh`: in one step where the file
// system can exchange two names, else in two (with a moment when `place` is missing).
Status ExchangeDirs(const std::string& fresh, const std::string& place) {
  if (!Exists(place)) return Rename(fresh, place);
#ifdef RENAME_EXCHANGE
  if (renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, place.c_str(), RENAME_EXCHANGE) == 0) {
    return Status::Ok();
  }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return Errno("exchange " + place);
#endif
  const std::string aside = fresh + ".old";
  REFTAB_RETURN_IF_ERROR(Rename(place, aside));
  REFTAB_RETURN_IF_ERROR(Rename(fresh, place));
  return Rename(aside, fresh);
}

// Root ref files (HEAD, ORIG_HEAD, ...) directly in `dir`.
std::vector<std::string> RootRefFiles(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (struct dirent* de = readdir(d)) {
    std::string name = de->d_name;
    if (name[0] != '.' && !name.ends_with(".lock") && IsRootRef(name)) out.push_back(name);
  }
  closedir(d);
  return out;
}

// git's get_worktrees(): an entry of worktrees/ with a non-empty gitdir file.
bool HasLinkedWorktrees(const std::string& git_dir) {
  if (Exists(git_dir + "/commondir")) return true;  // this is one
  DIR* d = opendir((git_dir + "/worktrees").c_str());
  if (!d) return false;
  bool found = false;
  while (struct dirent* de = readdir(d)) {
    if (de->d_name[0] == '.') continue;
    struct stat st;
    std::string gitdir = git_dir + "/worktrees/" + de->d_name + "/gitdir";
    if (stat(gitdir.c_str(), &st) == 0 && st.st_size > 0) found = true;
  }
  closedir(d);
  return found;
}

Result<RefStorageFormat> FormatFromConfig(const GitConfig& config) {
  std::optional<std::string> v = config.Get("extensions.refstorage");
  if (!v) return RefStorageFormat::kFiles;
  if (auto f = ParseRefStorageFormat(*v)) return *f;
  return Status::InvalidArgument("unknown ref storage format '" + *v + "'");
}

Result<RepoFacts> ReadFacts(const std::string& git_dir) {
  RepoFacts f;
  f.git_dir = git_dir;
  f.config_path = git_dir + "/config";
  GitConfigRepository where;
  where.common_dir = git_dir;
  where.git_dir = git_dir;
  REFTAB_ASSIGN_OR_RETURN(f.config, LoadGitConfig(where, GitConfigEnvironment::FromProcess()));
  REFTAB_ASSIGN_OR_RETURN(f.current, FormatFromConfig(f.config));
  std::string hash = f.config.Get("extensions.objectformat").value_or("sha1");
  for (char& c : hash) c = char(std::tolower(uint8_t(c)));
  if (hash != "sha1" && hash != "sha256") {
    return Status::InvalidArgument("unknown object format '" + hash + "'");
  }
  f.hash = hash == "sha256" ? HashId::kSha256 : HashId::kSha1;
  f.hash_size = HashSize(f.hash);
  const uint32_t umask = CurrentUmask();
  REFTAB_ASSIGN_OR_RETURN(f.file_mode, SharedFilePermissions(f.config, umask));
  // git gives directories the file bits plus x wherever r is set.
  f.dir_mode = f.file_mode | ((f.file_mode & 0444) >> 2);
  REFTAB_ASSIGN_OR_RETURN(ReftableSettings s, ReadReftableSettings(f.config));
  if (s.block_size > 0) f.write_options.block_size = s.block_size;
  if (s.restart_interval > 0) f.write_options.restart_interval = s.restart_interval;
  f.write_options.index_objects = s.index_objects;
  REFTAB_RETURN_IF_ERROR(ValidateWriteOptions(f.write_options));
  // The same rule as every other write of refs (GitRepo::Open's durability).
  f.sync_refs = CoreFsyncIncludesRefs(f.config);
  return f;
}

// Extensions git accepts in a version 0 repository; any other needs version 1.
bool NeedsVersion1(const std::string& config_text, HashId hash) {
  if (hash != HashId::kSha1) return true;
  const GitConfig parsed = GitConfig::Parse(config_text);
  for (const ConfigEntry& e : parsed.entries()) {
    if (e.key.substr(0, 11) != "extensions.") continue;
    std::string ext = e.key.substr(11);
    if (ext != "noop" && ext != "preciousobjects" && ext != "partialclone" &&
        ext != "worktreeconfig") {
      return true;
    }
  }
  return false;
}

// The config text after the switch, as git's initialize_repository_version leaves it.
std::string SwitchedConfig(std::string text, const RepoFacts& repo, RefStorageFormat target) {
  if (repo.hash == HashId::kSha256) {
    text = SetConfigValue(text, "extensions.objectformat", "sha256");
  } else if (const GitConfig parsed = GitConfig::Parse(text);
             parsed.Last("extensions.objectformat") != nullptr) {
    text = UnsetConfigValue(text, "extensions.objectformat");
  }
  if (target == RefStorageFormat::kReftable) {
    text = SetConfigValue(text, "extensions.refstorage", "reftable");
  } else {
    text = UnsetConfigValue(text, "extensions.refstorage");
  }
  return SetConfigValue(text, "core.repositoryformatversion",
                        NeedsVersion1(text, repo.hash) ? "1" : "0");
}

Status SwitchConfig(const RepoFacts& repo, RefStorageFormat target) {
  REFTAB_ASSIGN_OR_RETURN(std::string text, PosixFileSystem()->ReadFile(repo.config_path));
  struct stat st;
  std::optional<uint32_t> mode;
  if (stat(repo.config_path.c_str(), &st) == 0) mode = uint32_t(st.st_mode & 07777);
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<LockFile> lock,
                          LockFile::Acquire(PosixFileSystem(), repo.config_path, 0, mode));
  return lock->Commit(SwitchedConfig(text, repo, target), Durability::kNone);
}

// Runs the steps in order, announcing each (tests kill the process there).
class Steps {
 public:
  explicit Steps(const MigrateOptions& options) : options_(options) {}
  Status Run(std::string_view name, const std::function<Status()>& step) {
    ++n_;
    if (options_.on_step) options_.on_step(n_, name);
    return step().WithContext(std::string(name));
  }

 private:
  const MigrateOptions& options_;
  int n_ = 0;
};

// files -> reftable. Until the config changes, the files backend reads refs/, packed-refs,
// logs/ and the root ref files, none of which is touched; a reftable/ directory is nothing
// to it. After, the reftable backend reads only reftable/ (HEAD and refs/ just have to
// exist), so the old files can then be moved away in any order.
Status SwitchToReftable(const RepoFacts& repo, const std::string& temp, Steps* steps,
                        MigrateResult* result) {
  const std::string& g = repo.git_dir;
  REFTAB_RETURN_IF_ERROR(steps->Run("install reftable/", [&] {
    REFTAB_RETURN_IF_ERROR(RemoveTree(g + "/reftable"));  // an interrupted attempt's
    return Rename(temp + "/reftable", g + "/reftable");
  }));
  REFTAB_RETURN_IF_ERROR(
      steps->Run("switch config", [&] { return SwitchConfig(repo, RefStorageFormat::kReftable); }));
  auto warn = [&](std::string_view name, const std::function<Status()>& step) {
    Status s = steps->Run(name, step);
    if (!s.ok()) result->warnings.push_back(s.ToString());
  };
  warn("install HEAD stub", [&] { return Rename(temp + "/HEAD", g + "/HEAD"); });
  warn("install refs/ stub", [&] { return ExchangeDirs(temp + "/refs", g + "/refs"); });
  warn("retire packed-refs",
       [&] { return RenameIfExists(g + "/packed-refs", temp + "/packed-refs"); });
  warn("retire logs/", [&] { return RenameIfExists(g + "/logs", temp + "/logs"); });
  warn("retire root refs", [&] {
    for (const std::string& name : RootRefFiles(g)) {
      if (name != "HEAD") REFTAB_RETURN_IF_ERROR(Rename(g + "/" + name, temp + "/" + name));
    }
    return Status::Ok();
  });
  warn("remove temporary directory", [&] { return RemoveTree(temp); });
  return Status::Ok();
}

// reftable -> files. The reftable backend reads only reftable/, so every file of the new
// storage can be put in place before the config changes; stale ones an interrupted attempt
// left are moved away first.
Status SwitchToFiles(const RepoFacts& repo, const std::string& temp, Steps* steps,
                     MigrateResult* result) {
  const std::string& g = repo.git_dir;
  REFTAB_RETURN_IF_ERROR(steps->Run("install logs/", [&] {
    REFTAB_RETURN_IF_ERROR(RenameIfExists(g + "/logs", temp + "/old-logs"));
    return RenameIfExists(temp + "/logs", g + "/logs");
  }));
  REFTAB_RETURN_IF_ERROR(steps->Run(
      "install packed-refs", [&] { return Rename(temp + "/packed-refs", g + "/packed-refs"); }));
  REFTAB_RETURN_IF_ERROR(steps->Run("install root refs", [&] {
    for (const std::string& name : RootRefFiles(g)) {
      if (name != "HEAD" && !Exists(temp + "/" + name)) {
        REFTAB_RETURN_IF_ERROR(Rename(g + "/" + name, temp + "/old-" + name));
      }
    }
    for (const std::string& name : RootRefFiles(temp)) {
      REFTAB_RETURN_IF_ERROR(Rename(temp + "/" + name, g + "/" + name));
    }
    return Status::Ok();
  }));
  REFTAB_RETURN_IF_ERROR(
      steps->Run("install refs/", [&] { return ExchangeDirs(temp + "/refs", g + "/refs"); }));
  REFTAB_RETURN_IF_ERROR(
      steps->Run("switch config", [&] { return SwitchConfig(repo, RefStorageFormat::kFiles); }));
  auto warn = [&](std::string_view name, const std::function<Status()>& step) {
    Status s = steps->Run(name, step);
    if (!s.ok()) result->warnings.push_back(s.ToString());
  };
  warn("retire reftable/", [&] { return RenameIfExists(g + "/reftable", temp + "/old-reftable"); });
  warn("remove temporary directory", [&] { return RemoveTree(temp); });
  return Status::Ok();
}

Result<std::string> MakeTempDir(const std::string& git_dir) {
  std::string t = git_dir + "/ref_migration.XXXXXX";
  if (!mkdtemp(t.data())) return Errno("cannot create migration directory");
  return t;
}

}  // namespace

std::optional<RefStorageFormat> ParseRefStorageFormat(std::string_view name) {
  if (name == "files") return RefStorageFormat::kFiles;
  if (name == "reftable") return RefStorageFormat::kReftable;
  return std::nullopt;
}

std::string_view RefStorageFormatName(RefStorageFormat format) {
  return format == RefStorageFormat::kFiles ? "files" : "reftable";
}

Status MigrateRefStorage(const std::string& git_dir, const MigrateOptions& options,
                         MigrateResult* result) {
  REFTAB_ASSIGN_OR_RETURN(RepoFacts repo, ReadFacts(git_dir));
  if (repo.current == options.target) {
    return Status::InvalidArgument("repository already uses '" +
                                   std::string(RefStorageFormatName(options.target)) + "' format");
  }
  if (HasLinkedWorktrees(git_dir)) {
    return Status::InvalidArgument("migrating repositories with worktrees is not supported yet");
  }
  REFTAB_ASSIGN_OR_RETURN(result->temp_dir, MakeTempDir(git_dir));
  const std::string& temp = result->temp_dir;
  Status built = options.target == RefStorageFormat::kReftable
                     ? migrate::BuildReftable(repo, options, temp, result)
                     : migrate::BuildFiles(repo, options, temp, result);
  if (!built.ok()) {
    // The repository is untouched; the half-built storage is of no use.
    Status removed = RemoveTree(temp);
    (void)removed;
    result->temp_dir.clear();
    return built;
  }
  if (options.dry_run) return Status::Ok();
  Steps steps(options);
  return options.target == RefStorageFormat::kReftable
             ? SwitchToReftable(repo, temp, &steps, result)
             : SwitchToFiles(repo, temp, &steps, result);
}

}  // namespace reftab

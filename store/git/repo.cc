#include "store/git/repo.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "store/git/refs/refname.h"
#include "store/merge_cursor.h"

namespace reftab {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(uint8_t(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string Basename(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string ReadCommonDir(FileSystem* fs, const std::string& git_dir) {
  auto commondir = fs->ReadFile(git_dir + "/commondir");
  if (!commondir.ok()) return git_dir;
  std::string c(Trim(*commondir));
  while (!c.empty() && c.back() == '\n') c.pop_back();
  if (!c.empty() && c[0] == '/') return c;
  // "../.." from .git/worktrees/<id>: said as the directory it names (.git), as git does. git
  // made both directories, so no symbolic link can make ".." mean something else here.
  std::string joined = std::filesystem::path(git_dir + "/" + c).lexically_normal().string();
  while (joined.size() > 1 && joined.back() == '/') joined.pop_back();
  return joined;
}

// The work tree as the layout shows it (for includeIf "worktree:"): a linked worktree's
// $GIT_DIR/gitdir names its ".git" file; a main ".git" directory sits in its work tree.
// core.worktree is not consulted.
std::optional<std::string> LayoutWorkTree(FileSystem* fs, const std::string& git_dir, bool linked) {
  if (linked) {
    auto gitdir = fs->ReadFile(git_dir + "/gitdir");
    if (!gitdir.ok()) return std::nullopt;
    std::string target(Trim(*gitdir));
    while (!target.empty() && target.back() == '\n') target.pop_back();
    if (target.empty()) return std::nullopt;
    return DirName(target);
  }
  if (Basename(git_dir) == ".git") return DirName(git_dir);
  return std::nullopt;
}

// HEAD's target for includeIf "onbranch:", read before the config is known: tables describe
// themselves, so default options read them. A HEAD that cannot be read is no branch.
std::function<Result<std::optional<std::string>>()> HeadTargetReader(FileSystem* fs,
                                                                     std::string git_dir) {
  return [fs, git_dir]() -> Result<std::optional<std::string>> {
    StackOptions opts;
    opts.fs = fs;
    auto stack = Stack::Open(git_dir + "/reftable", opts);
    if (!stack.ok()) return std::optional<std::string>();
    RefRecord head;
    bool found = false;
    if (!(*stack)->snapshot()->ReadRef("HEAD", &head, &found).ok() || !found ||
        head.value_type != RefValueType::kSymref) {
      return std::optional<std::string>();
    }
    return std::optional<std::string>(head.target);
  };
}

// Every level of the config as this repository's git would read it, from this process's
// environment.
Result<GitConfig> LoadRepositoryConfig(FileSystem* fs, const std::string& git_dir,
                                       const std::string& common_dir) {
  GitConfigRepository where;
  where.common_dir = common_dir;
  where.git_dir = git_dir;
  where.work_tree = LayoutWorkTree(fs, git_dir, common_dir != git_dir);
  where.head_target = HeadTargetReader(fs, git_dir);
  return LoadGitConfig(where, GitConfigEnvironment::FromProcess());
}

// What every git command checks before doing anything: core.bare (each entry anywhere),
// the repository format version and object format (the repository's own file).
Status CheckRepositoryFormat(const GitConfig& cfg, const std::string& local_file) {
  for (const ConfigEntry* e : cfg.All("core.bare")) REFTAB_RETURN_IF_ERROR(ConfigBool(*e).status());
  for (const ConfigEntry* e : cfg.All("core.repositoryformatversion")) {
    if (e->file == local_file) REFTAB_RETURN_IF_ERROR(ConfigInt(*e).status());
  }
  return Status::Ok();
}

Result<HashId> ObjectFormat(const GitConfig& cfg) {
  const ConfigEntry* e = cfg.Last("extensions.objectformat");
  if (!e) return HashId::kSha1;
  std::string format = Lower(e->value.value_or(""));
  if (format == "sha1") return HashId::kSha1;
  if (format == "sha256") return HashId::kSha256;
  // git prints "error: invalid value for 'extensions.objectformat': '<v>'" first.
  return Status::InvalidArgument("bad config line " + std::to_string(e->line) + " in file " +
                                 e->file);
}

// The write settings into `opts`, checked as git's writers check them: the shared
// repository mode first, then every reftable.* / core.logAllRefUpdates entry in order.
Status ApplyWriteSettings(const GitConfig& cfg, StackOptions* opts,
                          std::optional<uint32_t>* file_mode, LogRefUpdates* log_refs) {
  REFTAB_ASSIGN_OR_RETURN(int shared, SharedRepositorySetting(cfg));
  if (shared != 0) *file_mode = ApplySharedRepository(shared, 0666 & ~CurrentUmask());
  REFTAB_ASSIGN_OR_RETURN(ReftableSettings s, ReadReftableSettings(cfg));
  if (s.block_size > 0) opts->write_options.block_size = s.block_size;
  if (s.restart_interval > 0) opts->write_options.restart_interval = s.restart_interval;
  opts->write_options.index_objects = s.index_objects;
  if (s.geometric_factor > 0) opts->geometric_factor = s.geometric_factor;
  opts->lock_timeout_ms = s.lock_timeout_ms;
  // git 2.54's core.lockfilePid: a pid file beside each lock (store/lock_file.h).
  if (const ConfigEntry* e = cfg.Last("core.lockfilepid")) {
    REFTAB_ASSIGN_OR_RETURN(opts->lock_pid_files, ConfigBool(*e));
  }
  *log_refs = s.log_all_ref_updates;
  // Below git's limits but still refused: block sizes under 64 cannot hold a record.
  return ValidateWriteOptions(opts->write_options).WithContext("reftable config");
}

// git's notion of a name that belongs to the worktree that says it: root-ref syntax (the
// empty name included) or one of the per-worktree hierarchies.
bool NamesOwnWorktreeRef(std::string_view name) { return name.empty() || IsPerWorktreeRef(name); }

// How git parses a name that may address another worktree's refs (its parse_worktree_ref):
// "worktrees/<id>/<name>" with a per-worktree <name>, or "worktrees/<id>" alone (<name>
// empty), names worktree <id>'s; "main-worktree/<name>" the main worktree's. Anything else
// (also "worktrees/<id>/refs/heads/x") is an ordinary name.
struct WorktreePrefix {
  enum class Kind : uint8_t { kNone, kMain, kOther };
  Kind kind = Kind::kNone;
  std::string_view id;   // kOther
  std::string_view key;  // kMain, kOther: the name within that worktree
};

WorktreePrefix ParseWorktreePrefix(std::string_view name) {
  constexpr std::string_view kOther = "worktrees/", kMain = "main-worktree/";
  WorktreePrefix p;
  if (name.substr(0, kOther.size()) == kOther) {
    std::string_view rest = name.substr(kOther.size());
    size_t slash = rest.find('/');
    std::string_view key = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    if (NamesOwnWorktreeRef(key)) {
      p.kind = WorktreePrefix::Kind::kOther;
      p.id = rest.substr(0, slash);
      p.key = key;
      return p;
    }
  }
  if (name.substr(0, kMain.size()) == kMain && NamesOwnWorktreeRef(name.substr(kMain.size()))) {
    p.kind = WorktreePrefix::Kind::kMain;
    p.key = name.substr(kMain.size());
  }
  return p;
}

}  // namespace

std::string_view WorktreeRefKey(std::string_view refname) {
  WorktreePrefix p = ParseWorktreePrefix(refname);
  return p.kind == WorktreePrefix::Kind::kNone ? refname : p.key;
}

bool IsPerWorktreeRef(std::string_view name) {
  for (std::string_view p : {"refs/bisect/", "refs/worktree/", "refs/rewritten/"}) {
    if (name.substr(0, p.size()) == p) return true;
  }
  if (name.substr(0, 5) == "refs/" || name.empty()) return false;
  for (char c : name) {
    if (!(std::isupper(uint8_t(c)) || c == '_' || c == '-')) return false;  // git's root-ref syntax
  }
  return true;
}

Result<std::unique_ptr<GitRepo>> GitRepo::Open(const std::string& git_dir, StackOptions base,
                                               GitRepoAccess access) {
  FileSystem* fs = base.fs ? base.fs : PosixFileSystem();
  // git's words for a git directory that is not there; a repository without the main stack
  // is not one reftab can read (a files-backend one).
  if (!fs->Stat(git_dir).ok()) return Status::NotFound("not a git repository: '" + git_dir + "'");
  std::unique_ptr<GitRepo> repo(new GitRepo());
  repo->git_dir_ = git_dir;
  repo->common_dir_ = ReadCommonDir(fs, git_dir);
  const bool linked = repo->common_dir_ != git_dir;
  Result<GitConfig> config = LoadRepositoryConfig(fs, git_dir, repo->common_dir_);
  if (!fs->Stat(repo->common_dir_ + "/reftable").ok()) {
    std::optional<std::string> format;
    if (config.ok()) format = config->Get("extensions.refstorage");
    if (config.ok() && (!format || *format == "files")) {
      return Status::NotFound(git_dir +
                              ": the repository keeps its refs in git's \"files\" format, not "
                              "reftable; `refs migrate --ref-format=reftable` (reftab's or "
                              "git's) converts it");
    }
    return Status::NotFound(git_dir + ": no reftable directory (not a reftable repository?)");
  }
  REFTAB_ASSIGN_OR_RETURN(repo->config_, std::move(config));
  const GitConfig& cfg = repo->config_;
  REFTAB_RETURN_IF_ERROR(CheckRepositoryFormat(cfg, repo->common_dir_ + "/config"));
  REFTAB_ASSIGN_OR_RETURN(HashId hash, ObjectFormat(cfg));
  base.hash_id = hash;

  StackOptions configured = base;
  Status settings =
      ApplyWriteSettings(cfg, &configured, &repo->file_mode_, &repo->log_all_ref_updates_);
  if (settings.ok()) {
    base = configured;
  } else if (access == GitRepoAccess::kReadWrite) {
    return settings;
  } else {
    // Readers go on with git's defaults; a writer must not (write_settings_status()).
    repo->write_settings_status_ = settings;
    repo->file_mode_.reset();
    repo->log_all_ref_updates_ = LogRefUpdates::kUnset;
  }
  base.file_mode = repo->file_mode_;
  repo->stack_options_ = base;
  // Sync tables and tables.list exactly when git would; kFull, reftab's own stronger mode,
  // is kept whenever a caller asks for it.
  if (base.durability != Durability::kFull) {
    base.durability = CoreFsyncIncludesRefs(cfg) ? Durability::kGit : Durability::kNone;
  }

  auto main = Stack::Open(repo->common_dir_ + "/reftable", base);
  if (!main.ok()) return main.status();
  repo->main_ = std::move(*main);
  if (linked) {
    // git reads a linked worktree whose reftable directory is missing as one without refs.
    StackOptions own = base;
    own.missing_dir_is_empty = true;
    auto wt = Stack::Open(git_dir + "/reftable", own);
    if (!wt.ok()) return wt.status();
    repo->worktree_ = std::move(*wt);
  }
  return repo;
}

Result<GitConfig> GitRepo::ReadConfig(const std::string& git_dir) {
  FileSystem* fs = PosixFileSystem();
  if (!fs->Stat(git_dir).ok()) return Status::NotFound("not a git repository: '" + git_dir + "'");
  const std::string common_dir = ReadCommonDir(fs, git_dir);
  REFTAB_ASSIGN_OR_RETURN(GitConfig config, LoadRepositoryConfig(fs, git_dir, common_dir));
  REFTAB_RETURN_IF_ERROR(CheckRepositoryFormat(config, common_dir + "/config"));
  REFTAB_RETURN_IF_ERROR(ObjectFormat(config).status());
  return config;
}

uint32_t GitRepo::file_mode() const { return file_mode_ ? *file_mode_ : 0666 & ~CurrentUmask(); }

std::vector<Stack*> GitRepo::stacks() {
  std::vector<Stack*> out = {main_.get()};
  if (worktree_) out.push_back(worktree_.get());
  return out;
}

Stack& GitRepo::StackFor(std::string_view refname) {
  return worktree_ && IsPerWorktreeRef(refname) ? *worktree_ : *main_;
}

Result<GitRefLocation> GitRepo::Locate(std::string_view refname) {
  WorktreePrefix p = ParseWorktreePrefix(refname);
  GitRefLocation at;
  at.key = p.kind == WorktreePrefix::Kind::kNone ? refname : p.key;
  if (p.kind == WorktreePrefix::Kind::kNone) {
    at.stack = &StackFor(refname);
    return at;
  }
  if (p.kind == WorktreePrefix::Kind::kMain) {
    at.stack = main_.get();
    return at;
  }
  auto it = other_worktrees_.find(p.id);
  if (it == other_worktrees_.end()) {
    // The path as git builds it from the id; a worktree that is not there has no stack.
    const std::string dir = common_dir_ + "/worktrees/" + std::string(p.id) + "/reftable";
    FileSystem* fs = stack_options_.fs ? stack_options_.fs : PosixFileSystem();
    std::unique_ptr<Stack> stack;
    if (fs->Stat(dir).ok()) {
      auto opened = Stack::Open(dir, stack_options_);
      if (!opened.ok()) return opened.status();
      stack = std::move(*opened);
    }
    it = other_worktrees_.emplace(std::string(p.id), std::move(stack)).first;
  }
  at.stack = it->second.get();
  return at;
}

Result<bool> NulNameMemo::MayHold(const std::shared_ptr<const Snapshot>& snap) {
  for (const auto& [known, holds] : known_) {
    if (known == snap) return holds;
  }
  if (++misses_ < kScanAfter) return true;
  RefMergeCursor it(snap->readers());
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  bool holds = false;
  RefRecord r;
  while (!holds && it.Next(&r)) holds = StoredRefname(r.refname).size() != r.refname.size();
  REFTAB_RETURN_IF_ERROR(it.status());
  if (known_.size() >= 4) known_.erase(known_.begin());
  known_.emplace_back(snap, holds);
  return holds;
}

Status ReadRefAsGit(const std::shared_ptr<const Snapshot>& snap, std::string_view name,
                    RefRecord* ref, bool* found, NulNameMemo* memo) {
  REFTAB_RETURN_IF_ERROR(snap->ReadRef(name, ref, found));
  if (*found) return Status::Ok();
  // The tables' filters and hash indexes answer for whole names only: the look past the
  // name is a merged seek.
  if (memo) {
    REFTAB_ASSIGN_OR_RETURN(bool may_hold, memo->MayHold(snap));
    if (!may_hold) return Status::Ok();
  }
  RefMergeCursor it(snap->readers());
  REFTAB_RETURN_IF_ERROR(it.Seek(name));
  RefRecord next;
  if (!it.Next(&next)) return it.status();
  if (next.refname.size() > name.size() && next.refname[name.size()] == '\0' &&
      std::string_view(next.refname).starts_with(name) && !next.is_deletion()) {
    *ref = std::move(next);
    *found = true;
  }
  return Status::Ok();
}

Status GitRepo::ReadRef(std::string_view refname, RefRecord* ref, bool* found) {
  *found = false;
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Locate(refname));
  if (!at.stack) return Status::Ok();
  REFTAB_RETURN_IF_ERROR(ReadRefAsGit(at.stack->snapshot(), at.key, ref, found, &nul_names_));
  if (*found) ref->refname = std::string(refname);  // as asked, not as stored there
  return Status::Ok();
}

Status GitRepo::ForEachRef(std::string_view prefix,
                           const std::function<bool(const RefRecord&)>& fn) {
  // Two sorted sources: the main stack without per-worktree names, and the worktree's stack.
  // Each walk ends at the first record past the prefix, deleted or not (NextLiveUnder):
  // a look below a name that deleted names follow reads none of them.
  auto main_snap = main_->snapshot();
  RefMergeCursor a(main_snap->readers());
  REFTAB_RETURN_IF_ERROR(a.Seek(prefix));
  std::shared_ptr<const Snapshot> wt_snap = worktree_ ? worktree_->snapshot() : nullptr;
  std::optional<RefMergeCursor> b;
  if (wt_snap) {
    b.emplace(wt_snap->readers());
    REFTAB_RETURN_IF_ERROR(b->Seek(prefix));
  }
  RefRecord ra, rb;
  auto next_a = [&] {
    while (a.NextLiveUnder(prefix, &ra)) {
      if (!wt_snap || !IsPerWorktreeRef(ra.refname)) return true;
    }
    return false;
  };
  auto next_b = [&] { return b && b->NextLiveUnder(prefix, &rb); };
  bool has_a = next_a(), has_b = next_b();
  while (has_a || has_b) {
    bool take_a = has_a && (!has_b || ra.refname < rb.refname);
    RefRecord& taken = take_a ? ra : rb;
    taken.refname.resize(StoredRefname(taken.refname).size());
    if (!fn(taken)) return Status::Ok();
    if (take_a) {
      has_a = next_a();
    } else {
      has_b = next_b();
    }
  }
  REFTAB_RETURN_IF_ERROR(a.status());
  return b ? b->status() : Status::Ok();
}

}  // namespace reftab

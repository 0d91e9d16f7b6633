#include "cli/stack_access.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "cli/git_format.h"
#include "cli/jsonl.h"

namespace reftab::cli {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Finds the git directory as git does: `.git` (a directory, or a file "gitdir: X") in the
// current directory or any parent, or the current directory itself if it is bare.
Result<std::string> DiscoverGitDir() {
  char buf[4096];
  if (!getcwd(buf, sizeof buf)) return Status::IoError("cannot get the current directory");
  std::string dir = buf;
  for (;;) {
    std::string dotgit = dir + "/.git";
    struct stat st;
    if (stat(dotgit.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return dotgit;
      auto text = PosixFileSystem()->ReadFile(dotgit);
      if (text.ok() && text->rfind("gitdir: ", 0) == 0) {
        std::string target = Trim(text->substr(8));
        while (!target.empty() && target.back() == '\n') target.pop_back();
        if (!target.empty() && target[0] != '/') target = dir + "/" + target;
        return target;
      }
    }
    if (IsDir(dir + "/reftable") && stat((dir + "/HEAD").c_str(), &st) == 0) return dir;
    if (dir == "/" || dir.empty()) break;
    size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return Status::NotFound("not a git repository (or any of the parent directories); "
                          "use --git-dir or --stack");
}

}  // namespace

Result<std::unique_ptr<TableReader>> OpenTableFile(const std::string& path) {
  auto file = PosixFileSystem()->OpenRead(path);
  if (!file.ok()) return file.status();
  return TableReader::Open(std::move(*file));
}

StackOptions CliStackOptions() {
  StackOptions opts;
  const char* env = std::getenv("GIT_TEST_REFTABLE_AUTOCOMPACTION");
  if (env && (std::string(env) == "false" || std::string(env) == "0")) opts.auto_compact = false;
  // Messages are normalized by the commands themselves, the way git's reflog code does.
  opts.write_options.exact_log_message = true;
  return opts;
}

Result<std::unique_ptr<Store>> OpenStore(const GlobalOptions& g) {
  if (!g.stack_dir.empty()) {
    if (!IsDir(g.stack_dir)) return Status::NotFound(g.stack_dir + ": no such directory");
    auto stack = Stack::Open(g.stack_dir, CliStackOptions());
    if (!stack.ok()) return stack.status();
    return std::make_unique<Store>(std::move(*stack));
  }
  std::string git_dir = g.git_dir;
  if (git_dir.empty()) {
    REFTAB_ASSIGN_OR_RETURN(git_dir, DiscoverGitDir());
  }
  if (!IsDir(git_dir + "/reftable") && !PosixFileSystem()->ReadFile(git_dir + "/commondir").ok()) {
    return Status::NotFound(git_dir + ": no reftable directory (not a reftable repository?)");
  }
  auto repo = GitRepo::Open(git_dir, CliStackOptions());
  if (!repo.ok()) return repo.status();
  return std::make_unique<Store>(std::move(*repo));
}

Result<std::unique_ptr<Stack>> OpenSelectedStack(const GlobalOptions& g) {
  if (!g.stack_dir.empty()) {
    if (!IsDir(g.stack_dir)) return Status::NotFound(g.stack_dir + ": no such directory");
    return Stack::Open(g.stack_dir, CliStackOptions());
  }
  REFTAB_ASSIGN_OR_RETURN(auto store, OpenStore(g));
  StackOptions opts = store->main_stack().options();
  return Stack::Open(store->main_stack().dir(), opts);
}

Status Store::ReadRef(std::string_view refname, RefRecord* ref, bool* found) {
  if (repo_) return repo_->ReadRef(refname, ref, found);
  return stack_->snapshot()->ReadRef(refname, ref, found);
}

Status Store::ForEachRef(std::string_view prefix, const std::function<bool(const RefRecord&)>& fn) {
  if (repo_) return repo_->ForEachRef(prefix, fn);
  auto snap = stack_->snapshot();
  MergedRefIterator it = snap->NewRefIterator();
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.Seek(prefix));
  RefRecord r;
  while (it.Next(&r) && std::string_view(r.refname).substr(0, prefix.size()) == prefix) {
    if (!fn(r)) break;
  }
  return it.status();
}

bool Store::LogsByDefault(std::string_view name) const {
  bool all = true;
  if (repo_) {
    auto v = repo_->config().Get("core.logallrefupdates");
    if (v && *v == "always") return true;
    all = repo_->config().GetBool("core.logallrefupdates", !repo_->bare());
  }
  if (!all) return false;
  for (std::string_view p : {"refs/heads/", "refs/remotes/", "refs/notes/"}) {
    if (name.substr(0, p.size()) == p) return true;
  }
  return name == "HEAD" || name == "refs/stash";
}

Status DumpStack(const Stack& stack, bool git_format, Output* out) {
  auto snap = stack.snapshot();
  size_t hs = snap->hash_size();
  MergedRefIterator refs = snap->NewRefIterator();
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord ref;
  while (refs.Next(&ref)) {
    if (git_format) {
      AppendRefGit(ref, hs, &out->buf());
    } else {
      AppendRefJson(ref, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  MergedLogIterator logs = snap->NewLogIterator();
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord log;
  while (logs.Next(&log)) {
    if (git_format) {
      AppendLogGit(log, hs, &out->buf());
    } else {
      AppendLogJson(log, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  return logs.status();
}

}  // namespace reftab::cli

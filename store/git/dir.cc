#include "store/git/dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "store/file.h"

namespace reftab {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// What `dir` holds as a repository: its `.git` directory, the target of a `.git` file, or
// itself when bare. Empty when none of these.
std::string GitDirIn(const std::string& dir) {
  std::string dotgit = dir + "/.git";
  if (IsDir(dotgit)) return dotgit;
  if (Exists(dotgit)) {
    auto text = PosixFileSystem()->ReadFile(dotgit);
    if (text.ok() && text->rfind("gitdir: ", 0) == 0) {
      std::string target = Trim(text->substr(8));
      if (!target.empty() && target[0] != '/') target = dir + "/" + target;
      return target;
    }
  }
  if (IsDir(dir + "/reftable") && Exists(dir + "/HEAD")) return dir;
  return "";
}

}  // namespace

namespace {

// The walk up from `start_dir`: the git directory found and the directory where it was
// found (its work tree, or the git directory itself when `*itself`).
Result<std::string> Walk(const std::string& start_dir, std::string* level, bool* itself) {
  std::string dir = start_dir;
  for (;;) {
    std::string found = GitDirIn(dir);
    if (!found.empty()) {
      *level = dir;
      *itself = found == dir;
      return found;
    }
    if (dir == "/" || dir.empty()) break;
    size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return Status::NotFound("not a git repository (or any of the parent directories): .git");
}

Result<std::string> RealPath(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (!real) return Status::IoError("cannot find the real path of " + path);
  std::string out(real);
  std::free(real);
  return out;
}

// Whether `path` is `dir` or below it.
bool Within(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.starts_with(dir) && path[dir.size()] == '/');
}

}  // namespace

Result<std::string> DiscoverGitDir(const std::string& start_dir) {
  if (const char* env = std::getenv("GIT_DIR"); env && *env) return std::string(env);
  std::string level;
  bool itself = false;
  return Walk(start_dir, &level, &itself);
}

Result<GitRepoLocation> LocateGitRepo(const std::string& cwd, const std::string& given,
                                      const GitConfig& config) {
  GitRepoLocation out;
  std::string explicit_dir = given;
  if (explicit_dir.empty()) {
    if (const char* env = std::getenv("GIT_DIR"); env && *env) explicit_dir = env;
  }
  const bool core_bare = config.GetBool("core.bare", false);
  if (!explicit_dir.empty()) {
    // A named git directory: printed as named; the work tree is $GIT_WORK_TREE, else
    // core.worktree, else (unless core.bare) the current directory.
    out.git_dir = explicit_dir;
    const std::string abs = explicit_dir[0] == '/' ? explicit_dir : cwd + "/" + explicit_dir;
    REFTAB_ASSIGN_OR_RETURN(out.absolute_git_dir, RealPath(abs));
    std::string tree;
    if (const char* env = std::getenv("GIT_WORK_TREE"); env && *env) {
      tree = env[0] == '/' ? env : cwd + "/" + env;
    } else if (std::optional<std::string> wt = config.Get("core.worktree")) {
      tree = (*wt)[0] == '/' ? *wt : out.absolute_git_dir + "/" + *wt;
    } else if (!core_bare) {
      tree = cwd;
    }
    if (!tree.empty()) {
      REFTAB_ASSIGN_OR_RETURN(out.work_tree, RealPath(tree));
    }
  } else {
    std::string level;
    bool itself = false;
    REFTAB_ASSIGN_OR_RETURN(std::string found, Walk(cwd, &level, &itself));
    REFTAB_ASSIGN_OR_RETURN(out.absolute_git_dir, RealPath(found));
    if (itself) {
      // Found from inside the git directory: no work tree, whatever core.bare says.
      out.git_dir = level == cwd ? "." : out.absolute_git_dir;
    } else {
      out.git_dir = level == cwd && found == level + "/.git" ? ".git" : out.absolute_git_dir;
      if (!core_bare) {
        REFTAB_ASSIGN_OR_RETURN(out.work_tree, RealPath(level));
      }
    }
  }
  REFTAB_ASSIGN_OR_RETURN(std::string here, RealPath(cwd));
  out.inside_git_dir = Within(here, out.absolute_git_dir);
  out.inside_work_tree =
      !out.work_tree.empty() && Within(here, out.work_tree) && !out.inside_git_dir;
  out.bare = core_bare && out.work_tree.empty();
  return out;
}

Result<std::string> DiscoverGitDir() {
  char buf[4096];
  if (!getcwd(buf, sizeof buf)) return Status::IoError("cannot get the current directory");
  return DiscoverGitDir(std::string(buf));
}

std::string GitDirAroundStack(const std::string& stack_dir) {
  std::string dir = stack_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const size_t slash = dir.rfind('/');
  std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : dir.substr(0, slash);
  if (slash == std::string::npos && (dir == "." || dir == "..")) parent = dir + "/..";
  const std::string prefix = parent == "/" ? "" : parent;
  if (!Exists(prefix + "/HEAD")) return "";
  if (IsDir(prefix + "/objects") || Exists(prefix + "/commondir")) return parent;
  return "";
}

}  // namespace reftab

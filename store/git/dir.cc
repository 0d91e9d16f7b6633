#include "store/git/dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

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

Result<std::string> DiscoverGitDir(const std::string& start_dir) {
  if (const char* env = std::getenv("GIT_DIR"); env && *env) return std::string(env);
  std::string dir = start_dir;
  for (;;) {
    std::string found = GitDirIn(dir);
    if (!found.empty()) return found;
    if (dir == "/" || dir.empty()) break;
    size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return Status::NotFound("not a git repository (or any of the parent directories): .git");
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

#include "store/git/worktrees.h"

#include <dirent.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "store/git/refs/ref_store.h"

namespace reftab {
namespace {

std::string StripSuffix(std::string s, std::string_view suffix) {
  if (s.size() >= suffix.size() &&
      s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
    s.resize(s.size() - suffix.size());
  }
  return s;
}

std::string RealPath(const std::string& path) {
  char* p = realpath(path.c_str(), nullptr);
  if (!p) return path;
  std::string out(p);
  free(p);
  return out;
}

// What HEAD of the worktree whose git directory is `git_dir` finally names, if a symref.
std::string HeadRef(const std::string& git_dir) {
  auto store = GitRefStore::OpenRepo(git_dir, StackOptions(), GitRepoAccess::kReadOnly);
  if (!store.ok()) return "";
  ResolvedRef r;
  if (!(*store)->Resolve("HEAD", &r).ok() || r.symrefs.empty()) return "";
  return r.name;
}

// The names in $GIT_COMMON_DIR/worktrees, in the order readdir gives them.
std::vector<std::string> WorktreeIdsInDirectoryOrder(const std::string& dir) {
  std::vector<std::string> ids;
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) {
      std::string id = e->d_name;
      if (id != "." && id != "..") ids.push_back(id);
    }
    closedir(d);
  }
  return ids;
}

// Whether the worktree `dir` holds has a gitdir file git can use (read, not empty).
bool HasGitdirFile(const std::string& wt_dir) {
  std::ifstream f(wt_dir + "/gitdir");
  std::stringstream text;
  text << f.rdbuf();
  return f && !text.str().empty();
}

}  // namespace

Status ListGitWorktrees(const std::string& common_dir, const std::string& current_git_dir,
                        std::vector<GitWorktree>* out) {
  out->clear();
  const std::string current = RealPath(current_git_dir);
  out->push_back({"", common_dir, RealPath(common_dir) == current});
  const std::string dir = common_dir + "/worktrees";
  for (const std::string& id : WorktreeIdsInDirectoryOrder(dir)) {
    const std::string wt_dir = dir + "/" + id;
    if (!HasGitdirFile(wt_dir)) continue;
    out->push_back({id, wt_dir, RealPath(wt_dir) == current});
  }
  return Status::Ok();
}

Status ListWorktreeHeads(const std::string& common_dir, std::vector<GitWorktreeHead>* out) {
  out->clear();
  out->push_back({StripSuffix(RealPath(common_dir), "/.git"), HeadRef(common_dir)});
  std::string dir = common_dir + "/worktrees";
  std::vector<std::string> ids = WorktreeIdsInDirectoryOrder(dir);
  std::sort(ids.begin(), ids.end());
  for (const std::string& id : ids) {
    std::ifstream f(dir + "/" + id + "/gitdir");
    std::stringstream text;
    text << f.rdbuf();
    std::string path = text.str();
    while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back()))) path.pop_back();
    if (path.empty()) continue;
    path = StripSuffix(path, "/.git");
    if (path[0] != '/') path = RealPath(dir + "/" + id + "/" + path);
    out->push_back({path, HeadRef(dir + "/" + id)});
  }
  return Status::Ok();
}

}  // namespace reftab

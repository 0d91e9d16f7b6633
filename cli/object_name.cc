#include "cli/object_name.h"

#include <cstdlib>

#include "store/git/objects/object_parse.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {
namespace {

bool ResolveBase(GitRefStore& store, const std::string& name, ObjectId* id) {
  if (ParseHexId(name, store.hash_size(), id)) return true;
  static constexpr std::string_view kRules[][2] = {
      {"", ""},
      {"refs/", ""},
      {"refs/tags/", ""},
      {"refs/heads/", ""},
      {"refs/remotes/", ""},
      {"refs/remotes/", "/HEAD"},
  };
  for (const auto& rule : kRules) {
    ResolvedRef r;
    std::string candidate = std::string(rule[0]) + name + std::string(rule[1]);
    if (!IsSafeRefname(candidate)) continue;
    if (store.Resolve(candidate, &r).ok() && r.exists && !r.broken) {
      *id = r.id;
      return true;
    }
  }
  return false;
}

// The commit `id` peels to, or false.
bool Commit(GitObjects& objects, size_t hash_size, ObjectId* id, GitCommit* commit) {
  bool ok = false;
  if (!objects.Peel(*id, id, &ok).ok() || !ok) return false;
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  if (!objects.Read(*id, &type, &content).ok() || type != GitObjectType::kCommit) return false;
  return ParseCommit(content, hash_size, commit).ok();
}

// The number after '~' or '^' (1 when there is none); advances *i.
unsigned Count(const std::string& s, size_t* i) {
  size_t start = *i;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') ++*i;
  return *i == start ? 1u
                     : unsigned(std::strtoul(s.substr(start, *i - start).c_str(), nullptr, 10));
}

}  // namespace

bool ResolveObjectName(GitRefStore& store, const std::string& name, ObjectId* id) {
  size_t cut = name.find_first_of("~^");
  if (!ResolveBase(store, name.substr(0, cut), id)) return false;
  if (cut == std::string::npos) return true;
  GitObjects* objects = store.objects();
  if (!objects || !objects->available()) return false;
  const size_t hs = store.hash_size();
  for (size_t i = cut; i < name.size();) {
    char op = name[i++];
    GitCommit commit;
    if (op == '^' && name.compare(i, 1, "{") == 0) {
      size_t close = name.find('}', i);
      if (close == std::string::npos) return false;
      std::string what = name.substr(i + 1, close - i - 1);
      i = close + 1;
      bool ok = false;
      if (what.empty()) {
        if (!objects->Peel(*id, id, &ok).ok() || !ok) return false;
      } else if (what == "commit" || what == "tree") {
        if (!Commit(*objects, hs, id, &commit)) return false;
        if (what == "tree") *id = commit.tree;
      } else {
        return false;
      }
      continue;
    }
    unsigned n = Count(name, &i);
    if (op == '^' && n == 0) {
      if (!Commit(*objects, hs, id, &commit)) return false;
      continue;
    }
    for (unsigned k = 0; k < (op == '~' ? n : 1u); ++k) {
      if (!Commit(*objects, hs, id, &commit)) return false;
      size_t parent = op == '~' ? 0 : n - 1;
      if (parent >= commit.parents.size()) return false;
      *id = commit.parents[parent];
    }
  }
  return true;
}

}  // namespace reftab::cli

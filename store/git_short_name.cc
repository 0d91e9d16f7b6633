#include "store/git_short_name.h"

#include <string_view>

namespace reftab {
namespace {

// git's rev-parse rules, "%s" split into what comes before and after the short name.
constexpr std::string_view kRules[][2] = {
    {"", ""},
    {"refs/", ""},
    {"refs/tags/", ""},
    {"refs/heads/", ""},
    {"refs/remotes/", ""},
    {"refs/remotes/", "/HEAD"},
};
constexpr int kRuleCount = 6;

// Whether `name` resolves to an object id (a dangling or broken symref does not).
Status Resolves(GitRefStore& store, const std::string& name, bool* found) {
  ResolvedRef r;
  REFTAB_RETURN_IF_ERROR(store.Resolve(name, &r));
  *found = r.exists && !r.broken;
  return Status::Ok();
}

}  // namespace

Status ShortenRefname(GitRefStore& store, const std::string& refname, std::string* out) {
  std::string candidate;
  // The most specific rule first, so that the shortest form wins.
  for (int i = kRuleCount - 1; i > 0; --i) {
    std::string_view pre = kRules[i][0], post = kRules[i][1];
    if (refname.size() <= pre.size() + post.size() || refname.compare(0, pre.size(), pre) != 0 ||
        refname.compare(refname.size() - post.size(), post.size(), post) != 0) {
      continue;
    }
    std::string_view short_name =
        std::string_view(refname).substr(pre.size(), refname.size() - pre.size() - post.size());
    int j = 0;
    for (; j < kRuleCount; ++j) {
      if (j == i) continue;
      candidate.assign(kRules[j][0]).append(short_name).append(kRules[j][1]);
      bool found = false;
      REFTAB_RETURN_IF_ERROR(Resolves(store, candidate, &found));
      if (found) break;
    }
    if (j == kRuleCount) {
      out->append(short_name);
      return Status::Ok();
    }
  }
  out->append(refname);
  return Status::Ok();
}

}  // namespace reftab

#include "store/git/objects/commit_search.h"

#include <regex.h>

#include <algorithm>
#include <queue>
#include <set>
#include <string>

#include "store/git/objects/object_parse.h"

namespace reftab {
namespace {

// A compiled POSIX regex, freed on every path.
class Regex {
 public:
  explicit Regex(const std::string& pattern) {
    ok_ = regcomp(&re_, pattern.c_str(), REG_EXTENDED) == 0;
  }
  ~Regex() {
    if (ok_) regfree(&re_);
  }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  bool ok() const { return ok_; }
  bool Matches(const std::string& text) const {
    return regexec(&re_, text.c_str(), 0, nullptr, 0) == 0;
  }

 private:
  regex_t re_{};
  bool ok_ = false;
};

struct Queued {
  uint64_t date;
  uint64_t order;  // when it was queued: earlier first among equal dates
  ObjectId id;
  bool operator<(const Queued& o) const {  // std::priority_queue pops the largest
    if (date != o.date) return date < o.date;
    return order > o.order;
  }
};

}  // namespace

Status FindCommitByMessage(GitObjects& objects, size_t hash_size, std::string_view pattern,
                           const std::vector<ObjectId>& start, ObjectId* id, bool* found) {
  *found = false;
  bool negative = false;
  if (!pattern.empty() && pattern[0] == '!') {
    pattern.remove_prefix(1);
    if (!pattern.empty() && pattern[0] == '-') {
      pattern.remove_prefix(1);
      negative = true;
    } else if (pattern.empty() || pattern[0] != '!') {
      return Status::Ok();
    }
  }
  Regex re{std::string(pattern)};
  if (!re.ok()) return Status::Ok();
  std::priority_queue<Queued> queue;
  std::set<ObjectId> seen;
  uint64_t order = 0;
  // Reads a commit; false for anything that is not one (git skips what does not parse).
  auto read = [&](const ObjectId& c, GitCommit* commit, std::string* content) -> Result<bool> {
    GitObjectType type = GitObjectType::kNone;
    REFTAB_RETURN_IF_ERROR(objects.Read(c, &type, content));
    if (type != GitObjectType::kCommit) return false;
    return ParseCommit(*content, hash_size, commit).ok();
  };
  auto date_of = [](const GitCommit& c) {
    return c.committer && c.committer->has_date ? c.committer->timestamp : 0;
  };
  GitCommit commit;
  std::string content;
  for (const ObjectId& s : start) {
    REFTAB_ASSIGN_OR_RETURN(bool ok, read(s, &commit, &content));
    if (!ok) continue;
    seen.insert(s);
    queue.push(Queued{date_of(commit), order++, s});
  }
  while (!queue.empty()) {
    const ObjectId c = queue.top().id;
    queue.pop();
    REFTAB_ASSIGN_OR_RETURN(bool ok, read(c, &commit, &content));
    if (!ok) continue;
    GitCommit parent;
    std::string parent_content;
    for (const ObjectId& p : commit.parents) {
      if (seen.count(p)) continue;
      REFTAB_ASSIGN_OR_RETURN(bool parent_ok, read(p, &parent, &parent_content));
      if (!parent_ok) continue;
      seen.insert(p);
      queue.push(Queued{date_of(parent), order++, p});
    }
    // The message starts after the blank line that ends the headers (git matches there).
    const size_t blank = content.find("\n\n");
    const bool matches =
        negative != (blank != std::string::npos && re.Matches(content.substr(blank + 2)));
    if (matches) {
      *id = c;
      *found = true;
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace reftab

// git describe's search (builtin/describe.c), over our object reader: tags are keyed by the
// commit they peel to; commits are visited newest committer date first (ties in the order
// they were queued), each carrying one bit per candidate tag that reaches it, and the depth
// of a candidate is the number of visited commits it does not reach.
#include "store/git/describe.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "store/git/objects/object_parse.h"
#include "store/git/wildmatch.h"

namespace reftab {
namespace {

constexpr unsigned kSeen = 1;
constexpr unsigned kMaxCandidates = 10;  // git's DEFAULT_CANDIDATES

// A name a commit can be described by: the best tag that peels to it.
struct Name {
  int prio = 0;  // 2 annotated, 1 lightweight
  ObjectId oid{};
  std::string path;  // the ref name after refs/tags/
  bool tag_read = false, tag_ok = false;
  std::string tag_name;  // the annotated tag's own "tag" header
  uint64_t tag_date = 0;
  ObjectId tagged{};  // what the tag object names
  bool name_checked = false, misnamed = false;
};

struct Commit {
  bool read = false;
  unsigned flags = 0;
  uint64_t date = 0;
  std::vector<ObjectId> parents;
};

struct Candidate {
  Name* name = nullptr;
  int depth = 0;
  int found_order = 0;
  unsigned within = 0;
};

}  // namespace

struct GitDescriber::Impl {
  GitRefStore& store;
  GitObjects& objects;
  GitAbbreviator& abbrev;
  GitDescribeOptions options;
  bool loaded = false;
  std::unordered_map<ObjectId, Name, ObjectIdHash> names;  // by the id the tag peels to
  size_t hash_size;

  Impl(GitRefStore& s, GitAbbreviator& a, GitDescribeOptions o)
      : store(s),
        objects(*s.objects()),
        abbrev(a),
        options(std::move(o)),
        hash_size(s.hash_size()) {}

  Status ReadTag(Name* n) {
    if (n->tag_read) return Status::Ok();
    n->tag_read = true;
    GitObjectType type = GitObjectType::kNone;
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects.Read(n->oid, &type, &content));
    GitTag tag;
    if (type != GitObjectType::kTag || !ParseTag(content, hash_size, &tag).ok()) {
      return Status::Ok();
    }
    n->tag_ok = true;
    n->tag_name = tag.tag;
    n->tagged = tag.object;
    n->tag_date = tag.tagger && tag.tagger->has_date ? tag.tagger->timestamp : 0;
    return Status::Ok();
  }

  bool Wanted(std::string_view path) const {
    for (const std::string& p : options.exclude) {
      if (WildMatch(p, path)) return false;
    }
    if (options.match.empty()) return true;
    for (const std::string& p : options.match) {
      if (WildMatch(p, path)) return true;
    }
    return false;
  }

  // git's get_name and replace_name: one name per peeled commit, an annotated tag over a
  // lightweight one, of two annotated ones the newer tagger date (the first on a tie).
  Status Add(const std::string& path, const ObjectId& oid) {
    ObjectId peeled = oid;
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects.Peel(oid, &peeled, &ok));
    if (!ok) peeled = oid;
    const int prio = peeled != oid ? 2 : 1;
    auto it = names.find(peeled);
    Name fresh;
    fresh.prio = prio;
    fresh.oid = oid;
    fresh.path = path;
    if (it == names.end()) {
      names.emplace(peeled, std::move(fresh));
      return Status::Ok();
    }
    Name& e = it->second;
    bool replace = e.prio < prio;
    if (!replace && e.prio == 2 && prio == 2) {
      REFTAB_RETURN_IF_ERROR(ReadTag(&e));
      if (!e.tag_ok) {
        replace = true;
      } else {
        REFTAB_RETURN_IF_ERROR(ReadTag(&fresh));
        replace = fresh.tag_ok && e.tag_date < fresh.tag_date;
      }
    }
    if (replace) e = std::move(fresh);
    return Status::Ok();
  }

  Status Load() {
    if (loaded) return Status::Ok();
    loaded = true;
    std::vector<std::pair<std::string, ObjectId>> tags;
    Status walk = store.ForEachRef("refs/tags/", [&](const RefRecord& r) {
      tags.emplace_back(r.refname, r.value);
      if (r.value_type == RefValueType::kSymref) tags.back().second = ObjectId{};
      return true;
    });
    REFTAB_RETURN_IF_ERROR(walk);
    for (auto& [refname, oid] : tags) {
      if (oid == ObjectId{}) {  // a symref: what it resolves to
        ResolvedRef r;
        REFTAB_RETURN_IF_ERROR(store.Resolve(refname, &r));
        if (!r.exists || r.broken) continue;
        oid = r.id;
      }
      std::string path = refname.substr(10);
      if (!Wanted(path)) continue;
      REFTAB_RETURN_IF_ERROR(Add(path, oid));
    }
    return Status::Ok();
  }

  Status Read(const ObjectId& id, std::unordered_map<ObjectId, Commit, ObjectIdHash>* commits,
              Commit** out) {
    Commit& c = (*commits)[id];
    *out = &c;
    if (c.read) return Status::Ok();
    c.read = true;
    GitObjectType type = GitObjectType::kNone;
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects.Read(id, &type, &content));
    GitCommit parsed;
    if (type != GitObjectType::kCommit || !ParseCommit(content, hash_size, &parsed).ok()) {
      return Status::Ok();  // git's walk skips what it cannot parse
    }
    c.parents = std::move(parsed.parents);
    if (parsed.committer && parsed.committer->has_date) c.date = parsed.committer->timestamp;
    return Status::Ok();
  }

  // The tag's name as git prints it; false when an annotated tag cannot be read (git dies).
  Status AppendName(Name* n, std::string* out, bool* ok) {
    *ok = true;
    if (n->prio == 2) {
      REFTAB_RETURN_IF_ERROR(ReadTag(n));
      if (!n->tag_ok) {
        *ok = false;
        return Status::Ok();
      }
      if (!n->name_checked) n->misnamed = n->tag_name != n->path;
      n->name_checked = true;
      out->append(n->tag_name);
    } else {
      out->append(n->path);
    }
    return Status::Ok();
  }

  Status Suffix(int depth, const ObjectId& id, std::string* out) {
    std::string hex;
    REFTAB_RETURN_IF_ERROR(abbrev.Abbreviate(id, options.abbrev, &hex));
    out->push_back('-');
    out->append(std::to_string(depth)).append("-g").append(hex);
    return Status::Ok();
  }
};

GitDescriber::GitDescriber(GitRefStore& store, GitAbbreviator& abbrev, GitDescribeOptions options)
    : impl_(std::make_unique<Impl>(store, abbrev, std::move(options))) {}

GitDescriber::~GitDescriber() = default;

namespace {

// git's prio_queue over commits by date: newest first, then first queued first.
class DateQueue {
 public:
  void Put(const ObjectId& id, uint64_t date) { q_.push(Entry{date, counter_++, id}); }
  bool Empty() const { return q_.empty(); }
  ObjectId Get() {
    ObjectId id = q_.top().id;
    q_.pop();
    return id;
  }
  std::vector<ObjectId> All() const {
    std::vector<ObjectId> out;
    auto copy = q_;
    for (; !copy.empty(); copy.pop()) out.push_back(copy.top().id);
    return out;
  }

 private:
  struct Entry {
    uint64_t date;
    uint64_t order;
    ObjectId id;
    bool operator<(const Entry& o) const {
      return date != o.date ? date < o.date : order > o.order;
    }
  };
  std::priority_queue<Entry> q_;
  uint64_t counter_ = 0;
};

}  // namespace

Status GitDescriber::Describe(const ObjectId& commit, std::string* out) {
  out->clear();
  Impl& m = *impl_;
  REFTAB_RETURN_IF_ERROR(m.Load());
  if (m.names.empty()) return Status::Ok();  // "No names found"
  const bool tags = m.options.tags;
  bool ok = true;
  if (auto it = m.names.find(commit); it != m.names.end() && (tags || it->second.prio == 2)) {
    Name& n = it->second;
    REFTAB_RETURN_IF_ERROR(m.AppendName(&n, out, &ok));
    if (ok && n.misnamed) REFTAB_RETURN_IF_ERROR(m.Suffix(0, n.prio == 2 ? n.tagged : commit, out));
    if (!ok) out->clear();
    return Status::Ok();
  }

  std::unordered_map<ObjectId, Commit, ObjectIdHash> commits;
  Commit* c = nullptr;
  REFTAB_RETURN_IF_ERROR(m.Read(commit, &commits, &c));
  c->flags = kSeen;
  DateQueue queue;
  queue.Put(commit, c->date);
  std::vector<Candidate> matches;
  unsigned annotated = 0;
  size_t seen_commits = 0;
  std::optional<ObjectId> gave_up_on;
  while (!queue.Empty()) {
    const ObjectId id = queue.Get();
    REFTAB_RETURN_IF_ERROR(m.Read(id, &commits, &c));
    ++seen_commits;
    if (matches.size() == kMaxCandidates || matches.size() == m.names.size()) {
      gave_up_on = id;
      break;
    }
    if (auto it = m.names.find(id); it != m.names.end()) {
      Name& n = it->second;
      if (tags || n.prio == 2) {
        Candidate t;
        t.name = &n;
        t.depth = int(seen_commits) - 1;
        t.found_order = int(matches.size()) + 1;
        t.within = 1u << t.found_order;
        c->flags |= t.within;
        if (n.prio == 2) ++annotated;
        matches.push_back(t);
      }
    }
    for (Candidate& t : matches) {
      if (!(c->flags & t.within)) ++t.depth;
    }
    if (annotated && queue.Empty()) {
      int best_depth = INT32_MAX;
      unsigned best_within = 0;
      for (const Candidate& t : matches) {
        if (t.depth < best_depth) {
          best_depth = t.depth;
          best_within = t.within;
        } else if (t.depth == best_depth) {
          best_within |= t.within;
        }
      }
      if ((c->flags & best_within) == best_within) break;
    }
    const unsigned flags = c->flags;
    const std::vector<ObjectId> parents = c->parents;
    for (const ObjectId& p : parents) {
      Commit* pc = nullptr;
      REFTAB_RETURN_IF_ERROR(m.Read(p, &commits, &pc));
      if (!(pc->flags & kSeen)) queue.Put(p, pc->date);
      pc->flags |= flags;
    }
  }
  if (matches.empty()) return Status::Ok();  // git dies: no tag can describe it
  std::sort(matches.begin(), matches.end(), [](const Candidate& a, const Candidate& b) {
    return a.depth != b.depth ? a.depth < b.depth : a.found_order < b.found_order;
  });
  Candidate& best = matches[0];
  if (gave_up_on) {
    REFTAB_RETURN_IF_ERROR(m.Read(*gave_up_on, &commits, &c));
    queue.Put(*gave_up_on, c->date);
  }
  // git's finish_depth_computation: count the commits best does not reach until every
  // commit still queued is reached by it.
  std::unordered_set<ObjectId, ObjectIdHash> unflagged;
  for (const ObjectId& id : queue.All()) {
    if (!(commits[id].flags & best.within)) unflagged.insert(id);
  }
  while (!queue.Empty()) {
    const ObjectId id = queue.Get();
    REFTAB_RETURN_IF_ERROR(m.Read(id, &commits, &c));
    if (c->flags & best.within) {
      if (unflagged.empty()) break;
    } else {
      unflagged.erase(id);
      ++best.depth;
    }
    const unsigned flags = c->flags;
    const std::vector<ObjectId> parents = c->parents;
    for (const ObjectId& p : parents) {
      Commit* pc = nullptr;
      REFTAB_RETURN_IF_ERROR(m.Read(p, &commits, &pc));
      const bool seen = pc->flags & kSeen;
      if (!seen) queue.Put(p, pc->date);
      const bool before = pc->flags & best.within;
      pc->flags |= flags;
      const bool after = pc->flags & best.within;
      if (!seen && !after) unflagged.insert(p);
      if (seen && !before && after) unflagged.erase(p);
    }
  }
  REFTAB_RETURN_IF_ERROR(m.AppendName(best.name, out, &ok));
  if (ok && (best.name->misnamed || m.options.abbrev != kAbbrevFull)) {
    REFTAB_RETURN_IF_ERROR(m.Suffix(best.depth, commit, out));
  }
  if (!ok) out->clear();
  return Status::Ok();
}

}  // namespace reftab

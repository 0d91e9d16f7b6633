// reftab for-each-ref / reftab refs list: git's for-each-ref over the ref store, byte for
// byte (see cli/ref_format.h for the format language, cli/for_each_ref_args.cc for the
// options), plus --format=json: one JSON object per ref, with dump's byte-string rules.
//
// Streaming: in name order (the default, or --no-sort) refs are read from the merged stack,
// formatted and written one at a time, and --count=N stops the read after N; nothing is
// buffered. Another --sort keeps every matching ref's values (or, with --count=N, only the N
// best so far) and sorts them. Patterns narrow the read to their literal prefixes.
#include <algorithm>
#include <array>
#include <cstdio>
#include <queue>

#include "cli/for_each_ref.h"
#include "cli/git_color.h"
#include "cli/git_options.h"
#include "cli/jsonl.h"
#include "cli/output.h"
#include "cli/ref_objects.h"
#include "cli/ref_sort.h"
#include "cli/ref_values.h"
#include "cli/stack_access.h"
#include "store/git/objects/abbrev.h"
#include "store/git/refs/ref_patterns.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {
namespace {

struct Entry {
  RefItem item;
  std::vector<AtomValue> values;
};

class Listing {
 public:
  // `core_abbrev`: ReadCoreAbbrev's value.
  Listing(Store& store, const ForEachRefOptions& o, const RefFormat& f,
          const std::vector<SortKey>& keys, std::vector<ObjectId> points_at, Reach reach,
          int core_abbrev)
      : store_(store),
        o_(o),
        f_(f),
        keys_(keys),
        points_at_(std::move(points_at)),
        reach_(std::move(reach)),
        values_(store, core_abbrev) {}

  // The exit status; output and git's messages are written.
  int Run() {
    Status s;
    if (FastListingApplies(store_, o_, f_, keys_)) {
      s = ListFast(store_, o_, f_, &out_);
    } else {
      s = IsBase();
      if (s.ok()) s = IsNameOrder(f_, keys_) ? Stream() : Sorted();
    }
    if (!out_.Flush()) return Fail(Status::IoError("writing standard output failed"));
    if (!s.ok()) return GitDie(s.message());
    return kExitOk;
  }

 private:
  // Calls fn for each listed ref in name order until it returns false.
  Status ForEach(const std::function<bool(const RefItem&)>& fn) {
    std::vector<std::string> prefixes = ListingPrefixes(o_);
    bool go_on = true;
    Status inner;
    RefItem item;  // reused, so that its names keep their buffers from ref to ref
    for (const std::string& prefix : prefixes) {
      Status s = store_.ForEachRef(prefix, [&](const RefRecord& rec) {
        item.is_symref = false;  // Admit sets every other field of a listed ref
        item.symref.clear();
        bool listed = false;
        inner = Admit(rec, &item, &listed);
        if (!inner.ok()) return go_on = false;
        if (listed) go_on = fn(item);
        return go_on && inner.ok();
      });
      REFTAB_RETURN_IF_ERROR(inner);
      REFTAB_RETURN_IF_ERROR(s);
      if (!go_on) break;
    }
    return Status::Ok();
  }

  // git's ref filter: which records are listed, and what they resolve to.
  Status Admit(const RefRecord& rec, RefItem* item, bool* listed) {
    const std::string& name = rec.refname;
    bool admitted = false;
    REFTAB_RETURN_IF_ERROR(AdmitListedName(o_, name, &admitted));
    *listed = false;
    if (!admitted) return Status::Ok();
    item->refname = name;
    if (rec.value_type == RefValueType::kSymref) {
      ResolvedRef r;
      REFTAB_RETURN_IF_ERROR(store_.Resolve(name, &r));
      if (!r.exists || r.broken) return Status::Ok();  // git skips broken refs silently
      item->is_symref = true;
      item->symref = r.name;
      item->oid = r.id;
      item->has_peeled = r.record.value_type == RefValueType::kVal2;
      item->peeled = r.record.peeled;
    } else {
      item->oid = rec.value;
      item->has_peeled = rec.value_type == RefValueType::kVal2;
      item->peeled = rec.peeled;
    }
    if (!points_at_.empty()) {
      bool points = false;
      REFTAB_RETURN_IF_ERROR(PointsAt(*item, &points));
      if (!points) return Status::Ok();
    }
    if (!o_.reach.empty()) {
      bool keep = false;
      REFTAB_RETURN_IF_ERROR(Reachable(item->oid, &keep));
      if (!keep) return Status::Ok();
    }
    *listed = true;
    return Status::Ok();
  }

  // Whether any of `commits` is an ancestor of `commit` (descendant: the other way round).
  Status AnyAncestor(const std::vector<ObjectId>& commits, const ObjectId& commit, bool descendant,
                     bool* any) {
    *any = false;
    for (const ObjectId& c : commits) {
      REFTAB_RETURN_IF_ERROR(descendant ? store_.objects()->IsAncestor(commit, c, any)
                                        : store_.objects()->IsAncestor(c, commit, any));
      if (*any) break;
    }
    return Status::Ok();
  }

  // git's --merged / --no-merged / --contains / --no-contains: refs to commits only (tags
  // peeled), merged into any of the --merged commits and into none of the --no-merged ones,
  // containing any --contains commit and no --no-contains one.
  Status Reachable(const ObjectId& id, bool* keep) {
    ObjectId commit{};
    bool is_commit = false;
    REFTAB_RETURN_IF_ERROR(CommitOf(store_, o_.reach[0].first.c_str(), id, &commit, &is_commit));
    *keep = false;
    if (!is_commit) return Status::Ok();
    bool hit = false;
    for (int kind = 0; kind < 4; ++kind) {
      if (reach_[size_t(kind)].empty()) continue;
      REFTAB_RETURN_IF_ERROR(AnyAncestor(reach_[size_t(kind)], commit, kind < 2, &hit));
      if (hit != (kind % 2 == 0)) return Status::Ok();
    }
    *keep = true;
    return Status::Ok();
  }

  bool Wanted(const ObjectId& id) const {
    return std::find(points_at_.begin(), points_at_.end(), id) != points_at_.end();
  }

  // git's match_points_at: the ref's id, or an object a chain of tags from it names.
  Status PointsAt(const RefItem& item, bool* points) {
    *points = Wanted(item.oid);
    if (*points) return Status::Ok();
    GitObjects* objects = store_.objects();
    std::string why;
    if (!objects || !ObjectsAvailable(*objects, &why)) {
      *points = item.has_peeled && Wanted(item.peeled);
      return Status::Ok();
    }
    ObjectId cur = item.oid;
    for (int depth = 0; depth < 64; ++depth) {
      GitObjectType type = GitObjectType::kNone;
      std::string content;
      REFTAB_RETURN_IF_ERROR(ReadObject(*objects, cur, &type, &content));
      if (type == GitObjectType::kNone) {
        return Status::InvalidArgument("malformed object at '" + item.refname + "'");
      }
      if (type != GitObjectType::kTag) return Status::Ok();
      if (content.compare(0, 7, "object ") != 0 ||
          !ParseHexId(std::string_view(content).substr(7, 2 * store_.hash_size()),
                      store_.hash_size(), &cur)) {
        return Status::InvalidArgument("malformed object at '" + item.refname + "'");
      }
      if (Wanted(cur)) return *points = true, Status::Ok();
    }
    return Status::Ok();
  }

  // Formats one ref into the output; false when git would die here.
  bool Print(const RefItem& item, const std::vector<AtomValue>& values, Status* s) {
    std::string& b = out_.buf();
    if (o_.json && !o_.json_fields.empty()) {
      AppendJsonFields(values, &b);
    } else if (o_.json) {
      AppendJson(item, &b);
    } else {
      // Rendered straight after what is buffered, taken back if --omit-empty drops it.
      const size_t start = b.size();
      std::string error;
      if (!RenderRef(f_, values, &b, &error)) {
        b.resize(start);
        *s = Status::InvalidArgument(error);
        return false;
      }
      if (b.size() == start && o_.omit_empty) return true;
      b.push_back('\n');
    }
    out_.MaybeFlush();
    return true;
  }

  void AppendJson(const RefItem& item, std::string* b) const {
    std::string fields;
    size_t hs = store_.hash_size();
    AppendJsonBytesField("refname", item.refname, &fields);
    fields.append(",\"objectname\":\"").append(HexId(item.oid, hs)).push_back('"');
    if (item.has_peeled) {
      fields.append(",\"peeled\":\"").append(HexId(item.peeled, hs)).push_back('"');
    }
    if (item.is_symref) AppendJsonBytesField("symref", item.symref, &fields);
    fields[0] = '{';
    b->append(fields).append("}\n");
  }

  // One field per atom of --format='json %(atom) ...', named as written, in order.
  void AppendJsonFields(const std::vector<AtomValue>& values, std::string* b) const {
    b->push_back('{');
    const size_t first = b->size();
    std::vector<bool> done(f_.atoms.size());
    for (const FormatPiece& p : f_.pieces) {
      if (!p.is_atom || done[p.atom]) continue;
      done[p.atom] = true;
      AppendJsonBytesField(f_.atoms[p.atom].name.c_str(), values[p.atom].s, b);
    }
    if (b->size() > first) b->erase(first, 1);  // the first field's leading comma
    b->append("}\n");
  }

  // %(is-base:<commit>): which listed ref each such commit most likely branched from, found
  // over the whole listing first (as git does, before sorting).
  Status IsBase() {
    std::vector<const UsedAtom*> atoms;
    for (const UsedAtom& a : f_.atoms) {
      if (a.kind == AtomKind::kIsBase) atoms.push_back(&a);
    }
    if (atoms.empty()) return Status::Ok();
    std::vector<std::string> names;
    std::vector<ObjectId> commits;
    Status s;
    REFTAB_RETURN_IF_ERROR(ForEach([&](const RefItem& item) {
      ObjectId commit{};
      bool is_commit = false;
      s = CommitOf(store_, "%(is-base)", item.oid, &commit, &is_commit);
      if (s.ok() && is_commit) {
        names.push_back(item.refname);
        commits.push_back(commit);
      }
      return s.ok();
    }));
    REFTAB_RETURN_IF_ERROR(s);
    IsBaseNames found;
    size_t slot = 0;
    for (const UsedAtom* a : atoms) {
      int index = -1;
      REFTAB_RETURN_IF_ERROR(store_.objects()->BranchBase(a->base, commits, &index));
      if (index < 0) continue;
      std::vector<std::string>& slots = found[names[size_t(index)]];
      slots.resize(atoms.size());
      slots[slot++] = a->base_name;
    }
    values_.SetIsBase(std::move(found));
    return Status::Ok();
  }

  Status Stream() {
    std::vector<AtomValue> values;
    int64_t shown = 0;
    Status s;
    REFTAB_RETURN_IF_ERROR(ForEach([&](const RefItem& item) {
      if (!o_.json || !o_.json_fields.empty()) {
        s = values_.Fill(f_, item, &values);
        if (!s.ok()) return false;
      }
      if (!Print(item, values, &s)) return false;
      return !(o_.count && ++shown >= o_.count);
    }));
    return s;
  }

  Status Sorted() {
    auto before = [&](const Entry& a, const Entry& b) {
      return CompareRefs(keys_, f_, a.values, a.item.refname, b.values, b.item.refname) < 0;
    };
    // With --count=N only the N first in sort order are kept: a heap whose top is the
    // worst of them.
    std::priority_queue<Entry, std::vector<Entry>, decltype(before)> best(before);
    std::vector<Entry> all;
    // git collects every ref first (warning about broken names as it goes) and works the
    // values out when the sort first compares a ref, which it does for each: a ref whose
    // values fail (its object is missing) stops the command after the collection, before
    // anything is printed. The first such ref in name order is the one reported.
    Status s, failed;
    REFTAB_RETURN_IF_ERROR(ForEach([&](const RefItem& item) {
      if (!failed.ok()) return true;
      Entry e{item, {}};
      failed = values_.Fill(f_, item, &e.values);
      if (!failed.ok()) return true;
      if (!o_.count) {
        all.push_back(std::move(e));
      } else if (int64_t(best.size()) < o_.count) {
        best.push(std::move(e));
      } else if (before(e, best.top())) {
        best.pop();
        best.push(std::move(e));
      }
      return true;
    }));
    REFTAB_RETURN_IF_ERROR(failed);
    for (; !best.empty(); best.pop()) all.push_back(best.top());
    std::stable_sort(all.begin(), all.end(), before);
    for (const Entry& e : all) {
      if (!Print(e.item, e.values, &s)) return s;
    }
    return Status::Ok();
  }

  Store& store_;
  const ForEachRefOptions& o_;
  const RefFormat& f_;
  const std::vector<SortKey>& keys_;
  std::vector<ObjectId> points_at_;
  Reach reach_;
  RefValues values_;
  Output out_;
};

}  // namespace

std::vector<std::string> ListingPrefixes(const ForEachRefOptions& o) {
  if (!o.patterns.empty() && !o.ignore_case && !o.include_root_refs) {
    return PatternPrefixes(o.patterns);
  }
  return {o.include_root_refs ? "" : "refs/"};
}

int RunForEachRef(const GlobalOptions& g, const char* command, const Args& args) {
  ForEachRefOptions o;
  if (args.size() == 1 && args[0] == "-h") return ParseForEachRefArgs(command, args, &o);
  auto store = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!store.ok()) return GitDie(store.status().message());
  // git reads its configuration (core.abbrev among it) before the options.
  std::string error;
  Result<int> core_abbrev = ReadCoreAbbrev((*store)->config(), &error);
  if (!core_abbrev.ok()) return GitConfigDie(core_abbrev.status(), error);
  Result<bool> pager_color = ReadPagerColor((*store)->config());
  if (!pager_color.ok()) return GitDie(pager_color.status().message());
  o.pager_color = *pager_color;
  int rc = ParseForEachRefArgs(command, args, &o);
  if (rc >= 0) return rc;
  RefFormat f;
  std::vector<SortKey> keys;
  std::vector<ObjectId> points_at;
  Reach reach;
  rc = PrepareForEachRef(command, **store, &o, &f, &keys, &points_at, &reach);
  if (rc >= 0) return rc;
  return Listing(**store, o, f, keys, std::move(points_at), std::move(reach), *core_abbrev).Run();
}

int CmdForEachRef(const GlobalOptions& g, const Args& args) {
  return RunForEachRef(g, "for-each-ref", args);
}

int CmdRefsList(const GlobalOptions& g, const Args& args) {
  return RunForEachRef(g, "refs list", args);
}

}  // namespace reftab::cli

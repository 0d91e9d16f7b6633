// What for-each-ref works out before listing: the objects its options name, the format and
// the sort keys, the patterns of --stdin; each failure worded and ordered as git's.
#include <cstdio>

#include "cli/for_each_ref.h"
#include "cli/input.h"
#include "cli/object_name_report.h"
#include "cli/ref_objects.h"
#include "store/git/refs/object_name.h"

namespace reftab::cli {
namespace {

// Resolves an object name as git's get_oid does (ResolveRevision), printing what git prints
// while reading it. -1 when it names an object (*found, *id) or nothing (!*found); else, when
// reading failed or git stops on the name, the exit status after git's "fatal: <cause>".
int ResolveName(GitRefStore& store, const std::string& name, ObjectId* id, bool* found) {
  ObjectNameResult r;
  Status s = ResolveRevision(store, name, &r);
  if (!s.ok()) return GitDie(s.message());
  ReportObjectName(r);
  if (int rc = ObjectNameDied(r); rc >= 0) return rc;
  *found = r.found;
  *id = r.id;
  return -1;
}

int ResolvePointsAt(GitRefStore& store, const ForEachRefOptions& o,
                    std::vector<ObjectId>* points_at) {
  for (const std::string& p : o.points_at) {
    ObjectId id{};
    bool found = false;
    if (int rc = ResolveName(store, p, &id, &found); rc >= 0) return rc;
    if (!found) {
      std::fprintf(stderr, "error: malformed object name '%s'\n", p.c_str());
      return kExitUsage;
    }
    points_at->push_back(id);
  }
  return -1;
}

// One --merged/--contains commit: named, and a commit (tags peeled).
int ResolveReachCommit(GitRefStore& store, const std::string& option, const std::string& name,
                       ObjectId* commit) {
  bool merged = option.find("merged") != std::string::npos;
  ObjectId named{};
  bool found = false;
  if (int rc = ResolveName(store, name, &named, &found); rc >= 0) return rc;
  if (!found) {
    if (merged) return GitDie("malformed object name " + name);
    std::fprintf(stderr, "error: malformed object name %s\n", name.c_str());
    return kExitUsage;
  }
  bool is_commit = false;
  Status s = CommitOf(store, option.c_str(), named, commit, &is_commit);
  if (!s.ok()) return GitDie(s.message());
  if (is_commit) return -1;
  GitObjectType type = GitObjectType::kNone;
  if (store.objects()->TypeOf(*commit, &type).ok() && type != GitObjectType::kNone) {
    // git names the object given, with the type of what it peels to.
    std::fprintf(stderr, "error: object %s is a %s, not a commit\n",
                 HexId(named, store.hash_size()).c_str(), GitObjectTypeName(type));
  }
  if (merged) {
    std::fprintf(stderr, "error: option `%s' must point to a commit\n", option.c_str() + 2);
  } else {
    std::fprintf(stderr, "error: no such commit %s\n", name.c_str());
  }
  return kExitUsage;
}

int ResolveReach(GitRefStore& store, const ForEachRefOptions& o, Reach* reach) {
  static constexpr const char* kOptions[] = {"--merged", "--no-merged", "--contains",
                                             "--no-contains"};
  for (const auto& [option, name] : o.reach) {
    ObjectId commit{};
    int rc = ResolveReachCommit(store, option, name, &commit);
    if (rc >= 0) return rc;
    for (size_t kind = 0; kind < 4; ++kind) {
      if (option == kOptions[kind]) (*reach)[kind].push_back(commit);
    }
  }
  return -1;
}

// The commits of %(ahead-behind:<commit>) and %(is-base:<commit>) atoms.
int ResolveAheadBehind(GitRefStore& store, RefFormat* f) {
  for (UsedAtom& a : f->atoms) {
    if (a.kind != AtomKind::kAheadBehind && a.kind != AtomKind::kIsBase) continue;
    bool found = false, is_commit = false;
    if (int rc = ResolveName(store, a.base_name, &a.base, &found); rc >= 0) return rc;
    Status s;
    const char* what = a.kind == AtomKind::kIsBase ? "%(is-base)" : "%(ahead-behind)";
    const ObjectId named = a.base;
    if (found) s = CommitOf(store, what, named, &a.base, &is_commit);
    if (!s.ok()) return GitDie(s.message());
    if (found && !is_commit) {  // git names what the name peels to before it gives up
      ObjectId peeled{};
      bool ok = false;
      GitObjectType type = GitObjectType::kNone;
      if (store.objects()->Peel(named, &peeled, &ok).ok() && ok &&
          store.objects()->TypeOf(peeled, &type).ok() && type != GitObjectType::kNone) {
        std::fprintf(stderr, "error: object %s is a %s, not a commit\n",
                     HexId(peeled, store.hash_size()).c_str(), GitObjectTypeName(type));
      }
    }
    if (!is_commit) return GitDie("failed to find '" + a.base_name + "'");
  }
  return -1;
}

// --format='json %(atom) ...': atoms separated by blanks, each a field of its own, so no
// literal text and nothing that only shapes text (alignment, conditions, colours).
FormatError ParseJsonFields(const std::string& fields, RefFormat* f) {
  FormatError e = ParseRefFormat(fields, f);
  if (!e.ok()) return e;
  for (const FormatPiece& p : f->pieces) {
    if (!p.is_atom) {
      if (p.literal.find_first_not_of(" \t") == std::string::npos) continue;
      e.kind = FormatError::kFatal;
      e.message =
          "--format=json: expected only %(atom)s separated by blanks, found '" + p.literal + "'";
      return e;
    }
    const UsedAtom& a = f->atoms[p.atom];
    // The atom as written is the key: it must need no escaping in JSON.
    for (char c : a.name) {
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
        e.kind = FormatError::kFatal;
        e.message = "--format=json: %(" + a.name + ") cannot be a field name";
        return e;
      }
    }
    switch (a.kind) {
      case AtomKind::kAlign:
      case AtomKind::kEnd:
      case AtomKind::kIf:
      case AtomKind::kThen:
      case AtomKind::kElse:
      case AtomKind::kColor:
      case AtomKind::kRest:
        e.kind = FormatError::kFatal;
        e.message = "--format=json: %(" + a.name + ") is not a field";
        return e;
      default: break;
    }
  }
  return e;
}

int ParseFormatAndSort(const char* command, GitRefStore& store, const ForEachRefOptions& o,
                       RefFormat* f, std::vector<SortKey>* keys) {
  f->quote = o.quote;
  // git's for-each-ref reads no color.ui: without --color, colours follow the terminal.
  f->use_color =
      WantColor(o.color != ColorWhen::kUnknown ? o.color : ColorWhen::kAuto, o.pager_color);
  FormatError e;
  if (!o.json) {
    e = ParseRefFormat(o.format, f);
  } else if (!o.json_fields.empty()) {
    e = ParseJsonFields(o.json_fields, f);
  }
  if (e.kind == FormatError::kUsage) {
    return ForEachRefUsageError(command, e.message);
  }
  if (e.ok()) {
    int rc = ResolveAheadBehind(store, f);
    if (rc >= 0) return rc;
  }
  if (e.ok() && o.start_after && o.sorts.size() > 1) {
    e.kind = FormatError::kFatal;
    e.message = "cannot use --start-after with custom sort options";
  }
  if (e.ok()) ParseSortKeys(o.sorts, o.ignore_case, f, keys, &e);
  if (e.ok()) return -1;
  if (!e.error_line.empty()) (void)GitError(e.error_line);
  return GitDie(e.message);
}

// --stdin: one pattern per line (a CR before the LF dropped, as git's strbuf_getline).
int ReadStdinPatterns(ForEachRefOptions* o) {
  if (!o->from_stdin) return -1;
  if (!o->patterns.empty()) return GitDie("unknown arguments supplied with --stdin");
  std::string line;
  InputReader in;
  while (in.Next('\n', &line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    o->patterns.push_back(line);
  }
  return -1;
}

}  // namespace

Status CommitOf(GitRefStore& store, const char* what, const ObjectId& id, ObjectId* commit,
                bool* is_commit) {
  GitObjects* objects = store.objects();
  std::string why = "the repository has no object database";
  if (!objects || !ObjectsAvailable(*objects, &why)) {
    return Status::InvalidArgument(std::string(what) + " needs the object database: " + why);
  }
  REFTAB_RETURN_IF_ERROR(objects->Peel(id, commit, is_commit));
  GitObjectType type = GitObjectType::kNone;
  if (*is_commit) REFTAB_RETURN_IF_ERROR(objects->TypeOf(*commit, &type));
  *is_commit = *is_commit && type == GitObjectType::kCommit;
  return Status::Ok();
}

int PrepareForEachRef(const char* command, GitRefStore& store, ForEachRefOptions* o, RefFormat* f,
                      std::vector<SortKey>* keys, std::vector<ObjectId>* points_at, Reach* reach) {
  int rc = ResolvePointsAt(store, *o, points_at);
  if (rc < 0) rc = ResolveReach(store, *o, reach);
  if (rc < 0) rc = ParseFormatAndSort(command, store, *o, f, keys);
  if (rc < 0) rc = ReadStdinPatterns(o);
  if (rc < 0 && o->start_after && !o->patterns.empty()) {
    rc = GitDie("cannot use --start-after with patterns");
  }
  return rc;
}

}  // namespace reftab::cli

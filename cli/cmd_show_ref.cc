// reftab show-ref [--head] [-d|--dereference] [-s|--hash] [-q|--quiet] [--heads] [--tags]
//                 [--verify REF...] [--exists REF] [PATTERN...]
// Prints what `git show-ref` prints: "<oid> <refname>", with "<peeled> <refname>^{}" lines
// for refs that store a peeled value when dereferencing. Exit codes follow git: 1 when
// nothing matched; --verify of a missing ref prints "fatal: ..." and exits 128 (1 with -q);
// --exists exits 2 for a missing ref.
#include <cstdio>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/stack_access.h"

namespace reftab::cli {
namespace {

struct ShowOptions {
  bool head = false;
  bool deref = false;
  bool hash_only = false;
  bool quiet = false;
};

// Follows symrefs (git's depth limit, store/git_ref_store.h) to an object id. *found is
// false for a missing, dangling or broken ref.
Status Resolve(Store& store, std::string_view name, RefRecord* rec, bool* found) {
  ResolvedRef r;
  REFTAB_RETURN_IF_ERROR(store.Resolve(name, &r));
  *found = r.exists && !r.broken;
  if (*found) *rec = std::move(r.record);
  return Status::Ok();
}

void ShowOne(const ShowOptions& o, std::string_view name, const RefRecord& resolved, size_t hs,
             Output* out) {
  if (o.quiet) return;
  std::string& b = out->buf();
  b.append(HexId(resolved.value, hs));
  if (!o.hash_only) b.append(" ").append(name);
  b.push_back('\n');
  if (o.deref && resolved.value_type == RefValueType::kVal2) {
    b.append(HexId(resolved.peeled, hs));
    if (!o.hash_only) b.append(" ").append(name).append("^{}");
    b.push_back('\n');
  }
  out->MaybeFlush();
}

bool MatchesPattern(std::string_view name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    if (p.size() > name.size()) continue;
    if (name.substr(name.size() - p.size()) != p) continue;
    if (p.size() == name.size() || name[name.size() - p.size() - 1] == '/') return true;
  }
  return false;
}

}  // namespace

int CmdShowRef(const GlobalOptions& g, const Args& args) {
  ShowOptions o;
  bool verify = false, exists = false, heads = false, tags = false;
  std::vector<std::string> patterns;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--head") {
      o.head = true;
    } else if (a == "-d" || a == "--dereference") {
      o.deref = true;
    } else if (a == "-s" || a == "--hash") {
      o.hash_only = true;
    } else if (a == "-q" || a == "--quiet") {
      o.quiet = true;
    } else if (a == "--verify") {
      verify = true;
    } else if (a == "--exists") {
      exists = true;
    } else if (a == "--heads" || a == "--branches") {
      heads = true;
    } else if (a == "--tags") {
      tags = true;
    } else if (a == "--") {
      patterns.insert(patterns.end(), args.begin() + long(i) + 1, args.end());
      break;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("show-ref", "unknown option " + a);
    } else {
      patterns.push_back(a);
    }
  }
  if (verify && exists) return Usage("show-ref", "--verify and --exists cannot be combined");
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return Fail(opened.status());
  Store& store = **opened;
  size_t hs = store.main_stack().snapshot()->hash_size();
  Output out;
  RefRecord rec;

  if (exists) {
    if (patterns.size() != 1) return Usage("show-ref", "--exists requires exactly one reference");
    bool found = false;
    Status s = store.ReadRef(patterns[0], &rec, &found);
    if (!s.ok()) return Fail(s);
    if (!found) {
      std::fprintf(stderr, "error: reference does not exist\n");
      return 2;
    }
    return kExitOk;
  }

  if (verify) {
    if (patterns.empty()) {
      std::fprintf(stderr, "fatal: --verify requires a reference\n");
      return 128;
    }
    for (const std::string& name : patterns) {
      bool found = false;
      bool full = name == "HEAD" || name.rfind("refs/", 0) == 0;
      if (full) {
        Status s = Resolve(store, name, &rec, &found);
        if (!s.ok()) return Fail(s);
      }
      if (!found) {
        out.Flush();
        if (o.quiet) return 1;
        std::fprintf(stderr, "fatal: '%s' - not a valid ref\n", name.c_str());
        return 128;
      }
      ShowOne(o, name, rec, hs, &out);
    }
    return out.Flush() ? kExitOk : Fail(Status::IoError("writing standard output failed"));
  }

  int matched = 0;
  RefRecord resolved;
  if (o.head) {
    bool found = false;
    Status s = Resolve(store, "HEAD", &resolved, &found);
    if (!s.ok()) return Fail(s);
    if (found) {
      ShowOne(o, "HEAD", resolved, hs, &out);
      ++matched;
    }
  }
  std::string prefix = heads && !tags ? "refs/heads/" : tags && !heads ? "refs/tags/" : "refs/";
  Status s = store.ForEachRef(prefix, [&](const RefRecord& rec) {
    if (heads && tags && rec.refname.rfind("refs/heads/", 0) != 0 &&
        rec.refname.rfind("refs/tags/", 0) != 0) {
      return true;
    }
    if (!MatchesPattern(rec.refname, patterns)) return true;
    const RefRecord* shown = &rec;
    if (rec.value_type == RefValueType::kSymref) {
      bool found = false;
      Status r = Resolve(store, rec.target, &resolved, &found);
      if (!r.ok() || !found) return true;  // git skips dangling symrefs
      shown = &resolved;
    }
    ShowOne(o, rec.refname, *shown, hs, &out);
    ++matched;
    return true;
  });
  if (!out.Flush()) return Fail(Status::IoError("writing standard output failed"));
  if (!s.ok()) return Fail(s);
  return matched > 0 ? kExitOk : 1;
}

}  // namespace reftab::cli

// `reftab help show-ref` and `reftab show-ref -h` (cli/commands.h).
const char* const reftab::cli::kShowRefUsage =
    "usage: reftab show-ref [--head] [-d | --dereference] [-s | --hash] [-q | --quiet]\n"
    "                       [--heads] [--tags] [<pattern>...]\n"
    "   or: reftab show-ref --verify [-d] [-s] [-q] <ref>...\n"
    "   or: reftab show-ref --exists <ref>\n"
    "\n";

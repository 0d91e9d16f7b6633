// reftab show-ref: git's show-ref on the git ref store, every option of git 2.55:
//   [--head] [-d|--dereference] [-s|--hash[=<n>]] [--abbrev[=<n>]] [--branches|--heads]
//   [--tags] [--] [<pattern>...]          list refs (patterns match whole trailing components)
//   --verify [-q] ... <ref>...            exact names only
//   --exclude-existing[=<pattern>]        filter ref lines on stdin to those not here
//   --exists <ref>                        exit 0 / 2 ("error: reference does not exist")
// Output, messages and exit statuses are git's (1 when nothing matched, 128 for "fatal: ...",
// 129 for usage errors). reftab adds --format=json: one JSON object per ref instead of the
// text lines ({"name":...,"oid":...[,"peeled":...][,"symref":...]}, byte strings as in
// dump's JSON Lines).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/jsonl.h"
#include "cli/output.h"
#include "cli/stack_access.h"
#include "store/git/config/config.h"
#include "store/git/objects/abbrev.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/ref_list.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {
namespace {

struct ShowRefOptions {
  bool head = false, deref = false, hash_only = false, quiet = false, json = false;
  bool branches = false, tags = false, verify = false, exists = false;
  int abbrev = kAbbrevFull;  // store/git/objects/abbrev.h
  bool exclude_existing = false;
  std::optional<std::string> exclude_pattern;
};

// --abbrev[=<n>] / --hash[=<n>] as git's parse_opt_abbrev_cb reads them: no value is
// core.abbrev's length, --no-abbrev the whole id. Returns git's message for a value that is
// not a number.
std::string ParseAbbrevOption(std::string_view option, bool unset,
                              std::optional<std::string_view> value, int* abbrev) {
  if (!value) {
    *abbrev = unset ? kAbbrevFull : kAbbrevDefault;
    return {};
  }
  std::string s(*value);
  char* end = nullptr;
  long n = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end) return "option `" + std::string(option) + "' expects a numerical value";
  *abbrev = ClampAbbrevOption(n);
  return {};
}

GitOption AbbrevOption(char short_name, std::string_view name, std::string_view help,
                       ShowRefOptions* o, bool sets_hash_only) {
  GitOption opt;
  opt.short_name = short_name;
  opt.long_name = name;
  opt.arg = GitOption::Arg::kOptional;
  opt.arg_help = "n";
  opt.help = help;
  opt.set = [o, name, sets_hash_only](bool unset, std::optional<std::string_view> v) {
    if (sets_hash_only) {
      o->hash_only = true;  // git's --hash sets it even as --no-hash
      if (!v) return std::string();
    }
    return ParseAbbrevOption(name, unset, v, &o->abbrev);
  };
  return opt;
}

GitUsage ShowRefUsage(ShowRefOptions* o) {
  GitUsage u;
  u.lines = {
      "reftab show-ref [--head] [-d | --dereference]\n"
      "                [-s | --hash[=<n>]] [--abbrev[=<n>]] [--branches] [--tags]\n"
      "                [--] [<pattern>...]",
      "reftab show-ref --verify [-q | --quiet] [-d | --dereference]\n"
      "                [-s | --hash[=<n>]] [--abbrev[=<n>]]\n"
      "                [--] [<ref>...]",
      "reftab show-ref --exclude-existing[=<pattern>]", "reftab show-ref --exists <ref>"};
  u.options = {
      FlagOption(0, "tags", "only show tags (can be combined with --branches)", &o->tags),
      FlagOption(0, "branches", "only show branches (can be combined with --tags)", &o->branches),
      FlagOption(0, "heads", "deprecated synonym for --branches", &o->branches),
      FlagOption(0, "exists", "check for reference existence without resolving", &o->exists),
      FlagOption(0, "verify", "stricter reference checking, requires exact ref path", &o->verify),
      FlagOption('h', "", "show the HEAD reference, even if it would be filtered out", &o->head),
      FlagOption(0, "head", "show the HEAD reference, even if it would be filtered out", &o->head),
      FlagOption('d', "dereference", "dereference tags into object IDs", &o->deref),
      AbbrevOption('s', "hash", "only show SHA1 hash using <n> digits", o, true),
      AbbrevOption(0, "abbrev", "use <n> digits to display object names", o, false),
      FlagOption('q', "quiet", "do not print results to stdout (useful with --verify)", &o->quiet)};
  u.options[2].hidden = true;  // --heads
  u.options[5].hidden = true;  // -h
  GitOption ex;
  ex.long_name = "exclude-existing";
  ex.arg = GitOption::Arg::kOptional;
  ex.arg_help = "pattern";
  ex.help = "show refs from stdin that aren't in local repository";
  ex.negatable = false;
  ex.set = [o](bool, std::optional<std::string_view> v) {
    o->exclude_existing = true;
    o->exclude_pattern.reset();
    if (v) o->exclude_pattern = std::string(*v);
    return std::string();
  };
  u.options.push_back(std::move(ex));
  GitOption json;
  json.long_name = "format";
  json.arg = GitOption::Arg::kRequired;
  json.hidden = true;
  json.exact = true;
  json.set = [o](bool unset, std::optional<std::string_view> v) {
    if (unset || *v == "text") {
      o->json = false;
    } else if (*v == "json") {
      o->json = true;
    } else {
      return "unknown --format '" + std::string(*v) + "' (json or text)";
    }
    return std::string();
  };
  u.options.push_back(std::move(json));
  return u;
}

class Shower {
 public:
  // `core_abbrev`: ReadCoreAbbrev's value.
  Shower(Store& store, const ShowRefOptions& o, int core_abbrev)
      : store_(store), o_(o), abbrev_(store.objects(), store.hash_size(), core_abbrev) {}
  Output& out() { return out_; }

  // git's show_one: dies on a ref whose object is missing; prints the ref (and, with -d, the
  // id a tag peels to).
  int Show(const GitListedRef& ref) {
    bool exists = true;
    Status s = ObjectExists(store_, ref.id, &exists);
    if (!s.ok()) return Die(s.message());
    if (!exists) {
      return Die("git show-ref: bad ref " + *ref.name + " (" + HexId(ref.id, hs()) + ")");
    }
    if (o_.quiet) return 0;
    std::string hex, peeled_hex;
    if (!(s = Abbreviate(ref.id, &hex)).ok()) return Die(s.message());
    std::optional<ObjectId> peeled;
    if (o_.deref && !(s = PeeledId(store_, ref, &peeled)).ok()) return Die(s.message());
    if (peeled && !(s = Abbreviate(*peeled, &peeled_hex)).ok()) {
      return Die(s.message());
    }
    std::string& b = out_.buf();
    if (o_.json) {
      AppendJson(ref, hex, peeled ? &peeled_hex : nullptr, &b);
    } else {
      b.append(hex);
      if (!o_.hash_only) b.append(" ").append(*ref.name);
      b.push_back('\n');
      if (peeled) b.append(peeled_hex).append(" ").append(*ref.name).append("^{}\n");
    }
    out_.MaybeFlush();
    return 0;
  }

  int Die(const std::string& message) {
    out_.Flush();
    return GitDie(message);
  }

 private:
  size_t hs() const { return store_.hash_size(); }
  static void AppendJson(const GitListedRef& ref, const std::string& hex, const std::string* peeled,
                         std::string* b) {
    b->push_back('{');
    size_t at = b->size();
    AppendJsonBytesField("refname", *ref.name, b);  // for-each-ref's keys (cli/jsonl.h)
    b->erase(at, 1);                                // the field's leading comma
    b->append(",\"objectname\":\"").append(hex).push_back('"');
    if (peeled) b->append(",\"peeled\":\"").append(*peeled).push_back('"');
    if (ref.symref_target) AppendJsonBytesField("symref", *ref.symref_target, b);
    b->append("}\n");
  }

  // The database is asked only when a prefix must be made unique (whole ids, the default,
  // need none). Without a readable one (no objects directory) ids are taken on trust, as in
  // a small repository.
  Status Abbreviate(const ObjectId& id, std::string* hex) {
    return abbrev_.AbbreviateOrTrust(id, o_.abbrev, hex);
  }

  Store& store_;
  const ShowRefOptions& o_;
  GitAbbreviator abbrev_;
  Output out_;
};

bool MatchesPattern(std::string_view name, const Args& patterns) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    if (p.size() > name.size()) continue;
    if (name.substr(name.size() - p.size()) != p) continue;
    if (p.size() == name.size() || name[name.size() - p.size() - 1] == '/') return true;
  }
  return false;
}

void PrintListingError(const std::string& message) { (void)GitError(message); }

int ShowPatterns(Store& store, const ShowRefOptions& o, int core_abbrev, const Args& patterns) {
  Shower shower(store, o, core_abbrev);
  int matched = 0, code = 0;
  if (o.head) {
    ResolvedRef head;
    Status s = ResolveRefAsGit(store, "HEAD", kResolveReading, &head);
    if (!s.ok()) return shower.Die(s.message());
    if (head.resolved) {
      static const std::string kHead = "HEAD";
      GitListedRef ref;
      ref.name = &kHead;
      ref.id = head.id;
      ref.peeled = head.peeled;
      ++matched;
      if ((code = shower.Show(ref)) != 0) return code;
    }
  }
  std::vector<std::string> prefixes;
  if (o.branches) prefixes.push_back("refs/heads/");
  if (o.tags) prefixes.push_back("refs/tags/");
  if (prefixes.empty()) prefixes.push_back("refs/");
  Result<bool> paranoia = RefParanoia();
  if (!paranoia.ok()) return shower.Die(paranoia.status().message());
  GitListCallbacks cb;
  cb.error = PrintListingError;
  cb.include_broken = *paranoia;
  cb.ref = [&](const GitListedRef& ref) {
    if (!MatchesPattern(*ref.name, patterns)) return true;
    ++matched;
    code = shower.Show(ref);
    return code == 0;
  };
  for (const std::string& prefix : prefixes) {
    Status s = ForEachGitRef(store, prefix, cb);
    if (code != 0) return code;
    if (!s.ok()) return shower.Die(s.message());
  }
  if (!shower.out().Flush()) return GitDie("could not write to standard output");
  return matched > 0 ? kExitOk : 1;
}

int ShowVerify(Store& store, const ShowRefOptions& o, int core_abbrev, const Args& refs) {
  if (refs.empty()) return GitDie("--verify requires a reference");
  Shower shower(store, o, core_abbrev);
  for (const std::string& name : refs) {
    ResolvedRef r;
    if (name.rfind("refs/", 0) == 0 || IsSafeRefname(name)) {
      Status s = ResolveRefAsGit(store, name, kResolveReading, &r);
      if (!s.ok()) return shower.Die(s.message());
    }
    if (!r.resolved) {
      if (o.quiet) return 1;
      return shower.Die("'" + name + "' - not a valid ref");
    }
    GitListedRef ref;
    ref.name = &name;
    ref.id = r.id;
    ref.peeled = r.peeled;
    if (int code = shower.Show(ref)) return code;
  }
  if (!shower.out().Flush()) return GitDie("could not write to standard output");
  return kExitOk;
}

int ShowExists(Store& store, const Args& refs) {
  if (refs.empty()) return GitDie("--exists requires a reference");
  if (refs.size() > 1) return GitDie("--exists requires exactly one reference");
  RefRecord rec;
  bool found = false;
  Status s = store.ReadRef(refs[0], &rec, &found);
  if (!s.ok()) return GitError("failed to look up reference: " + s.message());
  if (!found) return GitError("reference does not exist"), 2;
  return kExitOk;
}

// The ref name of an input line: its last whitespace-separated word, "^{}" dropped.
std::string_view LineRef(std::string_view line) {
  size_t start = line.size();
  while (start > 0 && !std::isspace(static_cast<unsigned char>(line[start - 1]))) --start;
  return line.substr(start);
}

int ExcludeExisting(Store& store, const std::optional<std::string>& pattern) {
  Result<bool> paranoia = RefParanoia();
  if (!paranoia.ok()) return GitDie(paranoia.status().message());
  std::set<std::string, std::less<>> existing;
  GitListCallbacks cb;
  cb.error = PrintListingError;
  cb.include_broken = *paranoia;
  cb.ref = [&](const GitListedRef& ref) {
    existing.insert(*ref.name);
    return true;
  };
  Status s = ForEachGitRef(store, "refs/", cb);
  if (!s.ok()) return GitDie(s.message());
  Output out;
  char buf[1024];  // git reads lines with fgets into 1024 bytes: longer ones come in pieces
  while (std::fgets(buf, sizeof buf, stdin)) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (line.size() >= 3 && line.compare(line.size() - 3, 3, "^{}") == 0)
      line.resize(line.size() - 3);
    std::string_view ref = LineRef(line);
    if (pattern && ref.substr(0, pattern->size()) != *pattern) continue;
    if (!IsValidRefname(ref)) {
      out.Flush();
      GitWarning("ref '" + std::string(ref) + "' ignored");
      continue;
    }
    if (existing.find(ref) == existing.end()) {
      out.buf().append(line).push_back('\n');
      out.MaybeFlush();
    }
  }
  return out.Flush() ? kExitOk : GitDie("could not write to standard output");
}

// git's die_for_incompatible_opt3.
int RejectIncompatible(const ShowRefOptions& o) {
  std::vector<std::string> given;
  if (o.exclude_existing) given.push_back("--exclude-existing");
  if (o.verify) given.push_back("--verify");
  if (o.exists) given.push_back("--exists");
  if (given.size() == 2) {
    return GitDie("options '" + given[0] + "' and '" + given[1] + "' cannot be used together");
  }
  if (given.size() == 3) {
    return GitDie("options '" + given[0] + "', '" + given[1] + "', and '" + given[2] +
                  "' cannot be used together");
  }
  return 0;
}

}  // namespace

int CmdShowRef(const GlobalOptions& g, const Args& args) {
  ShowRefOptions o;
  GitUsage usage = ShowRefUsage(&o);
  Args pos;
  if (auto exit = ParseGitOptions(args, usage, &pos)) return *exit;
  if (int code = RejectIncompatible(o)) return code;
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  std::string error;
  Result<int> core_abbrev = ReadCoreAbbrev(store.config(), &error);
  if (!core_abbrev.ok()) return GitConfigDie(core_abbrev.status(), error);
  int status = o.exclude_existing ? ExcludeExisting(store, o.exclude_pattern)
               : o.verify         ? ShowVerify(store, o, *core_abbrev, pos)
               : o.exists         ? ShowExists(store, pos)
                                  : ShowPatterns(store, o, *core_abbrev, pos);
  ExitKeepingState(status, g.pager);  // the open store is left to the process's exit
}

}  // namespace reftab::cli

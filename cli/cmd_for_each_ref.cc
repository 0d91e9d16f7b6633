// reftab for-each-ref [--format=FORMAT] [--count=N] [PATTERN...]
//
// Lists the refs under refs/ in name order, like `git for-each-ref`: root refs such as HEAD
// are not shown, and a symref that does not resolve to an object id is skipped (silently, as
// git's ref iteration skips broken refs). A PATTERN matches a ref that equals it or starts with it
// followed by '/' (or when the pattern itself ends in '/'), or, for a pattern with wildcards,
// that matches it as fnmatch(3) with FNM_PATHNAME (so '*' stops at '/'; git's '**' is not
// special here).
//
// FORMAT atoms: %(refname), %(refname:short) (git's unambiguous short name),
// %(refname:lstrip=N), %(objectname), %(objectname:short) (7 digits: there is no object
// database to find the shortest unique prefix), %(objecttype), %(*objectname) (the peeled id
// stored with an annotated tag), %(symref) (the target of a symref). %% is a '%' and %xx the
// byte with hex code xx. Default: "%(objectname) %(objecttype)\t%(refname)", git's default.
//
// %(objecttype) is inferred, since reftab reads no objects: git stores a peeled id (value
// type 2) exactly when the ref points at an annotated tag, so such refs print "tag" and all
// others "commit". That is right for branches and for tags written by git; a ref pointing
// straight at a tree or a blob, or an annotated tag written without its peeled id (reftab's
// update-ref cannot peel), prints "commit" where git prints "tree", "blob" or "tag".
// %(refname:short) follows current git (refs/remotes/origin/HEAD -> "origin"); git before
// 2.41 printed "origin/HEAD" there.
//
// The listing seeks to the longest literal prefix the patterns share and stops after it, so
// `for-each-ref refs/tags/` reads only the tags. Output is formatted into one buffer and
// written in large chunks; nothing is allocated per ref.
#include <fnmatch.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/stack_access.h"

namespace reftab::cli {
namespace {

constexpr int kExitFatal = 128;  // git's exit status for a fatal error

enum class Atom {
  kLiteral,
  kRefname,
  kRefnameShort,
  kRefnameLstrip,
  kObjectname,
  kObjectnameShort,
  kObjecttype,
  kPeeledObjectname,
  kSymref,
};

struct Item {
  Atom atom = Atom::kLiteral;
  std::string literal;  // kLiteral
  int lstrip = 0;       // kRefnameLstrip
};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses FORMAT into items; false (with *bad naming the field) on an unknown atom.
bool ParseFormat(std::string_view f, std::vector<Item>* items, std::string* bad) {
  auto literal = [&]() -> std::string& {
    if (items->empty() || items->back().atom != Atom::kLiteral) items->emplace_back();
    return items->back().literal;
  };
  for (size_t i = 0; i < f.size();) {
    char c = f[i];
    if (c != '%') {
      literal().push_back(c);
      ++i;
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      literal().push_back('%');
      i += 2;
      continue;
    }
    if (i + 2 < f.size() && HexDigit(f[i + 1]) >= 0 && HexDigit(f[i + 2]) >= 0) {
      literal().push_back(char(HexDigit(f[i + 1]) * 16 + HexDigit(f[i + 2])));
      i += 3;
      continue;
    }
    size_t close = f.find(')', i);
    if (i + 1 >= f.size() || f[i + 1] != '(' || close == std::string_view::npos) {
      literal().push_back('%');  // git prints a lone '%' as is
      ++i;
      continue;
    }
    std::string_view name = f.substr(i + 2, close - i - 2);
    Item item;
    if (name == "refname") {
      item.atom = Atom::kRefname;
    } else if (name == "refname:short") {
      item.atom = Atom::kRefnameShort;
    } else if (name.rfind("refname:lstrip=", 0) == 0 || name.rfind("refname:strip=", 0) == 0) {
      std::string n(name.substr(name.find('=') + 1));
      uint64_t v = 0;
      if (!ParseUint(n, &v) || v > 1000) {
        *bad = std::string(name);
        return false;
      }
      item.atom = Atom::kRefnameLstrip;
      item.lstrip = int(v);
    } else if (name == "objectname") {
      item.atom = Atom::kObjectname;
    } else if (name == "objectname:short") {
      item.atom = Atom::kObjectnameShort;
    } else if (name == "objecttype") {
      item.atom = Atom::kObjecttype;
    } else if (name == "*objectname") {
      item.atom = Atom::kPeeledObjectname;
    } else if (name == "symref") {
      item.atom = Atom::kSymref;
    } else {
      *bad = std::string(name);
      return false;
    }
    items->push_back(std::move(item));
    i = close + 1;
  }
  return true;
}

struct Pattern {
  std::string text;
  bool glob = false;
};

bool HasGlob(std::string_view p) { return p.find_first_of("*?[\\") != std::string_view::npos; }

// git's match_name_as_path(): a literal prefix ending at a '/' boundary, or a wildcard match.
bool Matches(const std::string& name, const std::vector<Pattern>& patterns) {
  if (patterns.empty()) return true;
  for (const Pattern& p : patterns) {
    size_t n = p.text.size();
    if (n <= name.size() && name.compare(0, n, p.text) == 0 &&
        (n == name.size() || name[n] == '/' || (n > 0 && p.text[n - 1] == '/'))) {
      return true;
    }
    if (p.glob && fnmatch(p.text.c_str(), name.c_str(), FNM_PATHNAME) == 0) return true;
  }
  return false;
}

// Where the listing starts and stops: refs/ and the literal prefix all patterns share.
std::string SeekPrefix(const std::vector<Pattern>& patterns) {
  std::string common;
  for (size_t i = 0; i < patterns.size(); ++i) {
    std::string_view p = patterns[i].text;
    size_t glob = p.find_first_of("*?[\\");
    if (glob != std::string_view::npos) p = p.substr(0, glob);
    if (i == 0) {
      common = std::string(p);
    } else {
      size_t k = 0;
      while (k < common.size() && k < p.size() && common[k] == p[k]) ++k;
      common.resize(k);
    }
  }
  // Only refs under refs/ are listed: the prefix is the longer of the two when one extends
  // the other. Otherwise no ref can match: an empty result says so.
  if (common.size() > 5 && common.compare(0, 5, "refs/") == 0) return common;
  if (std::string_view("refs/").substr(0, common.size()) == common) return "refs/";
  return "";
}

// Follows symrefs (git's depth limit, store/git_ref_store.h) to an object id; *found is
// false for a missing, dangling or broken ref.
Status Resolve(Store& store, std::string_view name, RefRecord* rec, bool* found) {
  ResolvedRef r;
  REFTAB_RETURN_IF_ERROR(store.Resolve(name, &r));
  *found = r.exists && !r.broken;
  if (*found) *rec = std::move(r.record);
  return Status::Ok();
}

// git's shorten_unambiguous_ref() in strict mode (core.warnAmbiguousRefs, on by default):
// the shortest form that no other rev-parse rule would resolve to an existing ref.
Status ShortName(Store& snap, const std::string& refname, std::string* out) {
  static constexpr std::string_view kRules[][2] = {
      {"", ""},
      {"refs/", ""},
      {"refs/tags/", ""},
      {"refs/heads/", ""},
      {"refs/remotes/", ""},
      {"refs/remotes/", "/HEAD"},
  };
  constexpr int kRuleCount = 6;
  RefRecord scratch;
  std::string candidate;
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
      REFTAB_RETURN_IF_ERROR(Resolve(snap, candidate, &scratch, &found));
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

void AppendHex(const ObjectId& id, size_t n, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  size_t at = out->size();
  out->resize(at + 2 * n);
  char* p = out->data() + at;
  for (size_t i = 0; i < n; ++i) {
    p[2 * i] = kDigits[id[i] >> 4];
    p[2 * i + 1] = kDigits[id[i] & 15];
  }
}

void AppendLstrip(std::string_view name, int n, std::string* out) {
  for (int i = 0; i < n; ++i) {
    size_t slash = name.find('/');
    if (slash == std::string_view::npos) return;  // git prints nothing when too few remain
    name.remove_prefix(slash + 1);
  }
  out->append(name);
}

}  // namespace

int CmdForEachRef(const GlobalOptions& g, const Args& args) {
  std::string format = "%(objectname) %(objecttype)\t%(refname)";
  uint64_t count = 0;  // 0: all
  std::vector<Pattern> patterns;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (TakeValue(args, &i, "--format", &v)) {
      format = v;
    } else if (TakeValue(args, &i, "--count", &v)) {
      if (!ParseUint(v, &count)) return Usage("for-each-ref", "--count takes a number");
    } else if (args[i] == "--") {
      for (++i; i < args.size(); ++i) patterns.push_back(Pattern{args[i], HasGlob(args[i])});
    } else if (!args[i].empty() && args[i][0] == '-') {
      return Usage("for-each-ref", "unknown option " + args[i]);
    } else {
      patterns.push_back(Pattern{args[i], HasGlob(args[i])});
    }
  }
  std::vector<Item> items;
  std::string bad;
  if (!ParseFormat(format, &items, &bad)) {
    std::fprintf(stderr, "fatal: unknown field name: %s\n", bad.c_str());
    return kExitFatal;
  }
  bool needs_short = false;
  for (const Item& it : items) needs_short |= it.atom == Atom::kRefnameShort;

  auto store = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!store.ok()) return Fail(store.status());
  Store& refs = **store;
  const size_t hs = refs.hash_size();
  const std::string prefix = SeekPrefix(patterns);

  Output out;
  RefRecord resolved;
  uint64_t shown = 0;
  Status s;
  auto show = [&](const RefRecord& rec) {
    if (!Matches(rec.refname, patterns)) return true;
    const RefRecord* obj = &rec;
    if (rec.value_type == RefValueType::kSymref) {
      bool found = false;
      s = Resolve(refs, rec.target, &resolved, &found);
      if (!s.ok()) return false;
      if (!found) return true;  // git's ref iteration skips broken refs silently
      obj = &resolved;
    }
    std::string& b = out.buf();
    for (const Item& item : items) {
      switch (item.atom) {
        case Atom::kLiteral: b.append(item.literal); break;
        case Atom::kRefname: b.append(rec.refname); break;
        case Atom::kRefnameShort: s = ShortName(refs, rec.refname, &b); break;
        case Atom::kRefnameLstrip: AppendLstrip(rec.refname, item.lstrip, &b); break;
        case Atom::kObjectname: AppendHex(obj->value, hs, &b); break;
        case Atom::kObjectnameShort: AppendHex(obj->value, 4, &b), b.pop_back(); break;
        case Atom::kObjecttype:
          b.append(obj->value_type == RefValueType::kVal2 ? "tag" : "commit");
          break;
        case Atom::kPeeledObjectname:
          if (obj->value_type == RefValueType::kVal2) AppendHex(obj->peeled, hs, &b);
          break;
        case Atom::kSymref:
          if (rec.value_type == RefValueType::kSymref) b.append(rec.target);
          break;
      }
    }
    b.push_back('\n');
    out.MaybeFlush();
    if (needs_short && !s.ok()) return false;
    return !(count && ++shown >= count);
  };
  if (!prefix.empty()) {
    Status iterated = refs.ForEachRef(prefix, show);
    if (s.ok()) s = iterated;
  }
  if (!out.Flush()) return Fail(Status::IoError("writing standard output failed"));
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

}  // namespace reftab::cli

// `reftab help for-each-ref` and `reftab for-each-ref -h` (cli/commands.h).
const char* const reftab::cli::kForEachRefUsage =
    "usage: reftab for-each-ref [--format=<format>] [--count=<n>] [<pattern>...]\n"
    "\n"
    "    --format <format>     what to print per ref (%(refname), %(objectname), ...)\n"
    "    --count <n>           show only <n> refs\n"
    "\n";

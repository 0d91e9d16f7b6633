// Parsing of for-each-ref formats and sort keys: git's atom table, each atom's arguments, and
// git's wording for everything it refuses.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "cli/git_color.h"
#include "cli/ref_format.h"
#include "store/git/config/config.h"
#include "store/git/objects/abbrev.h"

namespace reftab::cli {
namespace {

struct AtomInfo {
  const char* name;
  bool needs_object;  // git's SOURCE_OBJ / SOURCE_OTHER
  bool numeric;       // git's FIELD_ULONG / FIELD_TIME
};

// Indexed by AtomKind.
constexpr AtomInfo kAtoms[] = {
    {"refname", false, false},     {"objecttype", true, false},    {"objectsize", true, true},
    {"objectname", true, false},   {"deltabase", true, false},     {"tree", true, false},
    {"parent", true, false},       {"numparent", true, true},      {"object", true, false},
    {"type", true, false},         {"tag", true, false},           {"author", true, false},
    {"authorname", true, false},   {"authoremail", true, false},   {"authordate", true, true},
    {"committer", true, false},    {"committername", true, false}, {"committeremail", true, false},
    {"committerdate", true, true}, {"tagger", true, false},        {"taggername", true, false},
    {"taggeremail", true, false},  {"taggerdate", true, true},     {"creator", true, false},
    {"creatordate", true, true},   {"describe", true, false},      {"subject", true, false},
    {"body", true, false},         {"trailers", true, false},      {"contents", true, false},
    {"signature", true, false},    {"raw", true, false},           {"upstream", false, false},
    {"push", false, false},        {"symref", false, false},       {"flag", false, false},
    {"HEAD", false, false},        {"color", false, false},        {"worktreepath", false, false},
    {"align", false, false},       {"end", false, false},          {"if", false, false},
    {"then", false, false},        {"else", false, false},         {"rest", false, false},
    {"ahead-behind", true, false}, {"is-base", true, false},
};

}  // namespace

std::vector<std::string_view> AtomNames() {
  std::vector<std::string_view> names;
  for (const AtomInfo& a : kAtoms) names.emplace_back(a.name);
  return names;
}

namespace {

bool Fatal(FormatError* e, std::string message) {
  e->kind = FormatError::kFatal;
  e->message = std::move(message);
  return false;
}

// The atom's name up to its first ':' (git's messages name the atom without arguments).
std::string_view BareName(std::string_view name) { return name.substr(0, name.find(':')); }

bool NoArg(FormatError* e, std::string_view name) {
  return Fatal(e, "%(" + std::string(BareName(name)) + ") does not take arguments");
}
bool BadArg(FormatError* e, std::string_view name, std::string_view arg) {
  return Fatal(e,
               "unrecognized %(" + std::string(BareName(name)) + ") argument: " + std::string(arg));
}

// git's strtol_i: a whole base-10 int (leading blanks and a sign allowed, as strtol).
bool ParseInt(const std::string& s, int* out) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno || *end || end == s.c_str() || v < INT_MIN || v > INT_MAX) return false;
  *out = int(v);
  return true;
}

// git's strtoul_ui: like ParseInt, unsigned, and no '-' anywhere.
bool ParseUnsigned(const std::string& s, unsigned* out) {
  if (s.find('-') != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (errno || *end || end == s.c_str() || v > UINT_MAX) return false;
  *out = unsigned(v);
  return true;
}

bool SkipPrefix(std::string_view* s, std::string_view p) {
  if (!s->starts_with(p)) return false;
  s->remove_prefix(p.size());
  return true;
}

std::vector<std::string_view> SplitCommas(std::string_view arg) {
  std::vector<std::string_view> out;
  for (;;) {
    size_t comma = arg.find(',');
    out.push_back(arg.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    arg.remove_prefix(comma + 1);
  }
}

bool ParseRefnameArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  std::string_view v = *arg;
  if (v == "short") {
    a->refname = RefnameOption::kShort;
  } else if (SkipPrefix(&v, "lstrip=") || SkipPrefix(&v, "strip=")) {
    a->refname = RefnameOption::kLstrip;
    if (!ParseInt(std::string(v), &a->strip)) {
      return Fatal(e, "Integer value expected refname:lstrip=" + std::string(v));
    }
  } else if (SkipPrefix(&v, "rstrip=")) {
    a->refname = RefnameOption::kRstrip;
    if (!ParseInt(std::string(v), &a->strip)) {
      return Fatal(e, "Integer value expected refname:rstrip=" + std::string(v));
    }
  } else {
    return BadArg(e, a->name, v);
  }
  return true;
}

bool ParseRemoteArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  a->push = a->kind == AtomKind::kPush;
  if (!arg) return true;
  for (std::string_view s : SplitCommas(*arg)) {
    if (s == "track") {
      a->remote = RemoteOption::kTrack;
    } else if (s == "trackshort") {
      a->remote = RemoteOption::kTrackShort;
    } else if (s == "nobracket") {
      a->nobracket = true;
    } else if (s == "remotename") {
      a->remote = RemoteOption::kRemoteName;
    } else if (s == "remoteref") {
      a->remote = RemoteOption::kRemoteRef;
    } else {
      a->remote = RemoteOption::kRef;
      if (!ParseRefnameArg(a, &s, e)) return false;
    }
  }
  return true;
}

bool ParseOidArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  std::string_view v = *arg;
  if (v == "short") {
    a->oid = OidOption::kShort;
  } else if (SkipPrefix(&v, "short=")) {
    a->oid = OidOption::kLength;
    if (!ParseUnsigned(std::string(v), &a->oid_length) || a->oid_length == 0) {
      return Fatal(e, "positive value expected '" + std::string(v) + "' in %(" + a->name + ")");
    }
    if (a->oid_length < unsigned(kMinimumAbbrev)) a->oid_length = kMinimumAbbrev;
  } else {
    return BadArg(e, a->name, v);
  }
  return true;
}

bool ParseEmailArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  std::string_view v = *arg;
  for (;;) {
    std::string_view bad = v;
    if (SkipPrefix(&v, "trim")) {
      a->email |= kEmailTrim;
    } else if (SkipPrefix(&v, "localpart")) {
      a->email |= kEmailLocalpart;
    } else if (SkipPrefix(&v, "mailmap")) {
      a->email |= kEmailMailmap;
    } else {
      return BadArg(e, a->name, bad);
    }
    if (v.empty()) return true;
    if (v[0] != ',') return BadArg(e, a->name, bad);
    v.remove_prefix(1);
    if (v.empty()) return BadArg(e, a->name, v);
  }
}

bool ParseTrailersArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  a->contents = ContentsOption::kTrailers;
  std::optional<std::string> invalid;
  if (arg && !ParseTrailerOptions(*arg, &a->trailers, &invalid)) {
    return Fatal(e, !invalid ? "expected %(trailers:key=<value>)"
                             : "unknown %(trailers) argument: " + *invalid);
  }
  return true;
}

// One "name[=value]" at the front of *arg, as ref-filter's match_atom_arg_value: *value is
// nullopt without '='; on a match *arg moves past it and its comma.
bool MatchAtomOption(std::string_view* arg, std::string_view name,
                     std::optional<std::string_view>* value) {
  if (!arg->starts_with(name)) return false;
  std::string_view rest = arg->substr(name.size());
  value->reset();
  if (!rest.empty() && rest[0] == '=') {
    *value = rest.substr(
        1, rest.find(',') == std::string_view::npos ? std::string_view::npos : rest.find(',') - 1);
    rest.remove_prefix(1 + (*value)->size());
  } else if (!rest.empty() && rest[0] != ',') {
    return false;
  }
  if (!rest.empty()) rest.remove_prefix(1);
  *arg = rest;
  return true;
}

// git's describe_atom_option_parser: 1 found, 0 not an option, -1 refused (*e set). Its
// messages quote the value to the end of the whole argument, as git's do.
int ParseDescribeOption(UsedAtom* a, std::string_view* arg, FormatError* e) {
  auto refuse = [e](std::string message) {
    Fatal(e, std::move(message));
    return -1;
  };
  std::optional<std::string_view> v;
  // As in git, a "tags" whose value is no boolean is consumed all the same: the other
  // options are tried on what follows it.
  if (MatchAtomOption(arg, "tags", &v)) {
    std::optional<bool> b = v ? ParseGitBool(std::string(*v)) : std::optional<bool>(true);
    if (b) {
      a->describe.tags = *b;
      return 1;
    }
  }
  std::string_view at = *arg;
  if (MatchAtomOption(&at, "abbrev", &v)) {
    if (!v || v->empty()) return refuse("argument expected for describe:abbrev");
    // strtol over the rest of the argument, as git reads the value in place.
    std::string from(arg->substr(std::string_view("abbrev=").size()));
    char* end = nullptr;
    errno = 0;
    long n = std::strtol(from.c_str(), &end, 10);
    if (n < 0) return refuse("positive value expected describe:abbrev=" + from);
    if (size_t(end - from.c_str()) != v->size()) {
      return refuse("cannot fully parse describe:abbrev=" + from);
    }
    a->describe.abbrev = n == 0 ? kAbbrevFull : ClampAbbrevOption(n);
    *arg = at;
    return 1;
  }
  for (const char* name : {"match", "exclude"}) {
    if (!MatchAtomOption(&at, name, &v)) continue;
    if (!v || v->empty()) {
      return refuse("value expected describe:" + std::string(name) + "=");
    }
    (name[0] == 'm' ? a->describe.match : a->describe.exclude).emplace_back(*v);
    *arg = at;
    return 1;
  }
  return 0;
}

bool ParseDescribeArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  std::string_view rest = *arg;
  while (!rest.empty()) {
    std::string_view bad = rest;
    int found = ParseDescribeOption(a, &rest, e);
    if (found < 0) return false;
    if (found == 0) return BadArg(e, "describe", bad);
  }
  return true;
}

bool ParseSignatureArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  static constexpr std::pair<std::string_view, SignatureOption> kOptions[] = {
      {"signer", SignatureOption::kSigner},
      {"grade", SignatureOption::kGrade},
      {"key", SignatureOption::kKey},
      {"fingerprint", SignatureOption::kFingerprint},
      {"primarykeyfingerprint", SignatureOption::kPrimaryKeyFingerprint},
      {"trustlevel", SignatureOption::kTrustLevel},
  };
  for (const auto& [name, option] : kOptions) {
    if (*arg == name) {
      a->signature = option;
      return true;
    }
  }
  return BadArg(e, "signature", *arg);
}

bool ParseContentsArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  std::string_view v = *arg;
  if (v == "body") {
    a->contents = ContentsOption::kBody;
  } else if (v == "size") {
    a->contents = ContentsOption::kLength;
    a->numeric = true;
  } else if (v == "signature") {
    a->contents = ContentsOption::kSignature;
  } else if (v == "subject") {
    a->contents = ContentsOption::kSubject;
  } else if (v == "trailers") {
    return ParseTrailersArg(a, nullptr, e);
  } else if (SkipPrefix(&v, "trailers:")) {
    return ParseTrailersArg(a, &v, e);
  } else if (SkipPrefix(&v, "lines=")) {
    a->contents = ContentsOption::kLines;
    if (!ParseUnsigned(std::string(v), &a->lines)) {
      return Fatal(e, "positive value expected contents:lines=" + std::string(v));
    }
  } else {
    return BadArg(e, "contents", v);
  }
  return true;
}

bool ParseAlignPosition(std::string_view s, AlignPosition* p) {
  if (s == "right") {
    *p = AlignPosition::kRight;
  } else if (s == "middle") {
    *p = AlignPosition::kMiddle;
  } else if (s == "left") {
    *p = AlignPosition::kLeft;
  } else {
    return false;
  }
  return true;
}

bool ParseAlignArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return Fatal(e, "expected format: %(align:<width>,<position>)");
  unsigned width = ~0u;
  for (std::string_view s : SplitCommas(*arg)) {
    if (SkipPrefix(&s, "position=")) {
      if (!ParseAlignPosition(s, &a->position)) {
        return Fatal(e, "unrecognized position:" + std::string(s));
      }
    } else if (SkipPrefix(&s, "width=")) {
      if (!ParseUnsigned(std::string(s), &width)) {
        return Fatal(e, "unrecognized width:" + std::string(s));
      }
    } else if (ParseUnsigned(std::string(s), &width)) {
    } else if (!ParseAlignPosition(s, &a->position)) {
      return Fatal(e, "unrecognized %(align) argument: " + std::string(s));
    }
  }
  if (width == ~0u) return Fatal(e, "positive width expected with the %(align) atom");
  a->width = width;
  return true;
}

bool ParseIfArg(UsedAtom* a, const std::string_view* arg, FormatError* e) {
  if (!arg) return true;
  std::string_view v = *arg;
  if (SkipPrefix(&v, "equals=")) {
    a->compare = IfCompare::kEquals;
  } else if (SkipPrefix(&v, "notequals=")) {
    a->compare = IfCompare::kNotEquals;
  } else {
    return BadArg(e, "if", v);
  }
  a->compare_to = std::string(v);
  return true;
}

bool ParseColorArg(UsedAtom* a, const std::string_view* arg, bool use_color, FormatError* e) {
  if (!arg) return Fatal(e, "expected format: %(color:<color>)");
  if (!ParseGitColor(*arg, &a->color)) {
    e->error_line = "invalid color value: " + std::string(*arg);
    return Fatal(e, "unrecognized color: %(color:" + std::string(*arg) + ")");
  }
  if (!use_color) a->color.clear();
  return true;
}

// git's per-atom argument parsers.
bool ParseArgs(UsedAtom* a, const std::string_view* arg, bool use_color, FormatError* e) {
  switch (a->kind) {
    case AtomKind::kRefname:
    case AtomKind::kSymref: return ParseRefnameArg(a, arg, e);
    case AtomKind::kUpstream:
    case AtomKind::kPush: return ParseRemoteArg(a, arg, e);
    case AtomKind::kObjecttype: return arg ? NoArg(e, "objecttype") : true;
    case AtomKind::kObjectsize:
      if (!arg) return true;
      if (*arg != "disk") return BadArg(e, "objectsize", *arg);
      a->disk = true;
      return true;
    case AtomKind::kObjectname:
    case AtomKind::kTree:
    case AtomKind::kParent: return ParseOidArg(a, arg, e);
    case AtomKind::kDeltabase: return arg ? NoArg(e, "deltabase") : true;
    case AtomKind::kAuthorname:
    case AtomKind::kCommittername:
    case AtomKind::kTaggername:
      if (!arg) return true;
      if (*arg != "mailmap") return BadArg(e, a->name, *arg);
      a->mailmap = true;
      return true;
    case AtomKind::kAuthoremail:
    case AtomKind::kCommitteremail:
    case AtomKind::kTaggeremail: return ParseEmailArg(a, arg, e);
    case AtomKind::kSubject:
      a->contents = ContentsOption::kSubject;
      if (!arg) return true;
      if (*arg != "sanitize") return BadArg(e, "subject", *arg);
      a->contents = ContentsOption::kSubjectSanitize;
      return true;
    case AtomKind::kBody:
      a->contents = ContentsOption::kBodyDep;
      return arg ? NoArg(e, "body") : true;
    case AtomKind::kContents: return ParseContentsArg(a, arg, e);
    case AtomKind::kRaw:
      if (!arg) return true;
      if (*arg != "size") return BadArg(e, "raw", *arg);
      a->raw_size = true;
      a->numeric = true;
      return true;
    case AtomKind::kColor: return ParseColorArg(a, arg, use_color, e);
    case AtomKind::kAlign: return ParseAlignArg(a, arg, e);
    case AtomKind::kIf: return ParseIfArg(a, arg, e);
    case AtomKind::kRest: return arg ? NoArg(e, "rest") : true;
    case AtomKind::kHead: return arg ? NoArg(e, "HEAD") : true;
    case AtomKind::kDescribe: return ParseDescribeArg(a, arg, e);
    case AtomKind::kTrailers: return ParseTrailersArg(a, arg, e);
    case AtomKind::kSignature: return ParseSignatureArg(a, arg, e);
    case AtomKind::kAheadBehind:
    case AtomKind::kIsBase:
      if (!arg) {
        return Fatal(e, std::string("expected format: %(") + kAtoms[size_t(a->kind)].name +
                            ":<committish>)");
      }
      a->base_name = std::string(*arg);
      return true;
    default: return true;  // git ignores arguments of the atoms without a parser
  }
}

int FindOrAdd(std::string_view spelling, RefFormat* f, FormatError* e) {
  for (size_t i = 0; i < f->atoms.size(); ++i) {
    if (f->atoms[i].name == spelling) return int(i);
  }
  std::string_view rest = spelling;
  bool deref = !rest.empty() && rest[0] == '*';
  if (deref) rest.remove_prefix(1);
  if (rest.empty()) {
    Fatal(e, "malformed field name: " + std::string(spelling));
    return -1;
  }
  size_t colon = rest.find(':');
  std::string_view bare = rest.substr(0, colon);
  size_t kind = 0;
  while (kind < std::size(kAtoms) && bare != kAtoms[kind].name) ++kind;
  if (kind == std::size(kAtoms)) {
    Fatal(e, "unknown field name: " + std::string(spelling));
    return -1;
  }
  UsedAtom a;
  a.kind = AtomKind(kind);
  a.name = std::string(spelling);
  a.deref = deref;
  a.numeric = kAtoms[kind].numeric;
  a.needs_object = kAtoms[kind].needs_object;
  std::string_view arg;
  bool has_arg = colon != std::string_view::npos && colon + 1 < rest.size();
  if (has_arg) arg = rest.substr(colon + 1);
  // Date atoms with a format compare as the formatted strings (git sets that when it reads
  // the value; the effect is the same).
  if (has_arg && a.numeric && bare.size() > 4 && bare.substr(bare.size() - 4) == "date") {
    a.numeric = false;
  }
  if (!ParseArgs(&a, has_arg ? &arg : nullptr, f->use_color, e)) return -1;
  if (a.kind == AtomKind::kSymref) f->needs_symref = true;
  f->atoms.push_back(std::move(a));
  return int(f->atoms.size() - 1);
}

void AppendLiteral(std::string_view text, std::vector<FormatPiece>* pieces) {
  if (text.empty()) return;
  if (pieces->empty() || pieces->back().is_atom) pieces->emplace_back();
  std::string& out = pieces->back().literal;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 1 < text.size()) {
      if (text[i + 1] == '%') {
        ++i;
      } else if (i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
        out.push_back(char(hex(text[i + 1]) * 16 + hex(text[i + 2])));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
}

// The next "%(" not preceded by an escaping '%', as git's find_next.
size_t FindNextAtom(std::string_view text, size_t from) {
  for (size_t i = from; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    if (i + 1 < text.size() && text[i + 1] == '(') return i;
    if (i + 1 < text.size() && text[i + 1] == '%') ++i;
  }
  return std::string_view::npos;
}

}  // namespace

int AddAtom(std::string_view spelling, RefFormat* format, FormatError* error) {
  return FindOrAdd(spelling, format, error);
}

FormatError ParseRefFormat(std::string_view text, RefFormat* f) {
  FormatError e;
  size_t cp = 0;
  for (;;) {
    size_t sp = FindNextAtom(text, cp);
    if (sp == std::string_view::npos) break;
    size_t ep = text.find(')', sp);
    if (ep == std::string_view::npos) {
      e.kind = FormatError::kUsage;
      e.message = "malformed format string " + std::string(text.substr(sp));
      return e;
    }
    AppendLiteral(text.substr(cp, sp - cp), &f->pieces);
    std::string_view spelling = text.substr(sp + 2, ep - sp - 2);
    int at = FindOrAdd(spelling, f, &e);
    if (at < 0) return e;
    if (f->atoms[size_t(at)].kind == AtomKind::kRest) {
      Fatal(&e, "this command reject atom %(" + std::string(spelling) + ")");
      return e;
    }
    const UsedAtom& a = f->atoms[size_t(at)];
    if (a.kind == AtomKind::kRaw && !a.raw_size && f->quote != QuoteStyle::kNone &&
        f->quote != QuoteStyle::kPerl) {
      Fatal(&e,
            "--format=" + std::string(spelling) + " cannot be used with --python, --shell, --tcl");
      return e;
    }
    if (a.kind == AtomKind::kColor) {
      f->reset_color_at_eol = spelling.substr(std::string_view("color:").size()) != "reset";
    }
    FormatPiece piece;
    piece.is_atom = true;
    piece.atom = uint32_t(at);
    f->pieces.push_back(std::move(piece));
    cp = ep + 1;
  }
  AppendLiteral(text.substr(cp), &f->pieces);
  if (!f->use_color) f->reset_color_at_eol = false;
  return e;
}

}  // namespace reftab::cli

#include "cli/reflog_show.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/git_color.h"
#include "cli/git_options.h"
#include "cli/object_name_report.h"
#include "cli/output.h"
#include "cli/ref_decorations.h"
#include "cli/reflog_format.h"
#include "store/git/date.h"
#include "store/git/objects/abbrev.h"
#include "store/git/objects/object_parse.h"
#include "store/git/refs/branch_name.h"
#include "store/git/refs/object_name.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/reflog.h"

namespace reftab::cli {
namespace {

// Stands in ShowOptions::refs for --all (no ref name starts with '-').
constexpr const char kAllRefs[] = "--all";

struct ShowOptions {
  std::optional<int64_t> max_count;  // negative: no limit
  DateFormat date;
  enum class Style { kDefault, kTerminated, kSeparated, kJson } style = Style::kDefault;
  std::string format;
  std::vector<std::string> refs;
  ColorWhen color = ColorWhen::kUnknown;  // --color / --no-color; kUnknown: the configuration's
  std::optional<std::string> id_color;    // with colours on: the default line's id's colour
  std::optional<DecorateStyle> decorate;  // --decorate[=...] / --no-decorate
  bool dashdash = false;                  // "--" ended the revisions: none can be a path
  bool default_head = false;              // no name given: HEAD's log, as git's default
};

// A reflog being walked: its entries newest first and where the walk is.
struct WalkLog {
  std::string shown;  // the name selectors print
  std::vector<LogRecord> entries;
  size_t pos = 0;  // next entry to show (entries.size(): done)
  ReflogSelector::Kind kind = ReflogSelector::Kind::kNone;
};

int AmbiguousArgument(const std::string& arg) {
  return GitDie("ambiguous argument '" + arg +
                "': unknown revision or path not in the working tree.\n"
                "Use '--' to separate paths from revisions, like this:\n"
                "'git <command> [<revision>...] -- [<file>...]'");
}

// The object database, when the store has one that can be read.
GitObjects* Database(Store& store) {
  GitObjects* objects = store.objects();
  return objects && objects->available() ? objects : nullptr;
}

// Why something that needs an object cannot have it.
Status NoDatabase(Store& store, const char* what) {
  std::string why = store.objects() ? store.objects()->reason() : "no object database here";
  return Status::InvalidArgument(std::string(what) + " needs the object database (" + why +
                                 "); --format=%H prints full ids without it");
}

// git's strtol_i-style integer of -n/--max-count.
bool ParseCount(const std::string& v, int64_t* out) {
  if (v.empty()) return false;
  size_t i = v[0] == '-' || v[0] == '+' ? 1 : 0;
  if (i == v.size() || v.size() > 18) return false;
  for (size_t k = i; k < v.size(); ++k) {
    if (v[k] < '0' || v[k] > '9') return false;
  }
  *out = std::stoll(v);
  return true;
}

// git's named formats other than oneline.
bool IsBuiltinPretty(const std::string& v) {
  for (const char* n :
       {"short", "medium", "full", "fuller", "reference", "email", "raw", "mboxrd"}) {
    if (v == n) return true;
  }
  return false;
}

// --format/--pretty's value; -1 when done well, else the exit status.
int SetFormat(const std::string& v, ShowOptions* o) {
  using Style = ShowOptions::Style;
  if (v == "json") {
    o->style = Style::kJson;
  } else if (v == "oneline") {
    o->style = Style::kDefault;
  } else if (v.starts_with("format:")) {
    o->style = Style::kSeparated;
    o->format = v.substr(7);
  } else if (v.starts_with("tformat:")) {
    o->style = Style::kTerminated;
    o->format = v.substr(8);
  } else if (v.find('%') != std::string::npos) {
    o->style = Style::kTerminated;
    o->format = v;
  } else if (IsBuiltinPretty(v)) {
    return GitDie("reftab reflog show: --format=" + v +
                  " is not supported (oneline, json, format:..., tformat:...)");
  } else {
    return GitDie("invalid --pretty format: " + v);
  }
  return -1;
}

// Parses the log options `reflog show` accepts; -1 when done, else the exit status.
int ParseShowArgs(const Args& args, ShowOptions* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    int64_t n = 0;
    if (a.empty() || a[0] != '-' || a == "-") {
      o->refs.push_back(a);
    } else if (a == "--") {
      if (i + 1 < args.size()) return GitDie("reftab reflog show: paths are not supported");
      o->dashdash = true;
    } else if (a == "-n" || TakeValue(args, &i, "--max-count", &v) ||
               (a.starts_with("-n") && (v = a.substr(2), true))) {
      if (a == "-n") {
        if (i + 1 >= args.size()) return GitDie("switch `n' requires a value");
        v = args[++i];
      }
      if (!ParseCount(v, &n)) return GitDie("'" + v + "': not an integer");
      o->max_count = n;
    } else if (a.size() > 1 && ParseCount(a.substr(1), &n) && a[1] != '-' && a[1] != '+') {
      o->max_count = n;
    } else if (TakeValue(args, &i, "--date", &v)) {
      std::string error;
      if (!ParseDateMode(v, isatty(STDOUT_FILENO), &o->date.mode, &error)) return GitDie(error);
      o->date.explicit_ = true;
    } else if (TakeValue(args, &i, "--format", &v) || TakeValue(args, &i, "--pretty", &v)) {
      int r = SetFormat(v, o);
      if (r >= 0) return r;
    } else if (a == "--color" || a == "--no-color") {
      o->color = a == "--color" ? ColorWhen::kAlways : ColorWhen::kNever;
    } else if (a.starts_with("--color=")) {
      if ((o->color = ParseColorWhen(a.substr(8))) == ColorWhen::kUnknown) {
        std::fputs("error: option `color' expects \"always\", \"auto\", or \"never\"\n", stderr);
        return kExitUsage;
      }
    } else if (a == "--decorate" || a == "--no-decorate") {
      o->decorate = a == "--decorate" ? DecorateStyle::kShort : DecorateStyle::kNo;
    } else if (a.starts_with("--decorate=")) {
      DecorateStyle d = ParseDecorateStyle(a.substr(11));
      if (d == DecorateStyle::kInvalid) return GitDie("invalid --decorate option: " + a.substr(11));
      o->decorate = ResolveDecorateStyle(d);
    } else if (a == "--all") {
      o->refs.push_back(kAllRefs);
    } else if (a == "--oneline" || a == "--abbrev-commit") {
      if (a == "--oneline") o->style = ShowOptions::Style::kDefault;
    } else {
      return GitDie("unrecognized argument: " + a);
    }
  }
  if (o->refs.empty()) {
    o->refs.push_back("HEAD");
    o->default_head = true;
  }
  return -1;
}

// git's error line for a ref the listing leaves out (GitError: stdout flushed first).
void PrintListingError(const std::string& message) { (void)GitError(message); }

// The name of the current branch (what HEAD points to), or "HEAD" when it is detached.
Status CurrentBranch(Store& store, std::string* name) {
  ResolvedRef r;
  REFTAB_RETURN_IF_ERROR(store.Resolve("HEAD", &r));
  *name = r.name;
  return Status::Ok();
}

// What git says when HEAD, the default name, names no object: the branch it points to is
// unborn, or HEAD is not a working symref.
int MissingDefaultHead(Store& store) {
  ResolvedRef head;
  Status s = store.Resolve("HEAD", &head);
  if (!s.ok()) return GitDie(s.message());
  if (!head.resolved || !head.through_symref || head.broken) {
    return GitDie("your current branch appears to be broken");
  }
  std::string_view branch = head.name;
  if (branch.starts_with("refs/heads/")) branch.remove_prefix(11);
  return GitDie("your current branch '" + std::string(branch) + "' does not have any commits yet");
}

// git's revision parser reads each name before the walk starts (ResolveRevision: the reflog
// must exist and reach back far enough, with git's warnings and fatal errors). -1 when it
// names an object, else the exit status. After "--" a name that is not a revision cannot be a
// path either, and git says so more briefly; the default HEAD gets git's diagnosis of HEAD.
int CheckName(Store& store, const std::string& spec, const ShowOptions& o) {
  ObjectNameResult r;
  Status s = ResolveRevision(store, spec, &r);
  if (!s.ok()) return GitDie(s.message());
  ReportObjectName(r);
  if (int rc = ObjectNameDied(r); rc >= 0) return rc;
  if (r.found) return -1;
  if (o.default_head) return MissingDefaultHead(store);
  return o.dashdash ? GitDie("bad revision '" + spec + "'") : AmbiguousArgument(spec);
}

// Sets up the walk of one command-line name as git's reflog walk does. -1 when done (the
// log may be empty: nothing to show), else the exit status.
int StartWalk(Store& store, const std::string& arg, const ShowOptions& o, WalkLog* log) {
  if (int r = CheckName(store, arg, o); r >= 0) return r;
  // The walk reads the log of what a branch shorthand stands for ("@{u}" is origin/main's),
  // then its own selector.
  BranchNameResult shorthand;
  Status s = InterpretBranchName(store, arg, /*nonfatal=*/false, &shorthand);
  if (!s.ok()) return GitDie(s.message());
  std::string spec = arg;
  if (shorthand.used > 0 && !shorthand.name.empty()) {
    spec = shorthand.name + arg.substr(size_t(shorthand.used));
  }
  ReflogSelector sel = ParseReflogSelector(spec);
  std::string branch = sel.ref;
  if (s.ok() && branch.empty()) s = CurrentBranch(store, &branch);
  if (s.ok()) s = ReadReflogForWalk(store, branch, &log->shown, &log->entries);
  if (!s.ok()) return GitDie(s.message());
  log->kind = sel.kind;
  if (sel.kind == ReflogSelector::Kind::kIndex) {
    log->pos = sel.index < log->entries.size() ? size_t(sel.index) : log->entries.size();
  } else if (sel.kind == ReflogSelector::Kind::kDate) {
    uint64_t at = 0;
    (void)ParseApproxDate(sel.date, GitDateNow(), &at);
    size_t i = 0;
    while (i < log->entries.size() && log->entries[i].time > at) ++i;
    log->pos = i;
  }
  return -1;
}

// Adds the walks of --all (ReadAllReflogsForWalk). -1 when done, else the exit status.
int StartAllWalks(Store& store, std::vector<WalkLog>* logs) {
  Result<bool> paranoia = RefParanoia();
  if (!paranoia.ok()) return GitDie(paranoia.status().message());
  std::vector<ReflogForWalk> all;
  Status s = ReadAllReflogsForWalk(store, *paranoia, PrintListingError, &all);
  if (!s.ok()) return GitDie(s.message());
  for (ReflogForWalk& r : all) {
    WalkLog& log = logs->emplace_back();
    log.shown = std::move(r.shown);
    log.entries = std::move(r.entries);
  }
  return -1;
}

// Whether git's walk shows the entry: its new id must be a commit (when there is an object
// database to ask; over a bare stack ids are taken on trust).
Status ShowsEntry(Store& store, const LogRecord& e, bool* shows) {
  *shows = true;
  GitObjects* objects = Database(store);
  if (!objects) return Status::Ok();
  GitObjectType type = GitObjectType::kNone;
  REFTAB_RETURN_IF_ERROR(objects->TypeOf(e.new_id, &type));
  *shows = type == GitObjectType::kCommit;
  return Status::Ok();
}

// The next entry git's walk shows: of each log's next commit entry, the newest (the first
// log on a tie). nullptr when every log is done.
Status NextEntry(Store& store, std::vector<WalkLog>& logs, WalkLog** best) {
  *best = nullptr;
  for (WalkLog& l : logs) {
    bool shows = false;
    while (l.pos < l.entries.size()) {
      REFTAB_RETURN_IF_ERROR(ShowsEntry(store, l.entries[l.pos], &shows));
      if (shows) break;
      ++l.pos;
    }
    if (l.pos >= l.entries.size()) continue;
    if (!*best || l.entries[l.pos].time > (*best)->entries[(*best)->pos].time) *best = &l;
  }
  return Status::Ok();
}

std::string Selector(const WalkLog& l, const std::string& name, const DateFormat& date) {
  const LogRecord& e = l.entries[l.pos];
  if (l.kind == ReflogSelector::Kind::kDate ||
      (l.kind == ReflogSelector::Kind::kNone && date.explicit_)) {
    DateFormat shown = date;
    if (!date.explicit_) shown = DateFormat();
    return name + "@{" + ShowDate(int64_t(e.time), e.tz_offset, shown.mode) + "}";
  }
  return name + "@{" + std::to_string(l.pos) + "}";
}

Result<CommitFields> ReadCommitFields(Store& store, const ObjectId& id) {
  GitObjects* objects = Database(store);
  if (!objects) return NoDatabase(store, "this --format placeholder");
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(objects->Read(id, &type, &content));
  if (type != GitObjectType::kCommit) return Status::Corruption("not a commit");
  GitCommit c;
  const size_t hs = store.hash_size();
  REFTAB_RETURN_IF_ERROR(ParseCommit(content, hs, &c));
  CommitFields f;
  f.subject = SplitMessage(content).subject;
  f.tree = HexId(c.tree, hs);
  for (const ObjectId& p : c.parents) {
    if (!f.parents.empty()) f.parents.push_back(' ');
    f.parents.append(HexId(p, hs));
  }
  auto person = [](const std::optional<GitPerson>& p, std::string* name, std::string* email,
                   uint64_t* time, int* tz) {
    if (!p) return;
    *name = p->name;
    std::string_view e = p->email;
    if (e.size() >= 2) e = e.substr(1, e.size() - 2);  // without the < >
    email->assign(e.data(), e.size());
    *time = p->timestamp;
    *tz = p->tz;
  };
  person(c.author, &f.author_name, &f.author_email, &f.author_time, &f.author_tz);
  person(c.committer, &f.committer_name, &f.committer_email, &f.committer_time, &f.committer_tz);
  return f;
}

// `core_abbrev`: ReadCoreAbbrev's value. Over a bare stack (no database) ids are abbreviated
// on trust.
ReflogObjects ObjectsFor(Store& store, int core_abbrev) {
  ReflogObjects o;
  auto abbrev = std::make_shared<GitAbbreviator>(store.objects(), store.hash_size(), core_abbrev);
  o.abbrev = [&store, abbrev](const ObjectId& id) -> Result<std::string> {
    std::string hex;
    Status s = abbrev->Abbreviate(id, kAbbrevDefault, &hex);
    if (!s.ok() && store.objects() && !Database(store)) {
      return NoDatabase(store, "an abbreviated id");
    }
    REFTAB_RETURN_IF_ERROR(s);
    return hex;
  };
  o.commit = [&store](const ObjectId& id) { return ReadCommitFields(store, id); };
  return o;
}

// `decoration`: what follows the default line's id.
Status PrintEntry(Store& store, const ShowOptions& o, WalkLog& l, ReflogObjects& objects,
                  const std::string& decoration, bool first, Output* out) {
  ReflogLine line;
  line.entry = &l.entries[l.pos];
  line.hash_size = store.hash_size();
  line.selector = Selector(l, l.shown, o.date);
  using Style = ShowOptions::Style;
  switch (o.style) {
    case Style::kJson: AppendJsonLine(line, &out->buf()); break;
    case Style::kDefault:
      line.id_color = o.id_color;
      line.decoration = decoration;
      REFTAB_RETURN_IF_ERROR(AppendDefaultLine(line, objects, &out->buf()));
      break;
    case Style::kTerminated:
    case Style::kSeparated: {
      std::string shortname;
      REFTAB_RETURN_IF_ERROR(ShortenRefname(store, l.shown, /*strict=*/false, &shortname));
      line.short_selector = Selector(l, shortname, o.date);
      if (o.style == Style::kSeparated && !first) out->buf().push_back('\n');
      REFTAB_RETURN_IF_ERROR(AppendFormattedLine(o.format, line, o.date, objects, &out->buf()));
      if (o.style == Style::kSeparated) out->buf().pop_back();
      break;
    }
  }
  out->MaybeFlush();
  return Status::Ok();
}

// log.decorate as git reads it: a style (no value: short), "auto" decided now; anything
// else quietly means none. Unset: auto.
DecorateStyle ConfiguredDecorateStyle(const GitConfig& config) {
  const ConfigEntry* e = config.Last("log.decorate");
  DecorateStyle d = DecorateStyle::kAuto;
  if (e) d = e->value ? ParseDecorateStyle(*e->value) : DecorateStyle::kShort;
  if (d == DecorateStyle::kInvalid) d = DecorateStyle::kNo;
  return ResolveDecorateStyle(d);
}

}  // namespace

int ReflogShow(Store& store, const Args& args, Pager& pager) {
  // git reads its configuration (core.abbrev among it) before the options.
  std::string error;
  Result<int> core_abbrev = ReadCoreAbbrev(store.config(), &error);
  if (!core_abbrev.ok()) return GitConfigDie(core_abbrev.status(), error);
  Result<LogColorConfig> colors = ReadLogColorConfig(store.config(), &error);
  if (!colors.ok()) return GitConfigDie(colors.status(), error);
  const DecorateStyle configured = ConfiguredDecorateStyle(store.config());
  ShowOptions o;
  int r = ParseShowArgs(args, &o);
  if (r >= 0) return r;
  // Only the default line shows decorations (git's formats would need %d).
  const DecorateStyle decorate = o.style != ShowOptions::Style::kDefault ? DecorateStyle::kNo
                                 : o.decorate                            ? *o.decorate
                                                                         : configured;
  std::vector<WalkLog> logs;
  for (const std::string& ref : o.refs) {
    if (ref == kAllRefs) {
      if ((r = StartAllWalks(store, &logs)) >= 0) return r;
      continue;
    }
    if ((r = StartWalk(store, ref, o, &logs.emplace_back())) >= 0) return r;
  }
  std::optional<RefDecorations> decorations;
  if (decorate != DecorateStyle::kNo) {
    Result<RefDecorations> d = RefDecorations::Load(store);
    if (!d.ok()) return GitDie(d.status().message());
    decorations = std::move(*d);
  }
  // As git's log: the pager once the names are read, and colours decided with it.
  if (Status s = StartPager(store.config(), std::nullopt, &pager); !s.ok()) {
    return GitDie(s.message());
  }
  const LogColorConfig* line_colors = nullptr;
  if (WantColor(o.color != ColorWhen::kUnknown ? o.color : colors->when, colors->pager)) {
    o.id_color = colors->commit;
    line_colors = &*colors;
  }
  ReflogObjects objects = ObjectsFor(store, *core_abbrev);
  Output out;
  int64_t shown = 0;
  for (;;) {
    if (o.max_count && *o.max_count >= 0 && shown >= *o.max_count) break;
    WalkLog* next = nullptr;
    Status s = NextEntry(store, logs, &next);
    if (s.ok() && next) {
      std::string decoration;
      if (decorations) {
        decorations->Append(next->entries[next->pos].new_id, decorate, line_colors, &decoration);
      }
      s = PrintEntry(store, o, *next, objects, decoration, shown == 0, &out);
    }
    if (!s.ok()) {
      out.Flush();
      return GitDie(s.message());
    }
    if (!next) break;
    ++next->pos;
    ++shown;
  }
  return out.Flush() ? kExitOk : kExitError;
}

}  // namespace reftab::cli

// reftab update-ref [-m MSG] [--no-deref] [--create-reflog] REF NEWVALUE [OLDVALUE]
// reftab update-ref [-m MSG] [--no-deref] -d REF [OLDVALUE]
// reftab update-ref [-m MSG] [--no-deref] [--create-reflog] --stdin [-z] [--batch-updates]
//                   [--[no-]progress]
//
// git's update-ref. This file only reads git's command language and prints git's messages;
// every rule (names, conflicts, symrefs, reflogs) is in store/git/refs/ref_transaction.h. Values
// are full hex object ids or names of existing refs (git's rev-parse rules for refs). Exit
// status as git's: 128 for "fatal: ...", 129 for usage errors, 1 when `-d` fails ("error:").
// With --batch-updates each update that fails on its own is printed as git prints it,
// "rejected <ref> <new> <old> <reason>" on stdout (its message as "error: ..." on stderr), and
// the others are committed.
// --progress/--no-progress are reftab's own (git's update-ref has none): a big --stdin
// transaction draws "Checking references" and "Updating references" on a terminal.
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cli/c_quote.h"
#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/input.h"
#include "cli/progress.h"
#include "cli/revision_arg.h"
#include "cli/stack_access.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {
namespace {

RefValue IdValue(const ObjectId& id) { return RefValue::Id(id); }

// One --stdin session: git's command language over one input buffer per command, with git's
// parsing (C-quoted arguments in text mode, NUL-separated fields with -z).
class StdinSession {
 public:
  StdinSession(Store& store, bool nul, bool batch, unsigned default_flags, unsigned create_reflog,
               std::string msg, Progress* progress)
      : store_(store),
        progress_(progress),
        batch_(batch),
        term_(nul ? '\0' : '\n'),
        default_flags_(default_flags),
        update_flags_(default_flags),
        create_reflog_(create_reflog),
        msg_(std::move(msg)) {
    NewTransaction();
  }
  int Run();

 private:
  // A fresh transaction that reports to the session's progress listener.
  void NewTransaction() {
    tx_ = std::make_unique<GitRefTransaction>(&store_);
    tx_->set_progress(progress_);
    tx_->set_batch_updates(batch_);
    printed_ = 0;
  }
  void PrintRejections(bool old_given = true);
  enum class State { kOpen, kStarted, kPrepared, kClosed };
  struct Command {
    const char* name;
    int (StdinSession::*fn)();
    unsigned args;
    State state;
  };
  static const Command kCommands[];

  char At(size_t p) const { return p < buf_.size() ? buf_[p] : '\0'; }
  bool AtEnd() const { return pos_ >= buf_.size(); }
  // The C string at the cursor (what git sees up to the next NUL).
  std::string Rest() const { return std::string(buf_.c_str() + std::min(pos_, buf_.size())); }
  bool ReadArg(std::string* arg);
  bool ReadRefname(std::string* ref, int* code);
  bool ReadNextRefname(std::string* ref, int* code);
  bool ReadNextArg(std::string* arg, int* code);
  // 0: a value was read into *id; 1: none given; otherwise the exit code of a fatal error.
  int ReadNextOid(const char* cmd, const std::string& ref, bool old, bool allow_empty,
                  ObjectId* id);
  int ExtraInput(const char* cmd, const std::string& ref) {
    return GitDie(std::string(cmd) + " " + ref + ": extra input: " + Rest());
  }
  // git reports an update refused as it is queued (a bad new object) at once; the others
  // rejected in a batch when the transaction commits.
  int Queued(const Status& s, bool old_given = true) {
    update_flags_ = default_flags_;
    if (!s.ok()) return GitDie(s.message());
    PrintRejections(old_given);
    return 0;
  }

  int CmdUpdate();
  int CmdCreate();
  int CmdDelete();
  int CmdVerify();
  int CmdSymrefUpdate();
  int CmdSymrefCreate();
  int CmdSymrefDelete();
  int CmdSymrefVerify();
  int CmdOption();
  int CmdStart();
  int CmdPrepare();
  int CmdAbort();
  int CmdCommit();
  int Dispatch(const Command& cmd);

  Store& store_;
  Progress* progress_;
  bool batch_;
  size_t printed_ = 0;  // how many of tx_->rejected() are printed
  char term_;
  unsigned default_flags_;
  unsigned update_flags_;
  unsigned create_reflog_;
  std::string msg_;
  std::unique_ptr<GitRefTransaction> tx_;
  State state_ = State::kOpen;
  std::string buf_;
  size_t pos_ = 0;
  // ReadNextOid's argument: one buffer for every line's ids (the names move on into the
  // transaction, so they get theirs).
  std::string oid_arg_;
};

const StdinSession::Command StdinSession::kCommands[] = {
    {"update", &StdinSession::CmdUpdate, 3, State::kOpen},
    {"create", &StdinSession::CmdCreate, 2, State::kOpen},
    {"delete", &StdinSession::CmdDelete, 2, State::kOpen},
    {"verify", &StdinSession::CmdVerify, 2, State::kOpen},
    {"symref-update", &StdinSession::CmdSymrefUpdate, 4, State::kOpen},
    {"symref-create", &StdinSession::CmdSymrefCreate, 2, State::kOpen},
    {"symref-delete", &StdinSession::CmdSymrefDelete, 2, State::kOpen},
    {"symref-verify", &StdinSession::CmdSymrefVerify, 2, State::kOpen},
    {"option", &StdinSession::CmdOption, 1, State::kOpen},
    {"start", &StdinSession::CmdStart, 0, State::kStarted},
    {"prepare", &StdinSession::CmdPrepare, 0, State::kPrepared},
    {"abort", &StdinSession::CmdAbort, 0, State::kClosed},
    {"commit", &StdinSession::CmdCommit, 0, State::kClosed},
};

// A value of a rejected update as git prints it: the object id, zeros for "none" and for a
// symref target (git prints the id field it keeps beside the target), "(null)" (what git's
// C library prints for a null string) when no value was given.
std::string Shown(const std::optional<RefValue>& v, size_t hash_size) {
  if (!v) return "(null)";
  return HexId(v->type == RefValueType::kSymref ? ObjectId{} : v->id, hash_size);
}

// The rejections not printed yet: "rejected <ref> <new> <old> <reason>" on stdout (unquoted,
// in -z mode too), each after its message as an error on stderr. `old_given`: false for a
// `create` refused as it is queued, which git prints without its implied old value.
void StdinSession::PrintRejections(bool old_given) {
  const std::vector<GitRefRejection>& rejected = tx_->rejected();
  const size_t hs = store_.hash_size();
  for (; printed_ < rejected.size(); ++printed_) {
    const GitRefRejection& r = rejected[printed_];
    if (!r.message.empty()) GitError(r.message);
    std::printf("rejected %s %s %s %s\n", r.refname.c_str(), Shown(r.new_value, hs).c_str(),
                Shown(old_given ? r.old_value : std::nullopt, hs).c_str(),
                GitRefRejectReasonText(r.reason));
  }
}

// One argument: C-quoted in text mode when it starts with '"', else up to white space.
bool StdinSession::ReadArg(std::string* arg) {
  if (At(pos_) == '"') {
    std::string orig = Rest();
    size_t used = 0;
    std::string_view view(buf_.c_str() + pos_);
    if (!UnquoteCStyle(view, &used, arg)) {
      GitDie("badly quoted argument: " + orig);
      return false;
    }
    pos_ += used;
    char c = At(pos_);
    if (c != '\0' && !std::isspace(static_cast<unsigned char>(c))) {
      GitDie("unexpected character after quoted argument: " + orig);
      return false;
    }
    return true;
  }
  // Found first, appended once: a byte at a time cost ~20 instructions per byte, half the
  // parsing of a big --stdin. An argument ends at NUL or at a space of std::isspace's "C"
  // locale (the CLI never sets another); the string's own terminating NUL stops the scan at
  // its end, so one table load per byte decides.
  static constexpr std::array<bool, 256> kEnds = [] {
    std::array<bool, 256> t{};
    t[0] = t[' '] = true;
    for (int c = '\t'; c <= '\r'; ++c) t[size_t(c)] = true;
    return t;
  }();
  if (pos_ >= buf_.size()) return true;
  const unsigned char* data = reinterpret_cast<const unsigned char*>(buf_.c_str());
  size_t end = pos_;
#if defined(__SSE2__)
  // Sixteen bytes at a time while they lie within the string: every end is a byte up to
  // ' ', so a block without one holds none; the table decides at the first such byte.
  const __m128i space = _mm_set1_epi8(' ');
  while (end + 16 <= buf_.size()) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + end));
    const unsigned low =
        unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, space), v)));  // v <= ' '
    if (low) {
      end += size_t(__builtin_ctz(low));
      break;
    }
    end += 16;
  }
#endif
  while (!kEnds[data[end]]) ++end;
  if (end > pos_) arg->append(buf_.data() + pos_, end - pos_);
  pos_ = end;
  return true;
}

// The ref name right after "command SP". Empty *ref: none given.
bool StdinSession::ReadRefname(std::string* ref, int* code) {
  ref->clear();
  if (term_ != '\0') {
    if (!ReadArg(ref)) return *code = kExitGitFatal, false;
  } else {
    *ref = Rest();
    pos_ += ref->size();
  }
  if (!ref->empty() && !IsValidRefname(*ref, kRefnameAllowOneLevel)) {
    *code = GitDie("invalid ref format: " + *ref);
    return false;
  }
  return true;
}

bool StdinSession::ReadNextRefname(std::string* ref, int* code) {
  ref->clear();
  if (term_ != '\0') {
    if (At(pos_) == '\0' || At(pos_) == term_) return true;
    if (At(pos_) != ' ') return *code = GitDie("expected SP but got: " + Rest()), false;
  } else if (At(pos_) != '\0' || AtEnd()) {
    return true;
  }
  ++pos_;
  return ReadRefname(ref, code);
}

bool StdinSession::ReadNextArg(std::string* arg, int* code) {
  arg->clear();
  if (term_ != '\0') {
    if (At(pos_) == '\0' || At(pos_) == term_) return true;
    if (At(pos_) != ' ') return *code = GitDie("expected SP but got: " + Rest()), false;
    ++pos_;
    if (!ReadArg(arg)) return *code = kExitGitFatal, false;
    return true;
  }
  if (At(pos_) != '\0' || AtEnd()) return true;
  ++pos_;
  *arg = Rest();
  pos_ += arg->size();
  return true;
}

int StdinSession::ReadNextOid(const char* cmd, const std::string& ref, bool old, bool allow_empty,
                              ObjectId* id) {
  const std::string what = old ? "<old-oid>" : "<new-oid>";
  auto eof = [&] {
    return GitDie(std::string(cmd) + " " + ref + ": unexpected end of input when reading " + what);
  };
  if (AtEnd()) return eof();
  std::string& arg = oid_arg_;
  arg.clear();
  if (term_ != '\0') {
    if (At(pos_) == '\0' || At(pos_) == term_) return 1;
    if (At(pos_) != ' ')
      return GitDie(std::string(cmd) + " " + ref + ": expected SP but got: " + Rest());
    ++pos_;
    if (!ReadArg(&arg)) return kExitGitFatal;
    if (arg.empty()) {
      *id = ObjectId{};  // an empty value means zeros in text mode
      return 0;
    }
  } else {
    if (At(pos_) != '\0')
      return GitDie(std::string(cmd) + " " + ref + ": expected NUL but got: " + Rest());
    ++pos_;
    if (AtEnd()) return eof();
    arg = Rest();
    pos_ += arg.size();
    if (arg.empty()) {
      if (!allow_empty) return 1;
      std::fprintf(stderr, "warning: %s %s: missing <new-oid>, treating as zero\n", cmd,
                   ref.c_str());
      *id = ObjectId{};
      return 0;
    }
  }
  bool found = false;
  if (Status s = ResolveRevisionArg(store_, arg, id, &found); !s.ok()) return GitDie(s.message());
  if (!found) {
    return GitDie(std::string(cmd) + " " + ref + ": invalid " + what + ": " + arg);
  }
  return 0;
}

int StdinSession::CmdUpdate() {
  std::string ref;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("update: missing <ref>");
  ObjectId new_id{}, old_id{};
  int r = ReadNextOid("update", ref, false, true, &new_id);
  if (r == 1) return GitDie("update " + ref + ": missing <new-oid>");
  if (r) return r;
  r = ReadNextOid("update", ref, true, false, &old_id);
  if (r > 1) return r;
  std::optional<RefValue> old;
  if (r == 0) old = IdValue(old_id);
  if (At(pos_) != term_) return ExtraInput("update", ref);
  return Queued(
      tx_->Update(std::move(ref), IdValue(new_id), old, update_flags_ | create_reflog_, msg_));
}

int StdinSession::CmdCreate() {
  std::string ref;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("create: missing <ref>");
  ObjectId new_id{};
  int r = ReadNextOid("create", ref, false, false, &new_id);
  if (r == 1) return GitDie("create " + ref + ": missing <new-oid>");
  if (r) return r;
  if (new_id == ObjectId{}) return GitDie("create " + ref + ": zero <new-oid>");
  if (At(pos_) != term_) return ExtraInput("create", ref);
  return Queued(tx_->Create(std::move(ref), IdValue(new_id), update_flags_ | create_reflog_, msg_),
                /*old_given=*/false);
}

int StdinSession::CmdDelete() {
  std::string ref;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("delete: missing <ref>");
  ObjectId old_id{};
  int r = ReadNextOid("delete", ref, true, false, &old_id);
  if (r > 1) return r;
  std::optional<RefValue> old;
  if (r == 0) {
    if (old_id == ObjectId{}) return GitDie("delete " + ref + ": zero <old-oid>");
    old = IdValue(old_id);
  }
  if (At(pos_) != term_) return ExtraInput("delete", ref);
  return Queued(tx_->Delete(std::move(ref), old, update_flags_, msg_));
}

int StdinSession::CmdVerify() {
  std::string ref;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("verify: missing <ref>");
  ObjectId old_id{};
  int r = ReadNextOid("verify", ref, true, false, &old_id);
  if (r > 1) return r;
  if (At(pos_) != term_) return ExtraInput("verify", ref);
  RefValue old = old_id == ObjectId{} ? RefValue::Absent() : IdValue(old_id);
  return Queued(tx_->Verify(std::move(ref), old, update_flags_));
}

int StdinSession::CmdSymrefUpdate() {
  std::string ref, target, old_arg, old;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("symref-update: missing <ref>");
  if (!ReadNextRefname(&target, &code)) return code;
  if (target.empty()) return GitDie("symref-update " + ref + ": missing <new-target>");
  if (!ReadNextArg(&old_arg, &code)) return code;
  std::optional<RefValue> old_value;
  if (!old_arg.empty()) {
    if (!ReadNextArg(&old, &code)) return code;
    if (old.empty()) return GitDie("symref-update " + ref + ": expected old value");
    if (old_arg == "oid") {
      ObjectId id{};
      bool found = false;
      if (Status s = ResolveRevisionArg(store_, old, &id, &found); !s.ok())
        return GitDie(s.message());
      if (!found) {
        return GitDie("symref-update " + ref + ": invalid oid: " + old);
      }
      old_value = id == ObjectId{} ? RefValue::Absent() : IdValue(id);
    } else if (old_arg == "ref") {
      if (!IsValidRefname(old, kRefnameAllowOneLevel)) {
        return GitDie("symref-update " + ref + ": invalid ref: " + old);
      }
      old_value = RefValue::Symref(old);
    } else {
      return GitDie("symref-update " + ref + ": invalid arg '" + old_arg + "' for old value");
    }
  }
  if (At(pos_) != term_) return ExtraInput("symref-update", ref);
  return Queued(tx_->Update(std::move(ref), RefValue::Symref(target), old_value,
                            update_flags_ | create_reflog_, msg_));
}

int StdinSession::CmdSymrefCreate() {
  std::string ref, target;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("symref-create: missing <ref>");
  if (!ReadNextRefname(&target, &code)) return code;
  if (target.empty()) return GitDie("symref-create " + ref + ": missing <new-target>");
  if (At(pos_) != term_) return ExtraInput("symref-create", ref);
  return Queued(
      tx_->Create(std::move(ref), RefValue::Symref(target), update_flags_ | create_reflog_, msg_));
}

int StdinSession::CmdSymrefDelete() {
  if (!(update_flags_ & kGitRefNoDeref))
    return GitDie("symref-delete: cannot operate with deref mode");
  std::string ref, old;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("symref-delete: missing <ref>");
  if (!ReadNextRefname(&old, &code)) return code;
  if (At(pos_) != term_) return ExtraInput("symref-delete", ref);
  std::optional<RefValue> old_value;
  if (!old.empty()) old_value = RefValue::Symref(old);
  return Queued(tx_->Delete(std::move(ref), old_value, update_flags_, msg_));
}

int StdinSession::CmdSymrefVerify() {
  if (!(update_flags_ & kGitRefNoDeref))
    return GitDie("symref-verify: cannot operate with deref mode");
  std::string ref, old;
  int code = 0;
  if (!ReadRefname(&ref, &code)) return code;
  if (ref.empty()) return GitDie("symref-verify: missing <ref>");
  if (!ReadNextRefname(&old, &code)) return code;
  if (At(pos_) != term_) return ExtraInput("symref-verify", ref);
  RefValue old_value = old.empty() ? RefValue::Absent() : RefValue::Symref(old);
  return Queued(tx_->Verify(std::move(ref), old_value, update_flags_));
}

int StdinSession::CmdOption() {
  std::string rest = Rest();
  if (rest.rfind("no-deref", 0) == 0 && At(pos_ + 8) == term_) {
    update_flags_ |= kGitRefNoDeref;
    return 0;
  }
  return GitDie("option unknown: " + rest);
}

int StdinSession::CmdStart() {
  if (At(pos_) != term_) return GitDie("start: extra input: " + Rest());
  std::printf("start: ok\n");
  std::fflush(stdout);
  return 0;
}

// git locks here; reftab checks here and again, under the stack's lock, at commit.
int StdinSession::CmdPrepare() {
  if (At(pos_) != term_) return GitDie("prepare: extra input: " + Rest());
  Status s = tx_->Prepare();
  if (!s.ok()) return GitDie("prepare: " + s.message());
  std::printf("prepare: ok\n");
  std::fflush(stdout);
  return 0;
}

int StdinSession::CmdAbort() {
  if (At(pos_) != term_) return GitDie("abort: extra input: " + Rest());
  NewTransaction();
  std::printf("abort: ok\n");
  std::fflush(stdout);
  return 0;
}

int StdinSession::CmdCommit() {
  if (At(pos_) != term_) return GitDie("commit: extra input: " + Rest());
  Status s = tx_->Commit();
  if (!s.ok()) return GitDie("commit: " + s.message());
  PrintRejections();
  std::printf("commit: ok\n");
  std::fflush(stdout);
  return 0;
}

// git's state machine: commands outside start/commit form one transaction committed at the
// end; `start` opens an explicit one, which is aborted if the input ends before `commit`.
int StdinSession::Dispatch(const Command& cmd) {
  switch (state_) {
    case State::kOpen:
    case State::kStarted:
      if (state_ == State::kStarted && cmd.state == State::kStarted) {
        return GitDie("cannot restart ongoing transaction");
      }
      if (cmd.state > state_) state_ = cmd.state;
      break;
    case State::kPrepared:
      if (cmd.state != State::kClosed) return GitDie("prepared transactions can only be closed");
      state_ = cmd.state;
      break;
    case State::kClosed:
      if (cmd.state != State::kStarted) return GitDie("transaction is closed");
      state_ = cmd.state;
      NewTransaction();
      break;
  }
  pos_ = std::strlen(cmd.name) + (cmd.args ? 1 : 0);
  return (this->*cmd.fn)();
}

int StdinSession::Run() {
  InputReader in;
  std::string line;
  while (in.Next(term_, &line)) {
    // git keeps the terminator in its buffer; commands look for it. A last line without one
    // ends at the end of the buffer instead.
    buf_ = line;
    if (!in.last_line_unterminated()) buf_.push_back(term_);
    if (buf_[0] == term_) return GitDie("empty command in input");
    if (std::isspace(static_cast<unsigned char>(buf_[0]))) {
      return GitDie("whitespace before command: " + std::string(buf_.c_str()));
    }
    const Command* cmd = nullptr;
    for (const Command& c : kCommands) {
      size_t n = std::strlen(c.name);
      if (buf_.compare(0, n, c.name) != 0) continue;
      if (At(n) != (c.args ? ' ' : term_)) continue;
      cmd = &c;
      break;
    }
    if (!cmd) return GitDie("unknown command: " + std::string(buf_.c_str()));
    for (unsigned j = 1; term_ == '\0' && j < cmd->args; ++j) {
      if (!in.Next('\0', &line)) break;
      buf_.append(line);
      if (!in.last_line_unterminated()) buf_.push_back('\0');
    }
    if (int code = Dispatch(*cmd)) return code;
  }
  if (in.failed()) return GitDie("could not read standard input");
  if (state_ == State::kOpen) {
    Status s = tx_->Commit();
    if (!s.ok()) return GitDie(s.message());
    PrintRejections();
  }
  return kExitOk;
}

struct UpdateRefArgs {
  std::optional<std::string> message;
  bool del = false, no_deref = false, create_reflog = false, stdin_mode = false, nul = false;
  bool batch = false;
  ProgressFlag progress = ProgressFlag::kAuto;
  Args pos;
};

// git's options of update-ref, in git's order, then reftab's own --[no-]progress (matched by
// its full name only).
GitUsage UpdateRefUsage(UpdateRefArgs* o) {
  GitUsage u;
  u.lines = {"reftab update-ref [<options>] -d <refname> [<old-oid>]",
             "reftab update-ref [<options>]    <refname> <new-oid> [<old-oid>]",
             "reftab update-ref [<options>] --stdin [-z] [--batch-updates]"};
  GitOption m;
  m.short_name = 'm';
  m.arg = GitOption::Arg::kRequired;
  m.arg_help = "reason";
  m.help = "reason of the update";
  m.set = [o](bool, std::optional<std::string_view> v) {
    o->message = std::string(*v);
    return std::string();
  };
  u.options.push_back(std::move(m));
  u.options.push_back(FlagOption('d', "", "delete the reference", &o->del));
  u.options.push_back(
      FlagOption(0, "no-deref", "update <refname> not the one it points to", &o->no_deref));
  u.options.push_back(FlagOption('z', "", "stdin has NUL-terminated arguments", &o->nul));
  u.options.push_back(FlagOption(0, "stdin", "read updates from stdin", &o->stdin_mode));
  u.options.push_back(FlagOption(0, "create-reflog", "create a reflog", &o->create_reflog));
  u.options.push_back(FlagOption('0', "batch-updates", "batch reference updates", &o->batch));
  GitOption progress;
  progress.long_name = "progress";
  progress.help = "show progress of a big --stdin on a terminal (reftab's own)";
  progress.exact = true;
  progress.set = [o](bool unset, std::optional<std::string_view>) {
    o->progress = unset ? ProgressFlag::kOff : ProgressFlag::kOn;
    return std::string();
  };
  u.options.push_back(std::move(progress));
  return u;
}

// `update-ref REF NEW [OLD]`: one update; a failure is fatal, worded as git's update_ref().
int UpdateOne(Store& store, const UpdateRefArgs& o, unsigned flags) {
  const std::string& ref = o.pos[0];
  ObjectId new_id{};
  bool found = false;
  if (Status s = ResolveRevisionArg(store, o.pos[1], &new_id, &found); !s.ok())
    return GitDie(s.message());
  if (!found) return GitDie(o.pos[1] + ": not a valid SHA1");
  std::optional<RefValue> old;
  if (o.pos.size() > 2) {
    ObjectId old_id{};
    if (Status s = ResolveRevisionArg(store, o.pos[2], &old_id, &found); !s.ok())
      return GitDie(s.message());
    if (!o.pos[2].empty() && !found) {
      return GitDie(o.pos[2] + ": not a valid old SHA1");
    }
    old = RefValue::Id(old_id);
  }
  GitRefTransaction tx(&store);
  Status s = tx.Update(ref, RefValue::Id(new_id), old, flags, o.message.value_or(""));
  if (s.ok()) s = tx.Commit();
  if (s.ok()) return kExitOk;
  return GitDie("update_ref failed for ref '" + ref + "': " + s.message());
}

// `update-ref -d REF [OLD]`: a failure is an error (exit 1), as git's delete_ref().
int DeleteOne(Store& store, const UpdateRefArgs& o, unsigned flags) {
  std::optional<RefValue> old;
  if (o.pos.size() > 1) {
    ObjectId old_id{};
    bool found = false;
    if (Status s = ResolveRevisionArg(store, o.pos[1], &old_id, &found); !s.ok())
      return GitDie(s.message());
    if (!o.pos[1].empty() && !found) {
      return GitDie(o.pos[1] + ": not a valid old SHA1");
    }
    if (old_id != ObjectId{}) old = RefValue::Id(old_id);  // zeros: "don't care", as git
  }
  GitRefTransaction tx(&store);
  Status s = tx.Delete(o.pos[0], old, flags, o.message.value_or(""));
  if (s.ok()) s = tx.Commit();
  return s.ok() ? kExitOk : GitError(s.message());
}

}  // namespace

int CmdUpdateRef(const GlobalOptions& g, const Args& args) {
  UpdateRefArgs o;
  const GitUsage usage = UpdateRefUsage(&o);
  if (auto exit = ParseGitOptions(args, usage, &o.pos)) return *exit;
  if (o.message && o.message->empty()) {
    return GitDie("Refusing to perform update with empty message.");
  }
  const unsigned flags = o.no_deref ? unsigned(kGitRefNoDeref) : 0u;
  const unsigned create_reflog = o.create_reflog ? unsigned(kGitRefForceCreateReflog) : 0u;
  if (o.stdin_mode && (o.del || !o.pos.empty())) return GitUsageError(usage);
  if (!o.stdin_mode && o.batch) return GitDie("--batch-updates can only be used with --stdin");
  if (!o.stdin_mode && (o.nul || (o.del ? (o.pos.empty() || o.pos.size() > 2)
                                        : (o.pos.size() < 2 || o.pos.size() > 3)))) {
    return GitUsageError(usage);
  }
  auto opened = OpenStore(g);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  if (o.stdin_mode) {
    TerminalProgress progress(o.progress);
    StdinSession session(store, o.nul, o.batch, flags, create_reflog, o.message.value_or(""),
                         progress.get());
    return session.Run();
  }
  if (o.del) return DeleteOne(store, o, flags);
  return UpdateOne(store, o, flags | create_reflog);
}

}  // namespace reftab::cli

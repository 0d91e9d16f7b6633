// reftab update-ref [-m MSG] [--no-deref] [--create-reflog] REF NEWVALUE [OLDVALUE]
// reftab update-ref [-m MSG] [--no-deref] -d REF [OLDVALUE]
// reftab update-ref [-m MSG] [--no-deref] [--create-reflog] --stdin [-z]
//
// git's update-ref, over a reftable stack. Values are full hex object ids (all zeros or ""
// as OLDVALUE: the ref must not exist) or names of existing refs. Names are dereferenced
// through symrefs unless --no-deref, and an update through a symref is logged for the
// symref too (as git logs HEAD). Failures print "fatal: ..." and exit 128, usage errors exit
// 129, as git does. --stdin speaks git's language (update, create, delete, verify,
// symref-update/-create/-delete/-verify, option no-deref, start, prepare, commit, abort).
#include <cstdio>
#include <iterator>
#include <map>

#include "cli/commands.h"
#include "cli/identity.h"
#include "cli/input.h"
#include "cli/stack_access.h"

namespace reftab::cli {
namespace {

constexpr int kExitFatal = 128;
constexpr int kExitGitUsage = 129;
constexpr int kMaxSymrefDepth = 5;

int Fatal(const std::string& msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "fatal: %s\n", msg.c_str());
  return kExitFatal;
}

enum class Op { kUpdate, kDelete, kVerify };

struct Command {
  Op op;
  std::string refname;
  RefValue value;                    // kUpdate
  std::optional<RefValue> expected;  // old value to check
  bool no_deref = false;             // operate on the symref itself
};

class Session {
 public:
  Session(Store& store, std::string message, bool create_reflog)
      : store_(store), create_reflog_(create_reflog) {
    hs_ = store.main_stack().snapshot()->hash_size();
    const GitConfig* cfg = store.repo() ? &store.repo()->config() : nullptr;
    ident_ = CommitterIdentity(cfg);
    size_t block = store.main_stack().options().write_options.block_size;
    ident_.message = CleanReflogMessage(message, block / 2);
  }
  size_t hash_size() const { return hs_; }
  Store& store() { return store_; }

  // "<hex>", "" / zeros (absent), or the name of an existing ref.
  bool ParseValue(const std::string& s, RefValue* out) {
    if (s.empty()) {
      *out = RefValue::Absent();
      return true;
    }
    ObjectId id{};
    if (ParseHexId(s, hs_, &id)) {
      bool zero = true;
      for (size_t i = 0; i < hs_; ++i) zero = zero && id[i] == 0;
      *out = zero ? RefValue::Absent() : RefValue::Id(id);
      return true;
    }
    RefRecord rec;
    bool found = false;
    if (!Resolve(s, &rec, &found, nullptr).ok() || !found) return false;
    if (rec.value_type != RefValueType::kVal1 && rec.value_type != RefValueType::kVal2)
      return false;
    *out = RefValue::Id(rec.value);
    return true;
  }

  void Add(Command c) { commands_.push_back(std::move(c)); }
  bool empty() const { return commands_.empty(); }
  void Clear() { commands_.clear(); }

  // Applies the queued commands: one transaction per stack (two only in a linked worktree).
  Status Commit() {
    std::map<Stack*, Transaction> txs;
    std::map<std::string, bool> seen;
    for (const Command& c : commands_) {
      std::string name = c.refname;
      std::string via;  // the symref an update went through
      if (!c.no_deref) REFTAB_RETURN_IF_ERROR(FinalName(c.refname, &name, &via));
      Stack& stack = store_.StackFor(name);
      Transaction& tx = txs.try_emplace(&stack, &stack).first->second;
      switch (c.op) {
        case Op::kVerify: tx.Verify(name, c.expected.value_or(RefValue::Absent())); break;
        case Op::kDelete: tx.Delete(name, c.expected); break;
        case Op::kUpdate: {
          std::optional<LogInfo> log;
          if (WantsLog(name)) log = ident_;
          tx.Update(name, c.value, c.expected, log);
          if (!via.empty() && WantsLog(via))
            REFTAB_RETURN_IF_ERROR(LogThroughSymref(via, name, c, &txs));
          break;
        }
      }
    }
    for (auto& [stack, tx] : txs) REFTAB_RETURN_IF_ERROR(tx.Commit());
    commands_.clear();
    return Status::Ok();
  }

 private:
  Status Resolve(const std::string& name, RefRecord* rec, bool* found, std::string* final_name) {
    std::string current = name;
    for (int depth = 0; depth <= kMaxSymrefDepth; ++depth) {
      REFTAB_RETURN_IF_ERROR(store_.ReadRef(current, rec, found));
      if (final_name) *final_name = current;
      if (!*found || rec->value_type != RefValueType::kSymref) return Status::Ok();
      current = rec->target;
    }
    return Status::InvalidArgument("too many levels of symbolic refs at '" + name + "'");
  }

  // Follows symrefs to the name an update really changes (which may not exist yet).
  Status FinalName(const std::string& name, std::string* final_name, std::string* via) {
    RefRecord rec;
    bool found = false;
    REFTAB_RETURN_IF_ERROR(Resolve(name, &rec, &found, final_name));
    if (*final_name != name) *via = name;
    return Status::Ok();
  }

  bool WantsLog(const std::string& name) {
    if (create_reflog_ || store_.LogsByDefault(name)) return true;
    // A ref whose reflog already exists keeps getting entries.
    Stack& stack = store_.StackFor(name);
    MergedLogIterator it = stack.snapshot()->NewLogIterator();
    LogRecord l;
    return it.Seek(name).ok() && it.Next(&l) && l.refname == name;
  }

  // git also logs an update made through HEAD in HEAD's reflog.
  Status LogThroughSymref(const std::string& via, const std::string& name, const Command& c,
                          std::map<Stack*, Transaction>* txs) {
    RefRecord cur;
    bool found = false;
    REFTAB_RETURN_IF_ERROR(store_.ReadRef(name, &cur, &found));
    LogRecord l;
    l.refname = via;
    l.value_type = LogValueType::kUpdate;
    if (found && (cur.value_type == RefValueType::kVal1 || cur.value_type == RefValueType::kVal2)) {
      l.old_id = cur.value;
    }
    if (found && RefValue::Of(cur).Equals(c.value, hs_)) return Status::Ok();  // no change
    l.new_id = c.value.id;
    l.name = ident_.name;
    l.email = ident_.email;
    l.time = ident_.time;
    l.tz_offset = ident_.tz_offset;
    l.message = ident_.message;
    Stack& stack = store_.StackFor(via);
    txs->try_emplace(&stack, &stack).first->second.AddLogRecord(std::move(l));
    return Status::Ok();
  }

  Store& store_;
  bool create_reflog_;
  size_t hs_ = 20;
  LogInfo ident_;
  std::vector<Command> commands_;
};

// Reads one --stdin command: its words (command and ref in words[0..1]) and, in -z mode, the
// NUL-terminated fields that follow. Returns false at end of input.
class StdinReader {
 public:
  explicit StdinReader(bool nul) : nul_(nul) {}
  bool Next(std::vector<std::string>* words, size_t nul_fields_for_cmd(const std::string&)) {
    words->clear();
    if (!in_.Next(nul_ ? '\0' : '\n', &line_)) return false;
    const std::string& line = line_;
    size_t pos = 0;
    while (pos <= line.size()) {
      size_t sp = line.find(' ', pos);
      if (sp == std::string::npos) sp = line.size();
      words->push_back(line.substr(pos, sp - pos));
      pos = sp + 1;
      if (nul_ && words->size() == 2) {  // -z: the ref may not contain a space anyway
        break;
      }
    }
    if (nul_) {
      size_t extra = nul_fields_for_cmd((*words)[0]);
      for (size_t i = 0; i < extra; ++i) {
        std::string field;
        if (!in_.Next('\0', &field)) break;
        words->push_back(std::move(field));
      }
    }
    return true;
  }

  bool failed() const { return in_.failed(); }

 private:
  bool nul_;
  InputReader in_;
  std::string line_;
};

size_t NulFields(const std::string& cmd) {
  if (cmd == "update") return 2;
  if (cmd == "create" || cmd == "delete" || cmd == "verify") return 1;
  if (cmd == "symref-create" || cmd == "symref-delete" || cmd == "symref-verify") return 1;
  if (cmd == "symref-update") return 3;
  return 0;
}

int RunStdin(Session& session, bool nul) {
  StdinReader reader(nul);
  std::vector<std::string> w;
  bool explicit_tx = false, prepared = false, no_deref = false;
  auto arg = [&](size_t i) -> std::string { return i < w.size() ? w[i] : std::string(); };
  auto value = [&](const std::string& cmd, const char* what, const std::string& s, RefValue* v) {
    if (session.ParseValue(s, v)) return true;
    Fatal(cmd + " " + arg(1) + ": invalid <" + what + ">: " + s);
    return false;
  };
  while (reader.Next(&w, NulFields)) {
    const std::string cmd = w[0];
    if (cmd.empty() && w.size() == 1) continue;
    Command c;
    c.refname = arg(1);
    c.no_deref = no_deref;
    if (cmd == "start" || cmd == "prepare" || cmd == "commit" || cmd == "abort") {
      if (cmd == "start") {
        if (!session.empty() || explicit_tx)
          return Fatal("start: cannot start a transaction twice");
        explicit_tx = true;
      } else if (cmd == "prepare") {
        prepared = true;
      } else if (cmd == "commit") {
        Status s = session.Commit();
        if (!s.ok()) return Fatal(s.message());
        explicit_tx = prepared = false;
      } else {
        session.Clear();
        explicit_tx = prepared = false;
      }
      std::printf("%s: ok\n", cmd.c_str());
      std::fflush(stdout);
      continue;
    }
    if (cmd == "option") {
      if (arg(1) != "no-deref") return Fatal("option unknown: " + arg(1));
      no_deref = true;
      continue;
    }
    if (prepared) return Fatal("prepared transactions can only be closed");
    if (c.refname.empty()) return Fatal(cmd + ": missing <ref>");
    if (cmd == "update" || cmd == "create") {
      c.op = Op::kUpdate;
      if (!value(cmd, "new-oid", arg(2), &c.value)) return kExitFatal;
      if (cmd == "create") {
        if (!c.value.exists()) return Fatal("create " + c.refname + ": zero <new-oid>");
        c.expected = RefValue::Absent();
      } else if (w.size() > 3 && !(nul && arg(3).empty())) {
        RefValue old;
        if (!value(cmd, "old-oid", arg(3), &old)) return kExitFatal;
        c.expected = old;
      }
      if (!c.value.exists()) c.op = Op::kDelete;
    } else if (cmd == "delete" || cmd == "verify") {
      c.op = cmd == "delete" ? Op::kDelete : Op::kVerify;
      if (w.size() > 2 && !(nul && arg(2).empty())) {
        RefValue old;
        if (!value(cmd, "old-oid", arg(2), &old)) return kExitFatal;
        if (c.op == Op::kDelete && !old.exists())
          return Fatal("delete " + c.refname + ": zero <old-oid>");
        c.expected = old;
      } else if (c.op == Op::kVerify) {
        c.expected = RefValue::Absent();
      }
    } else if (cmd == "symref-update" || cmd == "symref-create") {
      c.op = Op::kUpdate;
      c.no_deref = true;
      if (arg(2).empty()) return Fatal(cmd + " " + c.refname + ": missing <new-target>");
      c.value = RefValue::Symref(arg(2));
      if (cmd == "symref-create") {
        c.expected = RefValue::Absent();
      } else if (arg(3) == "ref") {
        c.expected = arg(4).empty() ? RefValue::Absent() : RefValue::Symref(arg(4));
      } else if (arg(3) == "oid") {
        RefValue old;
        if (!value(cmd, "old-oid", arg(4), &old)) return kExitFatal;
        c.expected = old;
      } else if (!arg(3).empty()) {
        return Fatal(cmd + " " + c.refname + ": invalid arg '" + arg(3) + "' for old value");
      }
    } else if (cmd == "symref-delete" || cmd == "symref-verify") {
      c.op = cmd == "symref-delete" ? Op::kDelete : Op::kVerify;
      c.no_deref = true;
      if (!arg(2).empty()) {
        c.expected = RefValue::Symref(arg(2));
      } else if (c.op == Op::kVerify) {
        c.expected = RefValue::Absent();
      }
    } else {
      return Fatal("unknown command: " + cmd);
    }
    session.Add(std::move(c));
  }
  if (reader.failed()) return Fatal("could not read standard input");
  if (explicit_tx) return kExitOk;  // an explicit transaction without commit is aborted
  Status s = session.Commit();
  return s.ok() ? kExitOk : Fatal(s.message());
}

}  // namespace

int CmdUpdateRef(const GlobalOptions& g, const Args& args) {
  std::string message;
  bool del = false, no_deref = false, create_reflog = false, stdin_mode = false, nul = false;
  std::vector<std::string> pos;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    const std::string& a = args[i];
    if (a == "-m" && i + 1 < args.size()) {
      message = args[++i];
    } else if (a.rfind("-m", 0) == 0 && a.size() > 2) {
      message = a.substr(2);
    } else if (TakeValue(args, &i, "--message", &v)) {
      message = v;
    } else if (a == "-d") {
      del = true;
    } else if (a == "--no-deref") {
      no_deref = true;
    } else if (a == "--create-reflog") {
      create_reflog = true;
    } else if (a == "--stdin") {
      stdin_mode = true;
    } else if (a == "-z") {
      nul = true;
    } else if (a == "--") {
      pos.insert(pos.end(), args.begin() + long(i) + 1, args.end());
      break;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr,
                   "error: unknown option `%s'\nusage: reftab update-ref [<options>] -d <refname> "
                   "[<old-oid>]\n   or: reftab update-ref [<options>] <refname> <new-oid> "
                   "[<old-oid>]\n   or: reftab update-ref [<options>] --stdin [-z]\n",
                   a.c_str());
      return kExitGitUsage;
    } else {
      pos.push_back(a);
    }
  }
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: reftab update-ref [<options>] -d <refname> [<old-oid>]\n   or: reftab "
                 "update-ref [<options>] <refname> <new-oid> [<old-oid>]\n   or: reftab update-ref "
                 "[<options>] --stdin [-z]\n");
    return kExitGitUsage;
  };
  if (stdin_mode
          ? (!pos.empty() || del)
          : (nul || pos.empty() || pos.size() > (del ? 2u : 3u) || (!del && pos.size() < 2))) {
    return usage();
  }
  auto opened = OpenStore(g);
  if (!opened.ok()) return Fatal(opened.status().message());
  Session session(**opened, message, create_reflog);
  if (stdin_mode) return RunStdin(session, nul);

  Command c;
  c.refname = pos[0];
  c.no_deref = no_deref;
  size_t old_at = del ? 1 : 2;
  if (!del) {
    c.op = Op::kUpdate;
    if (!session.ParseValue(pos[1], &c.value)) return Fatal(pos[1] + ": not a valid SHA1");
    if (!c.value.exists()) c.op = Op::kDelete;
  } else {
    c.op = Op::kDelete;
  }
  if (pos.size() > old_at) {
    RefValue old;
    if (!session.ParseValue(pos[old_at], &old))
      return Fatal(pos[old_at] + ": not a valid old SHA1");
    c.expected = old;
  }
  session.Add(std::move(c));
  Status s = session.Commit();
  return s.ok() ? kExitOk : Fatal(s.message());
}

}  // namespace reftab::cli

// reftab refs create | update | delete | rename: git 2.55's one-ref writers, each a single
// ref transaction with git's rules (store/git/refs/ref_transaction.h; rename:
// store/git/refs/ref_rename.h). Values are revisions as update-ref reads them
// (cli/revision_arg.h). As git: a wrong operand count prints "usage: <what is needed>" (exit
// 129), a value that names nothing or an empty --message dies (128), a refused update is
// "error: ..." (exit 1). create and update word it as git's update_ref() ("update_ref
// failed for ref '<ref>': ..."), delete and rename print the reason alone.
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/revision_arg.h"
#include "cli/stack_access.h"
#include "store/git/refs/ref_rename.h"
#include "store/git/refs/ref_transaction.h"

namespace reftab::cli {
namespace {

struct WriteArgs {
  std::optional<std::string> message;
  bool no_deref = false, create_reflog = false;
  Args pos;
};

// git's options of the four subcommands, in its order: --message, then --no-deref and
// --create-reflog where the subcommand has them.
GitUsage WriteUsage(std::string_view line, bool deref, bool create_reflog, WriteArgs* o) {
  GitUsage u;
  u.lines = {line};
  u.options.push_back(StringOption(0, "message", "reason", "reason of the update", &o->message));
  if (deref) {
    u.options.push_back(
        FlagOption(0, "no-deref", "update <refname> not the one it points to", &o->no_deref));
  }
  if (create_reflog) {
    u.options.push_back(FlagOption(0, "create-reflog", "create a reflog", &o->create_reflog));
  }
  return u;
}

// Parses the options; nullopt to go on, else the exit status. `min`..`max` operands, else
// git's usage(`need`).
std::optional<int> Parse(const Args& args, const GitUsage& usage, WriteArgs* o, size_t min,
                         size_t max, std::string_view need) {
  if (auto exit = ParseGitOptions(args, usage, &o->pos)) return exit;
  if (o->pos.size() < min || o->pos.size() > max) return GitUsageMessage(need);
  if (o->message && o->message->empty()) {
    return GitDie("refusing to perform update with empty message");
  }
  return std::nullopt;
}

unsigned Flags(const WriteArgs& o) {
  return (o.no_deref ? unsigned(kGitRefNoDeref) : 0u) |
         (o.create_reflog ? unsigned(kGitRefForceCreateReflog) : 0u);
}

// Resolves a value operand; nullopt when it names an object, else the exit status after
// git's "fatal: <what>: '<arg>'".
std::optional<int> Value(Store& store, const std::string& arg, std::string_view what,
                         ObjectId* id) {
  bool found = false;
  if (Status s = ResolveRevisionArg(store, arg, id, &found); !s.ok()) return GitDie(s.message());
  if (!found) return GitDie(std::string(what) + ": '" + arg + "'");
  return std::nullopt;
}

// One update in its own transaction, failing as git's update_ref() fails.
int UpdateRef(Store& store, const std::string& ref, const ObjectId& new_id,
              const std::optional<RefValue>& old, const WriteArgs& o) {
  GitRefTransaction tx(&store);
  Status s = tx.Update(ref, RefValue::Id(new_id), old, Flags(o), o.message.value_or(""));
  if (s.ok()) s = tx.Commit();
  if (s.ok()) return kExitOk;
  return GitError("update_ref failed for ref '" + ref + "': " + s.message());
}

}  // namespace

int CmdRefsCreate(const GlobalOptions& g, const Args& args) {
  WriteArgs o;
  const GitUsage usage = WriteUsage(
      "reftab refs create [--message=<reason>] [--no-deref] [--create-reflog] <ref> "
      "<new-value>",
      true, true, &o);
  if (auto exit = Parse(args, usage, &o, 2, 2, "create requires reference name and an object ID"))
    return *exit;
  auto opened = OpenStore(g);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  ObjectId new_id{};
  if (auto exit = Value(store, o.pos[1], "invalid object ID", &new_id)) return *exit;
  if (IsZeroId(new_id, store.hash_size())) {
    return GitDie("cannot create reference with null new object ID");
  }
  return UpdateRef(store, o.pos[0], new_id, RefValue::Absent(), o);
}

int CmdRefsUpdate(const GlobalOptions& g, const Args& args) {
  WriteArgs o;
  const GitUsage usage = WriteUsage(
      "reftab refs update [--message=<reason>] [--no-deref] [--create-reflog] <ref> "
      "<new-value> [<old-value>]",
      true, true, &o);
  if (auto exit = Parse(args, usage, &o, 2, 3,
                        "update requires reference name, new value and an optional old value"))
    return *exit;
  auto opened = OpenStore(g);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  ObjectId new_id{};
  if (auto exit = Value(store, o.pos[1], "invalid new object ID", &new_id)) return *exit;
  std::optional<RefValue> old;
  if (o.pos.size() == 3) {
    ObjectId old_id{};
    if (auto exit = Value(store, o.pos[2], "invalid old object ID", &old_id)) return *exit;
    old = RefValue::Id(old_id);  // zeros: must not exist
  }
  return UpdateRef(store, o.pos[0], new_id, old, o);
}

int CmdRefsDelete(const GlobalOptions& g, const Args& args) {
  WriteArgs o;
  const GitUsage usage = WriteUsage(
      "reftab refs delete [--message=<reason>] [--no-deref] <ref> [<old-value>]", true, false, &o);
  if (auto exit = Parse(args, usage, &o, 1, 2,
                        "delete requires reference name and an optional old object ID"))
    return *exit;
  auto opened = OpenStore(g);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  std::optional<RefValue> old;
  if (o.pos.size() == 2) {
    ObjectId old_id{};
    if (auto exit = Value(store, o.pos[1], "invalid old object ID", &old_id)) return *exit;
    if (IsZeroId(old_id, store.hash_size())) {
      return GitDie("cannot delete reference with null old object ID");
    }
    old = RefValue::Id(old_id);
  }
  GitRefTransaction tx(&store);
  Status s = tx.Delete(o.pos[0], old, Flags(o), o.message.value_or(""));
  if (s.ok()) s = tx.Commit();
  return s.ok() ? kExitOk : GitError(s.message());
}

int CmdRefsRename(const GlobalOptions& g, const Args& args) {
  WriteArgs o;
  const GitUsage usage =
      WriteUsage("reftab refs rename [--message=<reason>] <old-ref> <new-ref>", false, false, &o);
  if (auto exit = Parse(args, usage, &o, 2, 2, "rename requires old and new reference name"))
    return *exit;
  auto opened = OpenStore(g);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  if (Status s = CheckRenameRef(store, o.pos[0], o.pos[1]); !s.ok()) return GitDie(s.message());
  Status s = RenameRef(store, o.pos[0], o.pos[1], o.message.value_or(""));
  return s.ok() ? kExitOk : GitError(s.message());
}

}  // namespace reftab::cli

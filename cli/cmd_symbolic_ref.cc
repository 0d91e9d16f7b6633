// reftab symbolic-ref [-m <reason>] <name> <ref>
// reftab symbolic-ref [-q] [--short] [--no-recurse] <name>
// reftab symbolic-ref --delete [-q] <name>
// git's symbolic-ref on the git ref store: reads where a symref points (following a chain
// unless --no-recurse), sets one (with a reflog entry where git writes one), or deletes one.
// Messages and exit statuses are git's: "fatal: ref X is not a symbolic ref" (128; 1 with
// -q), "fatal: No such ref: X", "fatal: Refusing to point HEAD outside of refs/", and
// "error: <why>" (1) when the update itself fails.
#include <cstdio>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/stack_access.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {
namespace {

struct SymrefOptions {
  bool quiet = false;
  bool del = false;
  bool shorten = false;
  bool recurse = true;
  std::optional<std::string> message;
};

GitUsage SymbolicRefUsage(SymrefOptions* o) {
  GitUsage u;
  u.lines = {"reftab symbolic-ref [-m <reason>] <name> <ref>",
             "reftab symbolic-ref [-q] [--short] [--no-recurse] <name>",
             "reftab symbolic-ref --delete [-q] <name>"};
  u.options = {
      FlagOption('q', "quiet", "suppress error message for non-symbolic (detached) refs",
                 &o->quiet),
      FlagOption('d', "delete", "delete symbolic ref", &o->del),
      FlagOption(0, "short", "shorten ref output", &o->shorten),
      FlagOption(0, "recurse", "recursively dereference (default)", &o->recurse),
  };
  u.options.push_back(StringOption('m', "", "reason", "reason of the update", &o->message));
  return u;
}

// git's check_symref: 0 when `name` is a symref (printing its target if `print`), 1 when it
// is not and `quiet`; otherwise dies.
int CheckSymref(Store& store, const std::string& name, bool quiet, bool shorten, bool recurse,
                bool print) {
  ResolvedRef r;
  Status s = ResolveRefAsGit(store, name, recurse ? kResolveDefault : kResolveNoRecurse, &r);
  if (!s.ok()) return GitDie(s.message());
  if (!r.resolved) return GitDie("No such ref: " + name);
  if (!r.through_symref) {
    if (quiet) return 1;
    return GitDie("ref " + name + " is not a symbolic ref");
  }
  if (print) {
    std::string shown = r.name;
    if (shorten) {
      s = ShortenRefname(store, r.name, /*strict=*/false, &shown);
      if (!s.ok()) return GitDie(s.message());
    }
    std::printf("%s\n", shown.c_str());
  }
  return 0;
}

int DeleteSymref(Store& store, const std::string& name) {
  int checked = CheckSymref(store, name, true, false, false, false);
  if (checked > 1) return checked;  // it died already ("No such ref: ...")
  if (checked != 0) return GitDie("Cannot delete " + name + ", not a symbolic ref");
  if (name == "HEAD") return GitDie("deleting '" + name + "' is not allowed");
  GitRefTransaction tx(&store);
  Status s = tx.Delete(name, std::nullopt, kGitRefNoDeref);
  if (s.ok()) s = tx.Commit();
  return s.ok() ? kExitOk : GitError(s.message());
}

int SetSymref(Store& store, const std::string& name, const std::string& target,
              const std::optional<std::string>& message) {
  if (name == "HEAD" && target.rfind("refs/", 0) != 0) {
    return GitDie("Refusing to point HEAD outside of refs/");
  }
  if (!IsValidRefname(target, kRefnameAllowOneLevel)) {
    return GitDie("Refusing to set '" + name + "' to invalid ref '" + target + "'");
  }
  GitRefTransaction tx(&store);
  Status s =
      tx.Update(name, RefValue::Symref(target), std::nullopt, kGitRefNoDeref, message.value_or(""));
  if (s.ok()) s = tx.Commit();
  return s.ok() ? kExitOk : GitError(s.message());
}

}  // namespace

int CmdSymbolicRef(const GlobalOptions& g, const Args& args) {
  SymrefOptions o;
  GitUsage usage = SymbolicRefUsage(&o);
  Args pos;
  if (auto exit = ParseGitOptions(args, usage, &pos)) return *exit;
  if (o.message && o.message->empty()) {
    return GitDie("Refusing to perform update with empty message");
  }
  if (o.del ? pos.size() != 1 : pos.empty() || pos.size() > 2) return GitUsageError(usage);
  auto opened = OpenStore(
      g, pos.size() == 1 && !o.del ? GitRepoAccess::kReadOnly : GitRepoAccess::kReadWrite);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  if (o.del) return DeleteSymref(store, pos[0]);
  if (pos.size() == 1) return CheckSymref(store, pos[0], o.quiet, o.shorten, o.recurse, true);
  return SetSymref(store, pos[0], pos[1], o.message);
}

}  // namespace reftab::cli

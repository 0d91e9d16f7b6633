// reftab refs <subcommand>: git's `refs` family on the git ref store.
//   refs exists <ref>     exit 0 when the ref exists (a symref counts, even dangling), 2 with
//                         "error: reference does not exist", 1 on an error reading it
//   refs optimize [...]   pack-refs (cli/cmd_pack_refs.cc)
//   refs verify [--strict] [--verbose]   git's checks (cli/cmd_verify.cc)
//   refs list [...]       for-each-ref
//   refs migrate [...]    to the other ref storage (cli/cmd_refs_migrate.cc)
//   refs create|update|delete|rename [...]   one-ref writers (cli/cmd_refs_write.cc)
// Usage errors as git's parse-options: "error: need a subcommand" / "error: unknown
// subcommand: `x'" and the usage, exit 129.
#include <cstdio>

#include "cli/commands.h"
#include "cli/for_each_ref.h"
#include "cli/git_options.h"
#include "cli/stack_access.h"

namespace reftab::cli {
namespace {

constexpr std::string_view kExistsUsage = "reftab refs exists <ref>";
constexpr std::string_view kOptimizeUsage =
    "reftab refs optimize [--all] [--no-prune] [--auto] [--include <pattern>] [--exclude "
    "<pattern>]";

int RefsExists(const GlobalOptions& g, const Args& args) {
  GitUsage usage;
  usage.lines = {kExistsUsage};
  Args pos;
  if (auto exit = ParseGitOptions(args, usage, &pos)) return *exit;
  if (pos.size() != 1) return GitDie("'git refs exists' requires a reference");
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return GitDie(opened.status().message());
  RefRecord rec;
  bool found = false;
  // The name as given: no format check and no symref following, as git's raw read.
  Status s = (*opened)->ReadRef(pos[0], &rec, &found);
  if (!s.ok()) return GitError("failed to look up reference: " + s.message());
  if (!found) return GitError("reference does not exist"), 2;
  return kExitOk;
}

int RefsOptimize(const GlobalOptions& g, const Args& args) {
  return PackRefsCore(g, args, kOptimizeUsage);
}

struct Subcommand {
  const char* name;
  int (*run)(const GlobalOptions&, const Args&);
};

constexpr Subcommand kSubcommands[] = {
    {"verify", RefsVerify},     {"list", CmdRefsList},       {"exists", RefsExists},
    {"optimize", RefsOptimize}, {"migrate", CmdRefsMigrate}, {"create", CmdRefsCreate},
    {"delete", CmdRefsDelete},  {"update", CmdRefsUpdate},   {"rename", CmdRefsRename},
};

GitUsage RefsUsage() {
  static const std::string list = Synopsis("refs list");
  GitUsage u;
  // git's order.
  u.lines = {"reftab refs migrate --ref-format=<format> [--no-reflog] [--dry-run]",
             "reftab refs verify [--strict] [--verbose]",
             list,
             kExistsUsage,
             kOptimizeUsage,
             "reftab refs create [--message=<reason>] [--no-deref] [--create-reflog] <ref> "
             "<new-value>",
             "reftab refs delete [--message=<reason>] [--no-deref] <ref> [<old-value>]",
             "reftab refs update [--message=<reason>] [--no-deref] [--create-reflog] <ref> "
             "<new-value> [<old-value>]",
             "reftab refs rename [--message=<reason>] <old-ref> <new-ref>"};
  return u;
}

}  // namespace

int CmdRefs(const GlobalOptions& g, const Args& args) {
  GitUsage usage = RefsUsage();
  if (args.empty()) return GitError("need a subcommand"), GitUsageError(usage);
  if (args[0] == "-h" || args[0] == "--help") return PrintGitUsage(usage, stdout), kExitOk;
  Args rest(args.begin() + 1, args.end());
  for (const Subcommand& c : kSubcommands) {
    if (args[0] == c.name) return c.run(g, rest);
  }
  if (!args[0].empty() && args[0][0] == '-') {
    Args none;
    if (auto exit = ParseGitOptions({args[0]}, usage, &none)) return *exit;
    return GitError("need a subcommand"), GitUsageError(usage);
  }
  GitError("unknown subcommand: `" + args[0] + "'");
  return GitUsageError(usage);
}

}  // namespace reftab::cli

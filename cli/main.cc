// reftab: the command-line tool. Parses global options, picks the subcommand, and maps its
// result to an exit status. No logic lives here.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.h"

namespace {

constexpr const char kHelp[] =
    "usage: reftab [--stack DIR | --git-dir GITDIR] <command> [<args>]\n"
    "\n"
    "Commands:\n"
    "  dump [--format=jsonl|git] [--blocks] [FILE.ref]\n"
    "                    print a table's records (or, without FILE, the merged stack)\n"
    "  write-table [--block-size N] [--restart-interval N] [--no-index-objects] [--unpadded]\n"
    "              [--hash sha1|sha256] [--min-update-index N] [--max-update-index N] OUT.ref\n"
    "                    write one table from the jsonl of `dump` on standard input\n"
    "  show-ref [--head] [-d] [-s] [-q] [--heads] [--tags] [--verify REF...] [--exists REF]\n"
    "           [PATTERN...]   list refs like `git show-ref`\n"
    "  update-ref [-m MSG] [--no-deref] [--create-reflog] (REF NEW [OLD] | -d REF [OLD] |\n"
    "             --stdin [-z])   change refs like `git update-ref`, atomically\n"
    "  compact [--auto]  merge the stack's tables (all, or git's geometric auto-compaction)\n"
    "  for-each-ref [--format=FORMAT] [PATTERN...]\n"
    "                    list refs like `git for-each-ref` (%(refname), %(objectname), ...)\n"
    "  refs migrate --ref-format=reftable|files [--dry-run] [--no-reflog] [--skip-unmigratable]\n"
    "                    move refs and reflogs to the other storage, as `git refs migrate`\n"
    "  demo [--refs N] [--dir DIR] [--keep]\n"
    "                    write 100,000 refs, look some up, list, and time it\n"
    "\n"
    "Without --stack or --git-dir the repository is found from the current directory.\n"
    "update-ref applies git's rules (ref names, conflicts, symrefs, reflogs); with --stack\n"
    "(no git config, no object database) it applies them with git's defaults and takes\n"
    "object ids on trust.\n"
    "Exit status:\n"
    "  dump, write-table, compact, verify, demo, for-each-ref, show-ref:\n"
    "                    0 ok, 1 bad input or I/O error, 2 usage error\n"
    "  update-ref        as git's: 0 ok, 128 after \"fatal: ...\" (any failure, including\n"
    "                    opening the store), 129 usage error, 1 when -d fails (\"error: ...\")\n"
    "  show-ref          also 1 when nothing matches, 2 when --exists finds nothing and 128\n"
    "                    for --verify of a missing ref (\"fatal: ...\"), as git's\n"
    "  for-each-ref      also 128 for an unknown field name (\"fatal: ...\"), as git's\n"
    "  refs migrate      as git's: 0 ok, 255 after \"error: ...\", 2 usage error\n";

struct Command {
  const char* name;
  int (*run)(const reftab::cli::GlobalOptions&, const reftab::cli::Args&);
};

constexpr Command kCommands[] = {
    {"dump", reftab::cli::CmdDump},
    {"write-table", reftab::cli::CmdWriteTable},
    {"show-ref", reftab::cli::CmdShowRef},
    {"update-ref", reftab::cli::CmdUpdateRef},
    {"compact", reftab::cli::CmdCompact},
    {"verify", reftab::cli::CmdVerify},
    {"for-each-ref", reftab::cli::CmdForEachRef},
    {"demo", reftab::cli::CmdDemo},
    {"refs", reftab::cli::CmdRefs},
};

}  // namespace

int main(int argc, char** argv) {
  using namespace reftab::cli;
  GlobalOptions g;
  Args rest(argv + 1, argv + argc);
  size_t i = 0;
  for (; i < rest.size(); ++i) {
    std::string v;
    if (TakeValue(rest, &i, "--stack", &v)) {
      g.stack_dir = v;
    } else if (TakeValue(rest, &i, "--git-dir", &v)) {
      g.git_dir = v;
    } else if (rest[i] == "-h" || rest[i] == "--help" || rest[i] == "help") {
      std::fputs(kHelp, stdout);
      return kExitOk;
    } else if (rest[i] == "--version") {
      std::puts("reftab 0.1.0");
      return kExitOk;
    } else {
      break;
    }
  }
  if (i >= rest.size()) {
    std::fputs(kHelp, stderr);
    return kExitUsage;
  }
  if (!g.stack_dir.empty() && !g.git_dir.empty()) {
    return Usage("", "--stack and --git-dir cannot be combined");
  }
  const std::string& name = rest[i];
  Args args(rest.begin() + long(i) + 1, rest.end());
  for (const Command& c : kCommands) {
    if (name == c.name) return c.run(g, args);
  }
  std::fprintf(stderr, "reftab: unknown command '%s'\n%s", name.c_str(), kHelp);
  return kExitUsage;
}

// reftab: the command-line tool. Parses global options, picks the subcommand, and maps its
// result to an exit status. No logic lives here.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/similar_commands.h"
#include "store/git/config/config.h"

namespace {

#define REFTAB_USAGE_LINE \
  "usage: reftab [-C DIR] [-c NAME=VALUE] [--stack DIR | --git-dir GITDIR] <command> [<args>]\n"
constexpr const char kUsageLine[] = REFTAB_USAGE_LINE;
constexpr const char kHelp[] = REFTAB_USAGE_LINE
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
    "             --stdin [-z] [--batch-updates])   change refs like `git update-ref`\n"
    "  compact [--auto]  merge the stack's tables (all, or git's geometric auto-compaction)\n"
    "  for-each-ref [--format=FORMAT] [PATTERN...]\n"
    "                    list refs like `git for-each-ref` (%(refname), %(objectname), ...)\n"
    "                    git's options and format language: --sort, --count, --exclude,\n"
    "                    --points-at, --include-root-refs, --stdin, --shell/--perl/..., --color,\n"
    "                    %(if)/%(align)/%(color), upstreams, object atoms; --format=json\n"
    "  refs list ...     the same as for-each-ref (git 2.55's name for it)\n"
    "  reflog [show|list|exists|delete|expire] ...\n"
    "                    read and prune reflogs like `git reflog` (see reftab reflog -h)\n"
    "  refs migrate --ref-format=reftable|files [--dry-run] [--no-reflog] [--skip-unmigratable]\n"
    "                    move refs and reflogs to the other storage, as `git refs migrate`\n"
    "  demo [--refs N] [--dir DIR] [--keep]\n"
    "                    write 100,000 refs, look some up, list, and time it\n"
    "  show-ref ... [--abbrev[=N]] [--hash[=N]] [--exclude-existing[=PATTERN]] [--format=json]\n"
    "                    every option of git's show-ref; json: one object per ref\n"
    "  symbolic-ref [-q] [--short] [--no-recurse] NAME | [-m REASON] NAME REF | -d NAME\n"
    "                    read, set or delete a symref like `git symbolic-ref`\n"
    "  refs exists REF | refs verify [--strict] [--verbose] | refs optimize [...] |\n"
    "  refs list [...]   git's `refs` subcommands (optimize: pack-refs, list: for-each-ref)\n"
    "  pack-refs [--all] [--auto]\n"
    "                    git's pack-refs: compact (all tables, or --auto geometric)\n"
    "  rev-parse [--verify] [-q] [--symbolic-full-name | --abbrev-ref[=strict|loose]] NAME...\n"
    "                    resolve ref names (short names by git's rules) or full hex ids;\n"
    "                    no revision syntax (~, ^, @{...}, abbreviated ids, ranges)\n"
    "  stats [--format=json]\n"
    "                    tables, sizes, records by type, tombstones, block fill, index\n"
    "                    levels, obj index, whether auto-compaction is due\n"
    "  compact, verify, pack-refs, refs verify/optimize: --progress / --no-progress\n"
    "                    (a progress line on a terminal's stderr, as git draws it)\n"
    "\n"
    "Without --stack or --git-dir the repository is found from the current directory (or\n"
    "from DIR with -C, as git's -C; relative paths then start there).\n"
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
    "  symbolic-ref, refs, pack-refs, rev-parse, show-ref options:\n"
    "                    as git's (128 \"fatal: ...\", 129 usage, refs exists 2 when missing,\n"
    "                    refs verify 255 when it finds an error)\n"
    "  refs migrate      as git's: 0 ok, 255 after \"error: ...\", 2 usage error\n";

struct Command {
  const char* name;
  int (*run)(const reftab::cli::GlobalOptions&, const reftab::cli::Args&);
  // The command's usage (cli/commands.h), for `help <command>` and `<command> -h`; null for
  // a command whose option parser answers -h itself.
  const char* const* usage = nullptr;
};

constexpr Command kCommands[] = {
    {"dump", reftab::cli::CmdDump, &reftab::cli::kDumpUsage},
    {"write-table", reftab::cli::CmdWriteTable, &reftab::cli::kWriteTableUsage},
    {"show-ref", reftab::cli::CmdShowRef, nullptr},
    {"update-ref", reftab::cli::CmdUpdateRef, nullptr},
    {"compact", reftab::cli::CmdCompact, &reftab::cli::kCompactUsage},
    {"verify", reftab::cli::CmdVerify, &reftab::cli::kVerifyUsage},
    {"for-each-ref", reftab::cli::CmdForEachRef, nullptr},
    {"demo", reftab::cli::CmdDemo, &reftab::cli::kDemoUsage},
    {"reflog", reftab::cli::CmdReflog, &reftab::cli::kReflogUsage},
    {"symbolic-ref", reftab::cli::CmdSymbolicRef, nullptr},
    {"refs", reftab::cli::CmdRefs, nullptr},
    {"pack-refs", reftab::cli::CmdPackRefs, nullptr},
    {"rev-parse", reftab::cli::CmdRevParse, &reftab::cli::kRevParseUsage},
    {"stats", reftab::cli::CmdStats, &reftab::cli::kStatsUsage},
};

const Command* FindCommand(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// `reftab help [<command>]`: the overview, or one command's usage, on stdout. `help
// --commands` lists the command names (for shell completion).
int Help(const reftab::cli::Args& rest, size_t i) {
  if (i + 1 >= rest.size()) {
    std::fputs(kHelp, stdout);
    return reftab::cli::kExitOk;
  }
  const std::string& name = rest[i + 1];
  if (name == "--commands") {
    for (const Command& c : kCommands) std::puts(c.name);
    return reftab::cli::kExitOk;
  }
  const Command* c = FindCommand(name);
  if (!c) {
    std::fprintf(stderr, "reftab: no help for unknown command '%s'\n", name.c_str());
    return reftab::cli::kExitUsage;
  }
  if (c->usage) {
    std::fputs(*c->usage, stdout);
    return reftab::cli::kExitOk;
  }
  // Commands parsed with git's option parser (cli/git_options.h) print their own usage for
  // -h, on stdout with exit 0, as git 2.55.
  return c->run(reftab::cli::GlobalOptions{}, {"-h"});
}

// A command that does not exist: git's words and status, with git's suggestions.
int UnknownCommand(const std::string& name) {
  std::fprintf(stderr, "reftab: '%s' is not a reftab command. See 'reftab --help'.\n",
               name.c_str());
  std::vector<std::string_view> names = {"help"};
  for (const Command& c : kCommands) names.push_back(c.name);
  std::vector<std::string> similar = reftab::cli::SimilarCommands(name, names);
  if (!similar.empty()) {
    std::fputs(similar.size() == 1 ? "\nThe most similar command is\n"
                                   : "\nThe most similar commands are\n",
               stderr);
    for (const std::string& s : similar) std::fprintf(stderr, "\t%s\n", s.c_str());
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace reftab::cli;
  GlobalOptions g;
  Args rest(argv + 1, argv + argc);
  size_t i = 0;
  for (; i < rest.size(); ++i) {
    std::string v;
    if (rest[i] == "-C") {
      // git's -C <path>: work as if started in <path> (several accumulate; "" is no change).
      if (i + 1 >= rest.size()) {
        std::fputs("no directory given for '-C' option\n", stderr);
        std::fputs(kUsageLine, stderr);
        return 129;  // git's status for a usage error
      }
      const std::string& dir = rest[++i];
      if (!dir.empty() && chdir(dir.c_str()) != 0) {
        return GitDie("cannot change to '" + dir + "': " + std::strerror(errno));
      }
    } else if (rest[i] == "-c") {
      // git's -c name=value: the setting for this command (and the git it may run), passed
      // as git passes it, through GIT_CONFIG_PARAMETERS.
      if (i + 1 >= rest.size()) {
        std::fputs("-c expects a configuration string\n", stderr);
        std::fputs(kUsageLine, stderr);
        return 129;
      }
      const char* old = std::getenv("GIT_CONFIG_PARAMETERS");
      setenv("GIT_CONFIG_PARAMETERS", reftab::AddConfigParameter(old ? old : "", rest[++i]).c_str(),
             1);
    } else if ((rest[i] == "--stack" || rest[i] == "--git-dir") && i + 1 >= rest.size()) {
      std::fprintf(stderr, "no directory given for '%s' option\n", rest[i].c_str());
      std::fputs(kUsageLine, stderr);
      return 129;
    } else if (TakeValue(rest, &i, "--stack", &v)) {
      g.stack_dir = v;
    } else if (TakeValue(rest, &i, "--git-dir", &v)) {
      g.git_dir = v;
    } else if (rest[i] == "-h" || rest[i] == "--help" || rest[i] == "help") {
      return Help(rest, i);
    } else if (rest[i] == "--version") {
      std::puts("reftab version " REFTAB_VERSION_STRING);
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
  if (const Command* c = FindCommand(name)) {
    // git prints a command's usage for -h on stdout and exits 0 (2.55).
    // Only as the sole argument, as git's parse-options: `show-ref -h --tags` is --head.
    if (c->usage && args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
      std::fputs(*c->usage, stdout);
      return kExitOk;
    }
    // `git <command> --help` shows the command's manual; ours shows its usage.
    if (args.size() == 1 && args[0] == "--help") return c->run(g, {"-h"});
    return c->run(g, args);
  }
  return UnknownCommand(name);
}

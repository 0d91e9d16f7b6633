// reftab: the command-line tool. Parses global options, picks the subcommand, and maps its
// result to an exit status. No logic lives here.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/pager.h"
#include "cli/ref_format.h"
#include "cli/similar_commands.h"
#include "cli/stack_access.h"
#include "store/git/config/config.h"

namespace {

#define REFTAB_USAGE_LINE                                                     \
  "usage: reftab [-C DIR] [-c NAME=VALUE] [--stack DIR | --git-dir GITDIR]\n" \
  "              [-p | --paginate | -P | --no-pager] <command> [<args>]\n"
constexpr const char kUsageLine[] = REFTAB_USAGE_LINE;
// How `reftab --help` groups the commands: git's groups (`git help -a`) for the commands
// git has, then reftab's own.
enum class Group { kManipulators, kInterrogators, kLowLevelManipulators, kOwn };

struct Command {
  const char* name;
  int (*run)(const reftab::cli::GlobalOptions&, const reftab::cli::Args&);
  // The command's usage (cli/commands.h), for `help <command>` and `<command> -h`; null for
  // a command whose option parser answers -h itself.
  const char* const* usage;
  Group group;
  const char* summary;  // one line for `reftab --help`; git's own for git's commands
  // Whether pager.<name> is read (git reads it for the commands it runs in a repository;
  // rev-parse runs before git's setup and only -p pages it).
  bool reads_pager_config = true;
};

constexpr Command kCommands[] = {
    {"pack-refs", reftab::cli::CmdPackRefs, nullptr, Group::kManipulators,
     "Pack heads and tags for efficient repository access"},
    {"reflog", reftab::cli::CmdReflog, &reftab::cli::kReflogUsage, Group::kManipulators,
     "Manage reflog information"},
    {"refs", reftab::cli::CmdRefs, nullptr, Group::kManipulators,
     "Low-level access to refs (list, exists, verify, optimize, migrate)"},
    {"for-each-ref", reftab::cli::CmdForEachRef, nullptr, Group::kInterrogators,
     "Output information on each ref"},
    {"rev-parse", reftab::cli::CmdRevParse, &reftab::cli::kRevParseUsage, Group::kInterrogators,
     "Pick out and massage parameters (ref names and full ids)", false},
    {"show-ref", reftab::cli::CmdShowRef, nullptr, Group::kInterrogators,
     "List references in a local repository"},
    {"symbolic-ref", reftab::cli::CmdSymbolicRef, nullptr, Group::kLowLevelManipulators,
     "Read, modify and delete symbolic refs"},
    {"update-ref", reftab::cli::CmdUpdateRef, nullptr, Group::kLowLevelManipulators,
     "Update the object name stored in a ref safely"},
    {"compact", reftab::cli::CmdCompact, &reftab::cli::kCompactUsage, Group::kOwn,
     "Merge the stack's tables: all of them, or git's geometric auto-compaction"},
    {"demo", reftab::cli::CmdDemo, &reftab::cli::kDemoUsage, Group::kOwn,
     "Write 100,000 refs, look some up, list them, and time it"},
    {"dump", reftab::cli::CmdDump, &reftab::cli::kDumpUsage, Group::kOwn,
     "Print a table's records, or the merged stack's (jsonl, or as git's reader)"},
    {"stats", reftab::cli::CmdStats, &reftab::cli::kStatsUsage, Group::kOwn,
     "Tables, sizes, records by type, tombstones, index levels, pending compaction"},
    {"verify", reftab::cli::CmdVerify, &reftab::cli::kVerifyUsage, Group::kOwn,
     "Check every table and the stack deeply (git's rules too in a repository)"},
    {"write-table", reftab::cli::CmdWriteTable, &reftab::cli::kWriteTableUsage, Group::kOwn,
     "Write one table from the jsonl of dump"},
};

// The overview: the usage line, then each command once, by group.
void PrintOverview(FILE* out) {
  std::fputs(kUsageLine, out);
  constexpr std::pair<Group, const char*> kGroups[] = {
      {Group::kManipulators, "Ancillary Commands / Manipulators (as git's)"},
      {Group::kInterrogators, "Low-level Commands / Interrogators (as git's)"},
      {Group::kLowLevelManipulators, "Low-level Commands / Manipulators (as git's)"},
      {Group::kOwn, "reftab's own commands"},
  };
  for (const auto& [group, title] : kGroups) {
    std::fprintf(out, "\n%s\n", title);
    for (const Command& c : kCommands) {
      if (c.group == group) std::fprintf(out, "   %-15s%s\n", c.name, c.summary);
    }
  }
  std::fputs(
      "\n"
      "Without --stack or --git-dir, the repository is found from the current directory (or\n"
      "from DIR with -C), as git finds it. With --stack, git's rules apply with git's defaults\n"
      "and object ids are taken on trust (there is no object database).\n"
      "\n"
      "'reftab help <command>' or 'reftab <command> -h' shows a command's usage;\n"
      "'man reftab' describes every option and exit status.\n",
      out);
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// `reftab help [<command>]`: the overview, or one command's usage, on stdout. `help
// --commands` and `help --atoms` list the command names and for-each-ref's atoms (for shell
// completion).
int Help(const reftab::cli::Args& rest, size_t i) {
  if (i + 1 >= rest.size()) {
    PrintOverview(stdout);
    return reftab::cli::kExitOk;
  }
  const std::string& name = rest[i + 1];
  if (name == "--commands") {
    for (const Command& c : kCommands) std::puts(c.name);
    return reftab::cli::kExitOk;
  }
  if (name == "--atoms") {  // for-each-ref's format atoms and sort keys
    for (std::string_view a : reftab::cli::AtomNames()) {
      std::printf("%.*s\n", int(a.size()), a.data());
    }
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

// A global option used wrongly: `line` and the usage line on stderr, git's status 129.
int GlobalUsageError(const std::string& line) {
  std::fprintf(stderr, "%s\n%s", line.c_str(), kUsageLine);
  return reftab::cli::kExitUsage;
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
    const bool last = i + 1 >= rest.size();
    if (last && (rest[i] == "-C" || rest[i] == "--stack" || rest[i] == "--git-dir")) {
      return GlobalUsageError("no directory given for '" + rest[i] + "' option");
    }
    if (last && rest[i] == "-c") return GlobalUsageError("-c expects a configuration string");
    if (rest[i] == "-C") {
      // git's -C <path>: work as if started in <path> (several accumulate; "" is no change).
      const std::string& dir = rest[++i];
      if (!dir.empty() && chdir(dir.c_str()) != 0) {
        return GitDie("cannot change to '" + dir + "': " + std::strerror(errno));
      }
    } else if (rest[i] == "-c") {
      // git's -c name=value: the setting for this command (and the git it may run), passed
      // as git passes it, through GIT_CONFIG_PARAMETERS.
      const char* old = std::getenv("GIT_CONFIG_PARAMETERS");
      setenv("GIT_CONFIG_PARAMETERS", reftab::AddConfigParameter(old ? old : "", rest[++i]).c_str(),
             1);
    } else if (TakeValue(rest, &i, "--stack", &v)) {
      g.stack_dir = v;
    } else if (TakeValue(rest, &i, "--git-dir", &v)) {
      g.git_dir = v;
    } else if (rest[i] == "-p" || rest[i] == "--paginate") {
      g.paginate = true;
    } else if (rest[i] == "-P" || rest[i] == "--no-pager") {
      g.paginate = false;
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
    PrintOverview(stderr);
    return kExitUsage;
  }
  if (!g.stack_dir.empty() && !g.git_dir.empty()) {
    return GlobalUsageError("error: --stack and --git-dir cannot be combined");
  }
  const std::string& name = rest[i];
  Args args(rest.begin() + long(i) + 1, rest.end());
  const Command* c = FindCommand(name);
  if (!c) return UnknownCommand(name);
  // A command's help: -h alone (`show-ref -h --tags` is --head, as in git's parse-options).
  const bool help = args.size() == 1 && (args[0] == "-h" || args[0] == "--help");
  // The pager, as git decides it before running the command (cli/pager.h). Declared before
  // anything prints: its destructor waits for the pager after the output.
  Pager pager;
  g.pager = &pager;
  // The configuration as git's setup reads it. Where setup would die (no repository, a bad
  // configuration) nothing pages and the command says why; git's setup is lenient for a
  // command's help and does not run before rev-parse, which page with what there is.
  const bool lenient = help || !c->reads_pager_config;
  auto config = [&g, lenient]() -> std::optional<reftab::GitConfig> {
    reftab::Result<reftab::GitConfig> read = SelectedConfig(g);
    if (read.ok()) return std::move(*read);
    if (lenient) return reftab::GitConfig();
    return std::nullopt;
  };
  if (reftab::Status s =
          StartCommandPager(g.paginate, c->reads_pager_config, c->name, config, &pager);
      !s.ok()) {
    return GitDie(s.message());
  }
  if (help) {
    // git prints a command's usage for -h on stdout and exits 0 (2.55).
    if (c->usage) {
      std::fputs(*c->usage, stdout);
      return kExitOk;
    }
    // `git <command> --help` shows the command's manual; ours shows its usage.
    return c->run(g, {"-h"});
  }
  return c->run(g, args);
}

// reftab refs <subcommand> [<args>]: the `git refs` family. Each subcommand is one line of
// kSubcommands and one function in commands.h.
#include <cstdio>
#include <cstring>

#include "cli/commands.h"

namespace reftab::cli {
namespace {

struct Subcommand {
  const char* name;
  int (*run)(const GlobalOptions&, const Args&);
};

constexpr Subcommand kSubcommands[] = {
    {"migrate", CmdRefsMigrate},
};

}  // namespace

int CmdRefs(const GlobalOptions& g, const Args& args) {
  if (args.empty()) return Usage("refs", "missing subcommand");
  Args rest(args.begin() + 1, args.end());
  for (const Subcommand& s : kSubcommands) {
    if (args[0] == s.name) return s.run(g, rest);
  }
  return Usage("refs", "unknown subcommand '" + args[0] + "'");
}

}  // namespace reftab::cli

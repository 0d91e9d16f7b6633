// reftab compact [--auto] [--[no-]progress]
// Without --auto: merges every table of the stack into one, dropping tombstones and deleted
// reflog entries, then removes stray tables (git pack-refs). With --auto: git's geometric
// auto-compaction, which merges nothing when the stack is already a geometric sequence.
// Either way the stray files of killed writers are then cleaned (Stack::Clean).
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/stack_access.h"

namespace reftab::cli {

int CmdCompact(const GlobalOptions& g, const Args& args) {
  bool automatic = false;
  ProgressFlag progress_flag = ProgressFlag::kAuto;
  for (const std::string& a : args) {
    if (a == "--auto") {
      automatic = true;
    } else if (TakeProgressFlag(a, &progress_flag)) {
    } else {
      return Usage(kCompactUsage, UnknownArgument(a));
    }
  }
  auto opened = OpenStore(g);
  if (!opened.ok()) return Fail(opened.status());
  Store& store = **opened;
  TerminalProgress progress(progress_flag);
  CompactionOptions options;
  options.progress = progress.get();
  for (Stack* stack : store.stacks()) {
    // Both forms then remove what crashed writers left behind, as git's pack-refs does.
    Status s = automatic ? stack->CompactIfDue(options.progress) : stack->CompactAll(options);
    if (s.ok()) s = stack->Clean();
    if (!s.ok()) return Fail(s);
  }
  return kExitOk;
}

}  // namespace reftab::cli

// `reftab help compact` and `reftab compact -h` (cli/commands.h).
const char* const reftab::cli::kCompactUsage =
    "usage: reftab compact [--auto]\n"
    "\n"
    "    --auto                git's geometric auto-compaction instead of merging everything\n"
    "\n";

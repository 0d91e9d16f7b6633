// reftab stats: placeholder until store/stack_stats lands.
#include "cli/commands.h"

namespace reftab::cli {
int CmdStats(const GlobalOptions&, const Args&) { return Usage("stats", "not yet"); }
}  // namespace reftab::cli

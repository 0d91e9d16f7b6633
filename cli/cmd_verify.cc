// reftab verify [FILE.ref...]
// Checks tables (or, without files, every table of the selected stack) beyond what reading
// needs: block structure, key order, update index limits, lookups agreeing with scans, and
// the stack's update index ranges. Prints a summary line and any warnings; exit 1 on the
// first error.
#include <cstdio>

#include "cli/commands.h"
#include "cli/stack_access.h"
#include "store/verify.h"

namespace reftab::cli {

int CmdVerify(const GlobalOptions& g, const Args& args) {
  VerifyReport report;
  for (const std::string& a : args) {
    if (!a.empty() && a[0] == '-') return Usage("verify", "unknown option " + a);
  }
  if (args.empty()) {
    auto opened = OpenStore(g);
    if (!opened.ok()) return Fail(opened.status());
    Store& store = **opened;
    Status s = VerifyStack(store.main_stack(), &report);
    if (s.ok() && store.repo() && store.repo()->worktree_stack()) {
      s = VerifyStack(*store.repo()->worktree_stack(), &report);
    }
    if (!s.ok()) return Fail(s);
  } else {
    for (const std::string& file : args) {
      auto table = OpenTableFile(file);
      if (!table.ok()) return Fail(table.status());
      Status s = VerifyTable(**table, &report);
      if (!s.ok()) return Fail(s);
    }
  }
  for (const std::string& w : report.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::printf("ok: %llu tables, %llu blocks, %llu refs, %llu log entries\n",
              (unsigned long long)report.tables, (unsigned long long)report.blocks,
              (unsigned long long)report.refs, (unsigned long long)report.logs);
  return kExitOk;
}

}  // namespace reftab::cli

// reftab verify [--strict] [FILE.ref...]
// Checks tables (or, without files, every table of the selected stack) beyond what reading
// needs: block structure, key order, update index limits, lookups agreeing with scans, and
// the stack's update index ranges. In a git repository it then runs the git-level checks of
// store/git_verify.h (what `git refs verify` reports, in its words, and more), printing
// git's lines ("error: <ref>: <id>: <message>"); --strict counts warnings as errors, as git's.
// Prints a summary line when nothing is wrong; exit 1 on the first structural error or when
// a git-level error was found (git's `refs verify` exits 255 there).
#include <cstdio>

#include "cli/commands.h"
#include "cli/stack_access.h"
#include "store/git_verify.h"
#include "store/verify.h"

namespace reftab::cli {
namespace {

// The git-level findings on stderr; true when none is an error.
bool ReportGitFindings(GitRepo& repo, bool strict, Status* status) {
  GitVerifyReport report;
  *status = VerifyGitRepo(repo, GitVerifyOptions{strict}, &report);
  for (const GitVerifyFinding& f : report.findings) {
    std::fprintf(stderr, "%s\n", report.Line(f).c_str());
  }
  return report.errors() == 0;
}

}  // namespace

int CmdVerify(const GlobalOptions& g, const Args& args) {
  VerifyReport report;
  bool strict = false;
  Args files;
  for (const std::string& a : args) {
    if (a == "--strict") {
      strict = true;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("verify", "unknown option " + a);
    } else {
      files.push_back(a);
    }
  }
  bool clean = true;
  if (files.empty()) {
    auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
    if (!opened.ok()) return Fail(opened.status());
    Store& store = **opened;
    Status s = VerifyStack(store.main_stack(), &report);
    if (s.ok() && store.repo() && store.repo()->worktree_stack()) {
      s = VerifyStack(*store.repo()->worktree_stack(), &report);
    }
    if (!s.ok()) return Fail(s);
    // Only a git repository has git's rules; a bare --stack is a generic sorted store.
    if (store.repo()) {
      clean = ReportGitFindings(*store.repo(), strict, &s);
      if (!s.ok()) return Fail(s);
    }
  } else {
    for (const std::string& file : files) {
      auto table = OpenTableFile(file);
      if (!table.ok()) return Fail(table.status());
      Status s = VerifyTable(**table, &report);
      if (!s.ok()) return Fail(s);
    }
  }
  for (const std::string& w : report.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!clean) return kExitError;
  std::printf("ok: %llu tables, %llu blocks, %llu refs, %llu log entries\n",
              (unsigned long long)report.tables, (unsigned long long)report.blocks,
              (unsigned long long)report.refs, (unsigned long long)report.logs);
  return kExitOk;
}

}  // namespace reftab::cli

// `reftab help verify` and `reftab verify -h` (cli/commands.h).
const char* const reftab::cli::kVerifyUsage =
    "usage: reftab verify [--strict] [<file.ref>...]\n"
    "\n"
    "    --strict              count warnings as errors, as git refs verify --strict\n"
    "\n";

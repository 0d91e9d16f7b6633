// reftab verify [--strict] [--[no-]progress] [FILE.ref...]
// Checks tables (or, without files, every table of the selected stack) beyond what reading
// needs: block structure, key order, update index limits, lookups agreeing with scans, and
// the stack's update index ranges. In a git repository it then runs the git-level checks of
// store/git/verify.h (what `git refs verify` reports, in its words, and more), printing
// git's lines ("error: <ref>: <id>: <message>"); --strict counts warnings as errors, as git's.
// Prints a summary line when nothing is wrong; exit 1 on the first structural error or when
// a git-level error was found (git's `refs verify` exits 255 there).
#include <cstdio>

#include "cli/commands.h"
#include "cli/git_options.h"
#include "cli/progress.h"
#include "cli/stack_access.h"
#include "store/git/verify.h"
#include "store/verify.h"

namespace reftab::cli {
namespace {

// VerifyStack on every stack of the store, then in a git repository the git-level checks
// (a bare --stack is a generic sorted store: git's rules do not apply), whose findings go to
// stderr (only those git's `refs verify` makes, if `git_only`). Both read the refs once
// where they can (VerifyGitRepoAndTables). *clean is false when a finding is an error.
Status VerifyStore(Store& store, bool strict, bool git_only, VerifyReport* tables,
                   Progress* progress, bool* clean) {
  *clean = true;
  if (!store.repo()) {
    for (Stack* stack : store.stacks()) {
      REFTAB_RETURN_IF_ERROR(VerifyStack(*stack, tables, progress));
    }
    return Status::Ok();
  }
  GitVerifyReport report;
  REFTAB_RETURN_IF_ERROR(
      VerifyGitRepoAndTables(*store.repo(), GitVerifyOptions{strict}, tables, &report, progress));
  for (const GitVerifyFinding& f : report.findings) {
    if (git_only && !IsGitRefsVerifyCheck(f.id)) continue;
    std::fprintf(stderr, "%s\n", report.Line(f).c_str());
    if (report.IsError(f)) *clean = false;
  }
  return Status::Ok();
}

}  // namespace

int CmdVerify(const GlobalOptions& g, const Args& args) {
  VerifyReport report;
  bool strict = false;
  ProgressFlag progress_flag = ProgressFlag::kAuto;
  Args files;
  for (const std::string& a : args) {
    if (a == "--strict") {
      strict = true;
    } else if (TakeProgressFlag(a, &progress_flag)) {
    } else if (!a.empty() && a[0] == '-') {
      return Usage(kVerifyUsage, UnknownArgument(a));
    } else {
      files.push_back(a);
    }
  }
  bool clean = true;
  if (files.empty()) {
    auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
    if (!opened.ok()) return Fail(opened.status());
    TerminalProgress progress(progress_flag);
    Status s = VerifyStore(**opened, strict, /*git_only=*/false, &report, progress.get(), &clean);
    if (!s.ok()) return Fail(s);
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

namespace reftab::cli {

// `refs verify [--strict] [--verbose]`: git's command, git's output only (the findings on
// stderr, nothing on stdout), exit 255 when an error was found, as git's.
int RefsVerify(const GlobalOptions& g, const Args& args) {
  bool strict = false, verbose = false;
  ProgressFlag progress_flag = ProgressFlag::kAuto;
  GitUsage usage;
  usage.lines = {"reftab refs verify [--strict] [--verbose]"};
  usage.options = {FlagOption(0, "verbose", "be verbose", &verbose),
                   FlagOption(0, "strict", "enable strict checking", &strict)};
  usage.options.push_back(ProgressOption(&progress_flag));
  Args pos;
  if (auto exit = ParseGitOptions(args, usage, &pos)) return *exit;
  if (!pos.empty()) return GitUsageMessage("'git refs verify' takes no arguments");
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return GitDie(opened.status().message());
  Store& store = **opened;
  constexpr int kGitFsckFailed = 255;
  if (verbose) {
    std::fprintf(stderr, "Checking references consistency\n");
    for (const std::string& name : store.main_stack().names()) {
      std::fprintf(stderr, "Checking table: %s\n", name.c_str());
    }
  }
  TerminalProgress reporter(progress_flag);
  VerifyReport report;
  bool clean = true;
  Status s = VerifyStore(store, strict, /*git_only=*/true, &report, reporter.get(), &clean);
  if (!s.ok()) return GitError(s.message()), kGitFsckFailed;
  return clean ? kExitOk : kGitFsckFailed;
}

}  // namespace reftab::cli
// `reftab help verify` and `reftab verify -h` (cli/commands.h).
const char* const reftab::cli::kVerifyUsage =
    "usage: reftab verify [--strict] [<file.ref>...]\n"
    "\n"
    "    --strict              count warnings as errors, as git refs verify --strict\n"
    "\n";

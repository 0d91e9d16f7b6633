// reftab refs migrate --ref-format=reftable|files [--dry-run] [--no-reflog]
//                     [--skip-unmigratable] [--[no-]progress]
// `git refs migrate`: moves the repository's refs and reflogs to the other storage format
// (store/git/migrate/migrate.h). Options, messages and exit status are git's ("error: ...", 255;
// "fatal: ...", 128, where git dies: writing the stubs;
// usage errors 129); refs that cannot be migrated are listed one per line before the error (or,
// with reftab's --skip-unmigratable, as warnings, and the others are migrated).
//
// For tests only: REFTAB_TEST_KILL_AT_STEP=N kills the process (SIGKILL) just before the
// N-th step that changes the repository; REFTAB_TEST_TRACE_STEPS=1 prints each step's number
// and name to stderr.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/progress.h"
#include "store/git/dir.h"
#include "store/git/migrate/migrate.h"

namespace reftab::cli {
namespace {

// The test hook: the environment is read here, never in the library.
std::function<void(int, std::string_view)> TestStepHook() {
  const char* kill_at = std::getenv("REFTAB_TEST_KILL_AT_STEP");
  const char* trace = std::getenv("REFTAB_TEST_TRACE_STEPS");
  if (!kill_at && !trace) return nullptr;
  const int n = kill_at ? std::atoi(kill_at) : -1;
  const bool print = trace != nullptr;
  return [n, print](int step, std::string_view name) {
    if (print) std::fprintf(stderr, "step %d: %.*s\n", step, int(name.size()), name.data());
    if (step == n) std::raise(SIGKILL);
  };
}

// git's status for a command that ends with "error: ..." (its -1 return).
constexpr int kExitGitError = 255;

int Error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return kExitGitError;
}

void PrintProblems(const MigrateResult& r, const char* level) {
  for (const RefProblem& p : r.not_migrated) {
    std::fprintf(stderr, "%s: not migrated: '%s': %s\n", level, p.refname.c_str(),
                 p.reason.c_str());
  }
}

// A bare repository in the files format (DiscoverGitDir knows bare ones by reftable/).
bool IsBareFilesRepo() {
  std::error_code ec;
  return std::filesystem::is_regular_file("HEAD", ec) &&
         std::filesystem::is_directory("objects", ec) && std::filesystem::is_directory("refs", ec);
}

// git names a repository found from its work tree's top ".git"; so do we, in messages.
std::string ShortGitDir(const std::string& found) {
  std::error_code ec;
  if (std::filesystem::equivalent(found, ".git", ec)) return ".git";
  return found;
}

}  // namespace

int CmdRefsMigrate(const GlobalOptions& g, const Args& args) {
  MigrateOptions options;
  std::optional<std::string> format;
  ProgressFlag progress_flag = ProgressFlag::kAuto;
  GitUsage usage;
  usage.lines = {"reftab refs migrate --ref-format=<format> [--no-reflog] [--dry-run]"};
  GitOption ref_format;
  ref_format.long_name = "ref-format";
  ref_format.arg = GitOption::Arg::kRequired;
  ref_format.arg_help = "format";
  ref_format.help = "specify the reference format to convert to";
  ref_format.negatable = false;
  ref_format.set = [&format](bool, std::optional<std::string_view> v) {
    format = std::string(*v);
    return std::string();
  };
  GitOption skip = FlagOption(0, "skip-unmigratable",
                              "migrate the other refs, with a warning for each that cannot be",
                              &options.skip_unmigratable);
  skip.exact = true;  // reftab's own: hidden, so the usage stays git's (man reftab has it)
  skip.hidden = true;
  usage.options = {
      std::move(ref_format),
      FlagOption(0, "dry-run", "perform a non-destructive dry-run", &options.dry_run),
      FlagOption(0, "no-reflog", "drop reflogs entirely during the migration", &options.no_reflog),
      std::move(skip), ProgressOption(&progress_flag)};
  Args operands;
  if (auto exit = ParseGitOptions(args, usage, &operands)) return *exit;
  if (!operands.empty()) return GitUsageMessage("too many arguments");
  if (!format) return GitUsageMessage("missing --ref-format=<format>");
  if (!g.stack_dir.empty())
    return GitUsageMessage("refs migrate needs a git repository, not --stack");
  auto target = ParseRefStorageFormat(*format);
  if (!target) return Error("unknown ref storage format '" + *format + "'");
  options.target = *target;
  options.on_step = TestStepHook();
  std::string git_dir = g.git_dir;
  if (git_dir.empty()) {
    Result<std::string> found = DiscoverGitDir();
    if (found.ok()) {
      git_dir = ShortGitDir(*found);
    } else if (IsBareFilesRepo()) {
      git_dir.push_back('.');
    } else {
      return Fail(found.status());
    }
  }
  TerminalProgress progress(progress_flag);
  options.progress = progress.get();
  MigrateResult result;
  Status s = MigrateRefStorage(git_dir, options, &result);
  PrintProblems(result, s.ok() ? "warning" : "error");
  for (const std::string& w : result.warnings) GitWarning(w);
  if (!s.ok()) return result.died ? GitDie(s.message()) : Error(s.message());
  if (options.dry_run) {
    std::printf("Finished dry-run migration of refs, the result can be found at '%s'\n",
                result.temp_dir.c_str());
  } else if (!result.warnings.empty()) {
    std::fprintf(stderr, "warning: migrated; leftovers of the old storage may remain in '%s'\n",
                 result.temp_dir.c_str());
  }
  return kExitOk;
}

}  // namespace reftab::cli

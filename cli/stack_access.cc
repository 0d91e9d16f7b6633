#include "cli/stack_access.h"

#include <unistd.h>

#include <cstdlib>

#include "cli/git_format.h"
#include "cli/jsonl.h"
#include "store/git/config/config.h"
#include "store/git/dir.h"
#include "store/merged_iterator.h"

namespace reftab::cli {
Result<std::unique_ptr<TableReader>> OpenTableFile(const std::string& path) {
  auto file = PosixFileSystem()->OpenRead(path);
  if (!file.ok()) return file.status();
  return TableReader::Open(std::move(*file));
}

StackOptions CliStackOptions() {
  StackOptions opts;
  const char* env = std::getenv("GIT_TEST_REFTABLE_AUTOCOMPACTION");
  if (env && (std::string(env) == "false" || std::string(env) == "0")) opts.auto_compact = false;
  // Messages are normalized by the commands themselves, the way git's reflog code does.
  opts.write_options.exact_log_message = true;
  opts.warn = [](const std::string& message) { GitWarning(message); };
  return opts;
}

Result<std::unique_ptr<Store>> OpenStore(const GlobalOptions& g, GitRepoAccess access) {
  // A missing directory is refused by the store (Stack::Open, GitRepo::Open), naming it.
  if (!g.stack_dir.empty()) return GitRefStore::OpenStack(g.stack_dir, CliStackOptions(), access);
  std::string git_dir = g.git_dir;
  if (git_dir.empty()) {
    REFTAB_ASSIGN_OR_RETURN(git_dir, DiscoverGitDir());
  }
  return GitRefStore::OpenRepo(git_dir, CliStackOptions(), access);
}

Result<GitConfig> SelectedConfig(const GlobalOptions& g) {
  if (!g.stack_dir.empty()) return GitConfig();
  std::string git_dir = g.git_dir;
  if (git_dir.empty()) {
    REFTAB_ASSIGN_OR_RETURN(git_dir, DiscoverGitDir());
  }
  return GitRepo::ReadConfig(git_dir);
}

Result<bool> RefParanoia() {
  const char* env = std::getenv("GIT_REF_PARANOIA");
  if (!env) return true;
  std::optional<bool> on = ParseGitBool(std::string(env));
  if (!on) {
    return Status::InvalidArgument("bad boolean environment value '" + std::string(env) +
                                   "' for 'GIT_REF_PARANOIA'");
  }
  return *on;
}

Result<std::unique_ptr<Stack>> OpenSelectedStack(const GlobalOptions& g) {
  if (!g.stack_dir.empty()) return Stack::Open(g.stack_dir, CliStackOptions());
  REFTAB_ASSIGN_OR_RETURN(auto store, OpenStore(g, GitRepoAccess::kReadOnly));
  StackOptions opts = store->main_stack().options();
  return Stack::Open(store->main_stack().dir(), opts);
}

Status DumpStack(const Stack& stack, bool git_format, Output* out) {
  auto snap = stack.snapshot();
  size_t hs = snap->hash_size();
  MergedRefIterator refs = snap->NewRefIterator();
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord ref;
  while (refs.Next(&ref)) {
    if (git_format) {
      AppendRefGit(ref, hs, &out->buf());
    } else {
      AppendRefJson(ref, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  MergedLogIterator logs = snap->NewLogIterator();
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord log;
  while (logs.Next(&log)) {
    if (git_format) {
      AppendLogGit(log, hs, &out->buf());
    } else {
      AppendLogJson(log, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  return logs.status();
}

}  // namespace reftab::cli

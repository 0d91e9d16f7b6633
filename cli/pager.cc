#include "cli/pager.h"

#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

extern char** environ;

namespace reftab::cli {
namespace {

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

// The pager's environment: ours, plus git's defaults for less and lv where unset. Not
// GIT_PAGER_IN_USE: that is for our own children, and git keeps it from the pager.
std::vector<std::string> PagerEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (!std::string_view(*e).starts_with("GIT_PAGER_IN_USE=")) env.emplace_back(*e);
  }
  if (!std::getenv("LESS")) env.emplace_back("LESS=FRX");
  if (!std::getenv("LV")) env.emplace_back("LV=-c");
  return env;
}

// git tells the pager and later children the terminal's width, which they can no longer ask
// once standard output is a pipe: COLUMNS, unless already set.
void ExportColumns() {
  if (std::getenv("COLUMNS")) return;
  struct winsize ws {};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    setenv("COLUMNS", std::to_string(ws.ws_col).c_str(), 0);
  }
}

}  // namespace

std::optional<std::string> PagerCommand(const GitConfig& config,
                                        const std::optional<std::string>& command_pager) {
  if (!isatty(STDOUT_FILENO)) return std::nullopt;
  std::optional<std::string> pager = Env("GIT_PAGER");
  if (!pager) pager = command_pager;
  if (!pager) {
    const ConfigEntry* e = config.Last("core.pager");
    if (e && e->value) pager = e->value;
  }
  if (!pager) pager = Env("PAGER");
  if (!pager) pager = "less";
  if (pager->empty() || *pager == "cat") return std::nullopt;
  return pager;
}

CommandPagerConfig ReadCommandPagerConfig(const GitConfig& config, std::string_view command) {
  CommandPagerConfig c;
  for (const ConfigEntry* e : config.All("pager." + std::string(command))) {
    std::optional<bool> b = ParseGitBool(e->value);
    if (b) {
      c.want = b;
    } else {
      c.want = true;
      c.command = e->value;
    }
  }
  return c;
}

Status StartPager(const GitConfig& config, const std::optional<std::string>& command_pager,
                  Pager* pager) {
  if (pager->active()) return Status::Ok();
  std::optional<std::string> command = PagerCommand(config, command_pager);
  return command ? pager->Start(*command) : Status::Ok();
}

Status StartCommandPager(std::optional<bool> paginate, bool reads_command_config,
                         std::string_view command,
                         const std::function<std::optional<GitConfig>()>& config, Pager* pager) {
  if (paginate == false) {
    setenv("GIT_PAGER", "cat", 1);
    return Status::Ok();
  }
  if (!isatty(STDOUT_FILENO) || (!paginate && !reads_command_config)) return Status::Ok();
  std::optional<GitConfig> c = config();
  if (!c) return Status::Ok();
  std::optional<std::string> program;
  if (!paginate) {
    CommandPagerConfig wanted = ReadCommandPagerConfig(*c, command);
    if (!wanted.want) return Status::Ok();
    if (!*wanted.want) {
      setenv("GIT_PAGER", "cat", 1);
      return Status::Ok();
    }
    program = wanted.command;
  }
  return StartPager(*c, program, pager);
}

bool PagerInUse() {
  std::optional<bool> b = ParseGitBool(Env("GIT_PAGER_IN_USE").value_or("false"));
  return b.value_or(false);
}

Status Pager::Start(const std::string& command) {
  if (active()) return Status::Ok();
  ExportColumns();
  setenv("GIT_PAGER_IN_USE", "true", 1);
  int fds[2];
  if (pipe(fds) != 0) return Status::IoError(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<std::string> env = PagerEnvironment();
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string sh = "sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  pid_t pid = -1;
  int rc = posix_spawn(&pid, "/bin/sh", &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    return Status::IoError("unable to execute pager '" + command + "'");
  }
  pid_ = pid;
  std::fflush(stdout);
  std::fflush(stderr);
  old_stdout_ = dup(STDOUT_FILENO);
  dup2(fds[1], STDOUT_FILENO);
  if (isatty(STDERR_FILENO)) {
    old_stderr_ = dup(STDERR_FILENO);
    dup2(fds[1], STDERR_FILENO);
  }
  close(fds[1]);
  return Status::Ok();
}

void Pager::Finish() {
  if (!active()) return;
  std::fflush(stdout);
  std::fflush(stderr);
  // The pager reads until every write end is closed: ours are standard output and error.
  dup2(old_stdout_, STDOUT_FILENO);
  close(old_stdout_);
  if (old_stderr_ >= 0) {
    dup2(old_stderr_, STDERR_FILENO);
    close(old_stderr_);
  }
  old_stdout_ = old_stderr_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace reftab::cli

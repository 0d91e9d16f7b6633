#include "tests/testutil/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

extern char** environ;

namespace reftab::testing {
namespace {

// The child's environment: the test's own with `overrides` set on top.
std::vector<std::string> ChildEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    if (!overrides.count(std::string(name))) env.emplace_back(entry);
  }
  for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (const std::string& s : strings) p.push_back(const_cast<char*>(s.c_str()));
  p.push_back(nullptr);
  return p;
}

// Starts argv with the pipes as its standard streams, in o.cwd, with o.env on top of ours.
// posix_spawn, not fork: a test binary under a sanitizer maps terabytes of shadow memory,
// and copying its page tables made each fork cost tens of milliseconds (a test that runs
// git a thousand times spent most of its time there). Returns -1 if it could not start.
pid_t Spawn(const std::vector<std::string>& argv, const ProcessOptions& o, int in_fd, int out_fd,
            int err_fd, const int close_fds[3]) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  for (int i = 0; i < 3; ++i) posix_spawn_file_actions_addclose(&actions, close_fds[i]);
  if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, o.cwd.c_str());
  std::vector<std::string> env = ChildEnvironment(o.env);
  std::vector<char*> args = Pointers(argv), envp = Pointers(env);
  pid_t pid = -1;
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Feeds `input` to fd `in` while draining `out` and `err`, so that no pipe can fill up.
void Pump(const std::string& input, int in, int out, int err, ProcessResult* r) {
  size_t written = 0;
  if (input.empty()) close(in), in = -1;
  while (out >= 0 || err >= 0) {
    pollfd fds[3] = {{out, POLLIN, 0}, {err, POLLIN, 0}, {in, POLLOUT, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? out : err;
      if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) {
        close(fd);
        fd = -1;
      } else {
        (i == 0 ? r->out : r->err).append(buf, size_t(n));
      }
    }
    if (in >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(in, input.data() + written, input.size() - written);
      if (n > 0) written += size_t(n);
      if (n <= 0 || written == input.size()) close(in), in = -1;
    }
  }
  if (in >= 0) close(in);
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  int in[2], out[2], err[2];
  if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) return r;
  signal(SIGPIPE, SIG_IGN);
  const int parent_ends[3] = {in[1], out[0], err[0]};
  pid_t pid = Spawn(argv, options, in[0], out[1], err[1], parent_ends);
  close(in[0]), close(out[1]), close(err[1]);
  if (pid < 0) {  // not found or not runnable: what a shell reports for it
    close(in[1]), close(out[0]), close(err[0]);
    r.exit_code = 127;
    return r;
  }
  Pump(options.input, in[1], out[0], err[0], &r);
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid) {
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  return r;
}

std::optional<std::string> FindReftableGit(std::string* why) {
  if (const char* env = std::getenv("REFTAB_GIT"); env && *env) {
    ProcessResult v = RunProcess({env, "--version"});
    if (v.exit_code == 0) return std::string(env);
    *why = std::string("REFTAB_GIT=") + env + " does not run";
    return std::nullopt;
  }
  ProcessResult v = RunProcess({"git", "--version"});
  int major = 0, minor = 0;
  if (v.exit_code != 0 || std::sscanf(v.out.c_str(), "git version %d.%d", &major, &minor) != 2) {
    *why = "no REFTAB_GIT and no git on PATH";
    return std::nullopt;
  }
  if (major < 2 || (major == 2 && minor < 45)) {
    *why = "no REFTAB_GIT, and git on PATH is " + std::to_string(major) + "." +
           std::to_string(minor) + " (reftable needs >= 2.45)";
    return std::nullopt;
  }
  return std::string("git");
}

bool GitIsRequired() {
  const char* env = std::getenv("REFTAB_REQUIRE_GIT");
  return env && *env;
}

}  // namespace reftab::testing

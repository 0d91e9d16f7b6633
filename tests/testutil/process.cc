#include "tests/testutil/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace reftab::testing {
namespace {

// In the child: wires the pipes, applies cwd and env, and execs (or exits 127).
[[noreturn]] void ExecChild(const std::vector<std::string>& argv, const ProcessOptions& o,
                            int in_fd, int out_fd, int err_fd) {
  dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(127);
  for (const auto& [k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
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
  pid_t pid = fork();
  if (pid == 0) {
    close(in[1]), close(out[0]), close(err[0]);
    ExecChild(argv, options, in[0], out[1], err[1]);
  }
  close(in[0]), close(out[1]), close(err[1]);
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

#include "tests/testutil/real_git.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace reftab::testutil {
namespace {

// Reads everything from `fd` until end of file.
std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, size_t(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

// "git version 2.55.0..." -> whether it is at least 2.45.
bool RecentEnough(const std::string& version_line) {
  int major = 0, minor = 0;
  if (std::sscanf(version_line.c_str(), "git version %d.%d", &major, &minor) != 2) return false;
  return major > 2 || (major == 2 && minor >= 45);
}

[[noreturn]] void Exec(const std::string& program, const std::vector<std::string>& args,
                       const std::string& home) {
  setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  setenv("HOME", home.c_str(), 1);
  unsetenv("GIT_DIR");
  unsetenv("XDG_CONFIG_HOME");
  for (const char* who : {"COMMITTER", "AUTHOR"}) {
    std::string w = who;
    setenv(("GIT_" + w + "_NAME").c_str(), "C O Mitter", 1);
    setenv(("GIT_" + w + "_EMAIL").c_str(), "committer@example.com", 1);
    setenv(("GIT_" + w + "_DATE").c_str(), "1700000000 +0000", 1);
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  _exit(127);
}

}  // namespace

std::string FindReftableGit(std::string* why) {
  std::string candidate;
  if (const char* env = std::getenv("REFTAB_GIT"); env && *env) {
    candidate = env;
  } else {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (size_t pos = 0; pos <= dirs.size();) {
      size_t colon = dirs.find(':', pos);
      if (colon == std::string::npos) colon = dirs.size();
      std::string p = dirs.substr(pos, colon - pos) + "/git";
      pos = colon + 1;
      if (access(p.c_str(), X_OK) == 0) {
        candidate = p;
        break;
      }
    }
  }
  if (candidate.empty()) {
    *why = "no git: set REFTAB_GIT to a git >= 2.45 (reftable support)";
    return "";
  }
  std::string version;
  int rc = RunProgram(candidate, {"--version"}, "/nonexistent", "", &version);
  if (rc != 0 || !RecentEnough(version)) {
    *why = candidate + " is not a git >= 2.45 (" +
           (version.empty() ? "did not run" : version.substr(0, version.find('\n'))) +
           "): set REFTAB_GIT to one with reftable support";
    return "";
  }
  return candidate;
}

int RunProgram(const std::string& program, const std::vector<std::string>& args,
               const std::string& home, const std::string& input, std::string* output) {
  int in[2], out[2];
  if (pipe(in) != 0) return -1;
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(in[0], 0);
    if (output) {
      dup2(out[1], 1);
      dup2(out[1], 2);
    } else {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
    }
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    Exec(program, args, home);
  }
  close(in[0]);
  close(out[1]);
  size_t off = 0;
  while (off < input.size()) {
    ssize_t n = write(in[1], input.data() + off, input.size() - off);
    if (n <= 0) break;
    off += size_t(n);
  }
  close(in[1]);
  std::string text = Drain(out[0]);
  close(out[0]);
  if (output) *output = text;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

}  // namespace reftab::testutil

#include "store/git/run_program.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern char** environ;

namespace reftab {
namespace {

// git's PATH search: each entry in turn (an empty one is the current directory), the first
// regular file its owner may execute.
bool LocateInPath(const std::string& name, std::string* found) {
  const char* path = std::getenv("PATH");
  if (path == nullptr || *path == '\0') return false;
  std::string_view rest(path);
  while (true) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    std::string candidate(dir);
    if (!dir.empty()) candidate.push_back('/');
    candidate.append(name);
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR)) {
      *found = std::move(candidate);
      return true;
    }
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int get() const { return fd_; }
  int* ptr() { return &fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

Status MakePipe(Fd* read_end, Fd* write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::IoError(std::string("pipe: ") + strerror(errno));
  *read_end->ptr() = fds[0];
  *write_end->ptr() = fds[1];
  return Status::Ok();
}

// Blocks SIGPIPE in this thread while the child's input is written, so that a program that
// stops reading early gives EPIPE rather than killing the caller; the signal it leaves
// pending is taken back before the old mask returns.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
      struct timespec zero = {0, 0};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_, old_;
};

// Feeds `input` and drains both outputs together, so that neither side waits on a full pipe.
Status Exchange(Fd* in, Fd* out, Fd* err, std::string_view input, ProgramRun* run) {
  size_t written = 0;
  if (input.empty()) in->Close();
  char buf[65536];
  while (out->get() >= 0 || err->get() >= 0 || in->get() >= 0) {
    struct pollfd fds[3];
    nfds_t n = 0;
    if (in->get() >= 0) fds[n++] = {in->get(), POLLOUT, 0};
    if (out->get() >= 0) fds[n++] = {out->get(), POLLIN, 0};
    if (err->get() >= 0) fds[n++] = {err->get(), POLLIN, 0};
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(std::string("poll: ") + strerror(errno));
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in->get()) {
        ssize_t w = ::write(in->get(), input.data() + written, input.size() - written);
        if (w < 0 && errno != EINTR && errno != EAGAIN) {
          in->Close();  // the program stopped reading: the rest of the input is not wanted
        } else if (w > 0) {
          written += static_cast<size_t>(w);
          if (written == input.size()) in->Close();
        }
        continue;
      }
      Fd* src = fds[i].fd == out->get() ? out : err;
      std::string* dst = src == out ? &run->out : &run->err;
      ssize_t r = ::read(src->get(), buf, sizeof buf);
      if (r > 0) {
        dst->append(buf, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        src->Close();
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunProgram(const std::vector<std::string>& args, std::string_view input, ProgramRun* run) {
  *run = ProgramRun();
  std::string program = args.at(0);
  if (program.find('/') == std::string::npos && !LocateInPath(args[0], &program)) {
    run->start_error = "error: cannot run " + args[0] + ": " + strerror(ENOENT) + "\n";
    return Status::Ok();
  }
  Fd in_r, in_w, out_r, out_w, err_r, err_w;
  REFTAB_RETURN_IF_ERROR(MakePipe(&in_r, &in_w));
  REFTAB_RETURN_IF_ERROR(MakePipe(&out_r, &out_w));
  REFTAB_RETURN_IF_ERROR(MakePipe(&err_r, &err_w));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_r.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.get(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &pipe_only);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  // argv[0] is the shell, used only for a file the kernel cannot execute (a script without
  // "#!"), which git then hands to sh.
  std::string shell = "/bin/sh";
  std::vector<char*> argv = {shell.data(), program.data()};
  for (size_t i = 1; i < args.size(); ++i) argv.push_back(const_cast<char*>(args[i].c_str()));
  argv.push_back(nullptr);

  SigpipeBlock block;
  pid_t pid = 0;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data() + 1, environ);
  if (rc == ENOEXEC) rc = posix_spawn(&pid, shell.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    run->start_error = "fatal: cannot exec '" + args[0] + "': " + strerror(rc) + "\n";
    return Status::Ok();
  }
  run->started = true;
  // Our ends never block, so a large input and a full output pipe cannot wait on each other.
  for (int fd : {in_w.get(), out_r.get(), err_r.get()}) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  in_r.Close();
  out_w.Close();
  err_w.Close();
  Status exchanged = Exchange(&in_w, &out_r, &err_r, input, run);
  in_w.Close();
  out_r.Close();
  err_r.Close();
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return Status::IoError(std::string("waitpid: ") + strerror(errno));
  }
  if (WIFEXITED(wstatus)) run->exit_code = WEXITSTATUS(wstatus);
  return exchanged;
}

}  // namespace reftab

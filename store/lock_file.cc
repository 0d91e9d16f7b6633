#include "store/lock_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <thread>

#include "store/random_seed.h"
#include "store/trace.h"

namespace reftab {

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

LockFile::LockFile(FileSystem* fs, std::string path, std::unique_ptr<WritableFile> file)
    : fs_(fs), path_(std::move(path)), lock_path_(path_ + ".lock"), file_(std::move(file)) {}

LockFile::~LockFile() { Rollback(); }

std::string LockPidFilePath(const std::string& path) { return path + "~pid.lock"; }

bool WriteLockPidFile(FileSystem* fs, const std::string& path, std::optional<uint32_t> mode,
                      const WarningSink& warn) {
  const std::string pid_path = LockPidFilePath(path);
  auto file = fs->Create(pid_path, /*exclusive=*/true);
  if (!file.ok()) return false;
  Status s = (*file)->Append("pid " + std::to_string(uint64_t(getpid())) + "\n");
  Status c = (*file)->Close();
  if (s.ok()) s = c;
  if (s.ok() && mode) s = fs->Chmod(pid_path, *mode);
  if (s.ok()) return true;
  (void)fs->Remove(pid_path);
  if (warn) {
    // The file system's messages end with the system's reason ("<path>: write: <why>"),
    // which is all git's sentence adds to the path.
    const std::string& m = s.message();
    const size_t colon = m.rfind(": ");
    warn("could not write lock pid file '" + pid_path +
         "': " + (colon == std::string::npos ? m : m.substr(colon + 2)));
  }
  return false;
}

std::optional<LockHolder> ReadLockHolder(FileSystem* fs, const std::string& path) {
  auto text = fs->ReadFile(LockPidFilePath(path));
  if (!text.ok() || text->size() > 64) return std::nullopt;
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  if (!s.starts_with("pid ") || s.size() == 4) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long pid = std::strtoull(s.c_str() + 4, &end, 10);
  if (errno || *end || pid == 0 || pid > uint64_t(INT32_MAX)) return std::nullopt;
  LockHolder h;
  h.pid = pid;
  // As git: signal 0 tells whether the process exists (EPERM: it does, someone else's).
  h.running = kill(pid_t(pid), 0) == 0 || errno == EPERM;
  return h;
}

std::string LockHolderText(FileSystem* fs, const std::string& path) {
  std::optional<LockHolder> h = ReadLockHolder(fs, path);
  if (!h) return "";
  const std::string pid = std::to_string(h->pid);
  if (h->running) {
    return "Lock may be held by process " + pid +
           "; if no git process is running, the lock file may be stale (PIDs can be reused)";
  }
  return "Lock was held by process " + pid +
         ", which is no longer running; the lock file appears to be stale";
}

Status LockHeldError(FileSystem* fs, const std::string& path, const std::string& what) {
  std::string holder = LockHolderText(fs, path);
  if (!holder.empty()) holder = " (" + holder + ")";
  return Status::LockHeld("unable to lock " + path + ": " + path + ".lock exists" + holder +
                          ": another " + what +
                          ", or one was killed and left the lock behind; if no git " +
                          "or reftab process is using this repository, remove " + path + ".lock");
}

Result<std::unique_ptr<LockFile>> LockFile::Acquire(FileSystem* fs, const std::string& path,
                                                    int64_t timeout_ms,
                                                    std::optional<uint32_t> mode, bool pid_file,
                                                    const WarningSink& warn) {
  std::minstd_rand rng(RandomSeed());
  // git's backoff: attempt n sleeps n^2 ms (capped at 1000), give or take 25%. The budget
  // is spent by the sleeps only, never by the time the attempts themselves take.
  const int64_t budget_us = timeout_ms > INT64_MAX / 1000 ? INT64_MAX : timeout_ms * 1000;
  int64_t slept_us = 0;
  for (int64_t n = 1;; ++n) {
    auto file = fs->Create(path + ".lock", /*exclusive=*/true);
    if (file.ok()) {
      REFTAB_TRACE(trace::kDebug, "%s.lock: taken (attempt %lld, slept %lld us)", path.c_str(),
                   (long long)n, (long long)slept_us);
      std::unique_ptr<LockFile> lock(new LockFile(fs, path, std::move(*file)));
      // Without the lock file's mode right, the committed file would have the wrong one.
      if (mode) REFTAB_RETURN_IF_ERROR(fs->Chmod(lock->lock_path_, *mode));
      if (pid_file) lock->has_pid_file_ = WriteLockPidFile(fs, path, mode, warn);
      return lock;
    }
    if (file.status().code() != Code::kLockHeld) return file.status();
    if (timeout_ms >= 0 && slept_us >= budget_us) {
      REFTAB_TRACE(trace::kError, "%s.lock: gave up after %lld attempts, %lld us of sleep",
                   path.c_str(), (long long)n, (long long)slept_us);
      return LockHeldError(fs, path, "process is writing");
    }
    int64_t multiplier = n * n > 1000 ? 1000 : n * n;
    int64_t sleep_us = multiplier * (750 + int64_t(rng() % 500));
    REFTAB_TRACE(trace::kDebug, "%s.lock: held by someone else, sleeping %lld us", path.c_str(),
                 (long long)sleep_us);
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    slept_us += sleep_us;
  }
}

double LockFile::HeldMs() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - taken_)
      .count();
}

Status LockFile::Commit(std::string_view contents, Durability durability) {
  if (!held_) return Status::InvalidArgument("lock " + lock_path_ + " is not held");
  Status s = file_->Append(contents);
  if (s.ok() && durability != Durability::kNone) s = file_->Sync();
  Status c = file_->Close();
  if (s.ok()) s = c;
  // The pid file goes first: once the lock is renamed away another writer may take it and
  // write its own.
  if (s.ok() && has_pid_file_) {
    (void)fs_->Remove(LockPidFilePath(path_));
    has_pid_file_ = false;
  }
  if (s.ok()) s = fs_->Rename(lock_path_, path_);
  if (!s.ok()) {
    Rollback();
    return s;
  }
  held_ = false;
  committed_ = true;
  REFTAB_TRACE(trace::kDebug, "%s: committed (%zu bytes), lock held %.3f ms", path_.c_str(),
               contents.size(), HeldMs());
  if (durability == Durability::kFull) return fs_->SyncDir(DirName(path_));
  return Status::Ok();
}

void LockFile::Rollback() {
  if (!held_) return;
  REFTAB_TRACE(trace::kDebug, "%s: lock released without commit, held %.3f ms", lock_path_.c_str(),
               HeldMs());
  held_ = false;
  if (file_) (void)file_->Close();
  (void)fs_->Remove(lock_path_);
  if (has_pid_file_) (void)fs_->Remove(LockPidFilePath(path_));
}

}  // namespace reftab

#include "store/lock_file.h"

#include <chrono>
#include <cstdint>
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

Status LockHeldError(const std::string& path, const std::string& what) {
  return Status::LockHeld("unable to lock " + path + ": " + path + ".lock exists: another " + what +
                          ", or one was killed and left the lock behind; if no git " +
                          "or reftab process is using this repository, remove " + path + ".lock");
}

Result<std::unique_ptr<LockFile>> LockFile::Acquire(FileSystem* fs, const std::string& path,
                                                    int64_t timeout_ms,
                                                    std::optional<uint32_t> mode) {
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
      return lock;
    }
    if (file.status().code() != Code::kLockHeld) return file.status();
    if (timeout_ms >= 0 && slept_us >= budget_us) {
      REFTAB_TRACE(trace::kError, "%s.lock: gave up after %lld attempts, %lld us of sleep",
                   path.c_str(), (long long)n, (long long)slept_us);
      return LockHeldError(path, "process is writing");
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
}

}  // namespace reftab

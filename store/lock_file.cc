#include "store/lock_file.h"

#include <chrono>
#include <thread>

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

Result<std::unique_ptr<LockFile>> LockFile::Acquire(FileSystem* fs, const std::string& path,
                                                    int64_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::minstd_rand rng(std::random_device{}());
  // git's backoff: sleep multiplier * (0.75 .. 1.25) ms, multiplier 1, 4, 9, 16 ... <= 1000.
  for (int64_t n = 1;; ++n) {
    auto file = fs->Create(path + ".lock", /*exclusive=*/true);
    if (file.ok()) {
      REFTAB_TRACE(trace::kDebug, "%s.lock: taken (attempt %lld)", path.c_str(), (long long)n);
      return std::unique_ptr<LockFile>(new LockFile(fs, path, std::move(*file)));
    }
    if (file.status().code() != Code::kLockHeld) return file.status();
    int64_t waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    REFTAB_TRACE(trace::kDebug, "%s.lock: held by someone else, waited %lld ms", path.c_str(),
                 (long long)waited);
    if (timeout_ms >= 0 && waited >= timeout_ms) {
      REFTAB_TRACE(trace::kError, "%s.lock: gave up after %lld ms", path.c_str(),
                   (long long)waited);
      return Status::LockHeld("unable to lock " + path + ": " + path +
                              ".lock exists (another process is writing, or one crashed "
                              "and left it behind)");
    }
    int64_t multiplier = n * n > 1000 ? 1000 : n * n;
    int64_t sleep_us = multiplier * 750 + int64_t(rng() % uint64_t(multiplier * 500 + 1));
    if (timeout_ms >= 0) sleep_us = std::min<int64_t>(sleep_us, (timeout_ms - waited) * 1000 + 1);
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  }
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
  REFTAB_TRACE(trace::kDebug, "%s: committed (%zu bytes)", path_.c_str(), contents.size());
  if (durability == Durability::kFull) return fs_->SyncDir(DirName(path_));
  return Status::Ok();
}

void LockFile::Rollback() {
  if (!held_) return;
  REFTAB_TRACE(trace::kDebug, "%s: lock released without commit", lock_path_.c_str());
  held_ = false;
  if (file_) (void)file_->Close();
  (void)fs_->Remove(lock_path_);
}

}  // namespace reftab

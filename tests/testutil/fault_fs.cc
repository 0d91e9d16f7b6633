#include "tests/testutil/fault_fs.h"

#include <utility>

namespace reftab::testutil {

const char* FsOpName(FsOp op) {
  switch (op) {
    case FsOp::kCreate: return "create";
    case FsOp::kOpenAppend: return "openappend";
    case FsOp::kAppend: return "append";
    case FsOp::kSync: return "sync";
    case FsOp::kClose: return "close";
    case FsOp::kRename: return "rename";
    case FsOp::kRemove: return "remove";
    case FsOp::kSyncDir: return "syncdir";
    case FsOp::kOpenRead: return "openread";
    case FsOp::kReadFile: return "readfile";
    case FsOp::kReadPinned: return "readpinned";
    case FsOp::kListDir: return "listdir";
    case FsOp::kStat: return "stat";
    case FsOp::kChmod: return "chmod";
    case FsOp::kLock: return "lock";
  }
  return "?";
}

namespace {

bool IsTablesList(const std::string& path) {
  const std::string kName = "tables.list";
  if (path == kName) return true;
  return path.size() > kName.size() &&
         path.compare(path.size() - kName.size(), kName.size(), kName) == 0 &&
         path[path.size() - kName.size() - 1] == '/';
}

}  // namespace

// Forwards to the wrapped file, counting (and possibly failing) each call.
class CountingWritableFile final : public WritableFile {
 public:
  CountingWritableFile(FaultInjectingFileSystem* fs, std::string path,
                       std::unique_ptr<WritableFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    size_t index = 0;
    if (fs_->Begin(FsOp::kAppend, path_, "", &index)) {
      (void)base_->Append(data.substr(0, data.size() / 2));  // a short write
      return fs_->Injected(FsOp::kAppend, path_);
    }
    Status s = base_->Append(data);
    fs_->End(index, s.ok());
    return s;
  }
  Status Sync() override {
    size_t index = 0;
    if (fs_->Begin(FsOp::kSync, path_, "", &index)) return fs_->Injected(FsOp::kSync, path_);
    Status s = fs_->perform_syncs_ ? base_->Sync() : Status::Ok();
    fs_->End(index, s.ok());
    return s;
  }
  Status Close() override {
    size_t index = 0;
    if (fs_->Begin(FsOp::kClose, path_, "", &index)) {
      (void)base_->Close();  // the descriptor is gone either way, as with close(2)
      return fs_->Injected(FsOp::kClose, path_);
    }
    Status s = base_->Close();
    fs_->End(index, s.ok());
    return s;
  }

 private:
  FaultInjectingFileSystem* fs_;
  std::string path_;
  std::unique_ptr<WritableFile> base_;
};

FaultInjectingFileSystem::FaultInjectingFileSystem(FileSystem* base) : base_(base) {}

void FaultInjectingFileSystem::FailNth(FsOp op, uint64_t n) {
  std::lock_guard<std::mutex> l(mu_);
  fail_op_ = op;
  fail_n_ = n;
}

void FaultInjectingFileSystem::Reset() {
  std::lock_guard<std::mutex> l(mu_);
  counts_.fill(0);
  events_.clear();
  fail_n_ = 0;
  fault_index_ = -1;
}

uint64_t FaultInjectingFileSystem::count(FsOp op) const {
  std::lock_guard<std::mutex> l(mu_);
  return counts_[size_t(op)];
}

bool FaultInjectingFileSystem::fault_fired() const {
  std::lock_guard<std::mutex> l(mu_);
  return fault_index_ >= 0;
}

long FaultInjectingFileSystem::fault_index() const {
  std::lock_guard<std::mutex> l(mu_);
  return fault_index_;
}

std::vector<FsEvent> FaultInjectingFileSystem::events() const {
  std::lock_guard<std::mutex> l(mu_);
  return events_;
}

bool FaultInjectingFileSystem::ListReplacedBeforeFault() const {
  std::lock_guard<std::mutex> l(mu_);
  size_t end = fault_index_ >= 0 ? size_t(fault_index_) : events_.size();
  for (size_t i = 0; i < end; ++i) {
    const FsEvent& e = events_[i];
    if (e.op == FsOp::kRename && e.ok && IsTablesList(e.to)) return true;
  }
  return false;
}

bool FaultInjectingFileSystem::Begin(FsOp op, const std::string& path, const std::string& to,
                                     size_t* index) {
  if (hook_) hook_(op, path);
  std::lock_guard<std::mutex> l(mu_);
  uint64_t n = ++counts_[size_t(op)];
  bool fail = fail_n_ != 0 && op == fail_op_ && n == fail_n_;
  *index = events_.size();
  events_.push_back(FsEvent{op, path, to, fail, !fail});
  if (fail) fault_index_ = long(*index);
  return fail;
}

void FaultInjectingFileSystem::End(size_t index, bool ok) {
  std::lock_guard<std::mutex> l(mu_);
  if (index < events_.size()) events_[index].ok = ok;
}

Status FaultInjectingFileSystem::Injected(FsOp op, const std::string& path) const {
  return Status::IoError(path + ": injected " + FsOpName(op) + " failure");
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectingFileSystem::OpenRead(
    const std::string& path) {
  size_t index = 0;
  if (Begin(FsOp::kOpenRead, path, "", &index)) return Injected(FsOp::kOpenRead, path);
  auto r = base_->OpenRead(path);
  End(index, r.ok());
  return r;
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenWritable(
    FsOp op, const std::string& path,
    const std::function<Result<std::unique_ptr<WritableFile>>()>& open) {
  size_t index = 0;
  if (Begin(op, path, "", &index)) return Injected(op, path);
  auto r = open();
  End(index, r.ok());
  if (!r.ok()) return r.status();
  return std::unique_ptr<WritableFile>(
      std::make_unique<CountingWritableFile>(this, path, std::move(*r)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::Create(const std::string& path,
                                                                       bool exclusive) {
  return OpenWritable(FsOp::kCreate, path, [&] { return base_->Create(path, exclusive); });
}

Result<std::unique_ptr<WritableFile>> FaultInjectingFileSystem::OpenAppend(
    const std::string& path) {
  return OpenWritable(FsOp::kOpenAppend, path, [&] { return base_->OpenAppend(path); });
}

Result<std::string> FaultInjectingFileSystem::ReadFile(const std::string& path) {
  size_t index = 0;
  if (Begin(FsOp::kReadFile, path, "", &index)) return Injected(FsOp::kReadFile, path);
  auto r = base_->ReadFile(path);
  End(index, r.ok());
  return r;
}

Result<std::unique_ptr<PinnedFile>> FaultInjectingFileSystem::ReadPinned(const std::string& path,
                                                                         std::string* contents,
                                                                         FileInfo* info) {
  size_t index = 0;
  if (Begin(FsOp::kReadPinned, path, "", &index)) return Injected(FsOp::kReadPinned, path);
  auto r = base_->ReadPinned(path, contents, info);
  End(index, r.ok());
  return r;
}

Status FaultInjectingFileSystem::Rename(const std::string& from, const std::string& to) {
  size_t index = 0;
  if (Begin(FsOp::kRename, from, to, &index)) return Injected(FsOp::kRename, from);
  Status s = base_->Rename(from, to);
  End(index, s.ok());
  return s;
}

Status FaultInjectingFileSystem::Remove(const std::string& path) {
  size_t index = 0;
  if (Begin(FsOp::kRemove, path, "", &index)) return Injected(FsOp::kRemove, path);
  Status s = base_->Remove(path);
  End(index, s.ok());
  return s;
}

Result<std::vector<std::string>> FaultInjectingFileSystem::ListDir(const std::string& dir) {
  size_t index = 0;
  if (Begin(FsOp::kListDir, dir, "", &index)) return Injected(FsOp::kListDir, dir);
  auto r = base_->ListDir(dir);
  End(index, r.ok());
  return r;
}

Result<FileInfo> FaultInjectingFileSystem::Stat(const std::string& path) {
  size_t index = 0;
  if (Begin(FsOp::kStat, path, "", &index)) return Injected(FsOp::kStat, path);
  auto r = base_->Stat(path);
  End(index, r.ok());
  return r;
}

Status FaultInjectingFileSystem::SyncDir(const std::string& dir) {
  size_t index = 0;
  if (Begin(FsOp::kSyncDir, dir, "", &index)) return Injected(FsOp::kSyncDir, dir);
  Status s = perform_syncs_ ? base_->SyncDir(dir) : Status::Ok();
  End(index, s.ok());
  return s;
}

Status FaultInjectingFileSystem::Chmod(const std::string& path, uint32_t mode) {
  size_t index = 0;
  if (Begin(FsOp::kChmod, path, "", &index)) return Injected(FsOp::kChmod, path);
  Status s = base_->Chmod(path, mode);
  End(index, s.ok());
  return s;
}

Result<std::unique_ptr<FileLock>> FaultInjectingFileSystem::TryLock(const std::string& path) {
  size_t index = 0;
  if (Begin(FsOp::kLock, path, "", &index)) return Injected(FsOp::kLock, path);
  auto r = base_->TryLock(path);
  End(index, r.ok());
  return r;
}

}  // namespace reftab::testutil

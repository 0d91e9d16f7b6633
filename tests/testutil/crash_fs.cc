#include "tests/testutil/crash_fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace reftab::testutil {
namespace {

constexpr uint64_t kUntracked = UINT64_MAX;

uint64_t SizeOf(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

Status Errno(const std::string& what, const std::string& path) {
  return Status::IoError(path + ": " + what + ": " + std::strerror(errno));
}

// Copies the first `length` bytes of `from` into a new file `to`.
Status CopyPrefix(const std::string& from, const std::string& to, uint64_t length) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Errno("open", from);
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    ::close(in);
    return Errno("create", to);
  }
  Status s;
  char buf[1 << 16];
  while (length > 0 && s.ok()) {
    const ssize_t n = ::read(in, buf, size_t(std::min<uint64_t>(length, sizeof buf)));
    if (n <= 0) {
      s = n < 0 ? Errno("read", from) : Status::IoError(from + ": shorter than its record");
      break;
    }
    if (::write(out, buf, size_t(n)) != n) s = Errno("write", to);
    length -= uint64_t(n);
  }
  ::close(in);
  ::close(out);
  return s;
}

// Overwrites with zeros the parts of `ranges` below `length` in the file at `path`.
Status ZeroRanges(const std::string& path, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                  uint64_t length) {
  if (ranges.empty()) return Status::Ok();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Errno("open", path);
  Status s;
  for (const auto& [from, to] : ranges) {
    if (from >= length) break;
    const std::string zeros(size_t(std::min(to, length) - from), '\0');
    if (::pwrite(fd, zeros.data(), zeros.size(), off_t(from)) != ssize_t(zeros.size())) {
      s = Errno("write", path);
      break;
    }
  }
  ::close(fd);
  return s;
}

}  // namespace

// Passes everything through; an fsync is recorded, not performed (the model decides what
// survives, and the tests run faster without them).
class CrashTrackedFile final : public WritableFile {
 public:
  CrashTrackedFile(CrashingFileSystem* fs, uint64_t node, std::unique_ptr<WritableFile> base)
      : fs_(fs), node_(node), base_(std::move(base)) {}
  Status Append(std::string_view data) override { return base_->Append(data); }
  Status AppendTwo(std::string_view head, std::string_view body) override {
    return base_->AppendTwo(head, body);
  }
  Status Sync() override {
    if (node_ != kUntracked) fs_->Synced(node_);
    return Status::Ok();
  }
  Status Close() override { return base_->Close(); }

 private:
  CrashingFileSystem* fs_;
  uint64_t node_;
  std::unique_ptr<WritableFile> base_;
};

CrashingFileSystem::CrashingFileSystem(std::string dir, std::string keep)
    : base_(PosixFileSystem()), dir_(std::move(dir)), keep_(std::move(keep)) {
  auto names = base_->ListDir(dir_);
  if (!names.ok()) return;
  for (const std::string& name : *names) {
    const std::string path = dir_ + "/" + name;
    auto node = AddNode(path, SizeOf(path));
    if (!node.ok()) continue;
    live_[name] = *node;
    durable_[name] = *node;
  }
}

std::string CrashingFileSystem::NameIn(const std::string& path) const {
  if (path.size() <= dir_.size() + 1 || path.compare(0, dir_.size(), dir_) != 0 ||
      path[dir_.size()] != '/') {
    return "";
  }
  std::string name = path.substr(dir_.size() + 1);
  return name.find('/') == std::string::npos ? name : "";
}

Result<uint64_t> CrashingFileSystem::AddNode(const std::string& path, uint64_t synced) {
  const uint64_t id = nodes_.size();
  std::string link = keep_ + "/" + std::to_string(id);
  if (::link(path.c_str(), link.c_str()) != 0) return Errno("link to " + link, path);
  nodes_.push_back(Node{std::move(link), synced});
  return id;
}

void CrashingFileSystem::Synced(uint64_t node) {
  std::lock_guard<std::mutex> lock(mu_);
  nodes_[node].synced = SizeOf(nodes_[node].link);
}

void CrashingFileSystem::Apply(const DirOp& op, std::map<std::string, uint64_t>* entries) {
  switch (op.kind) {
    case DirOp::kLink: (*entries)[op.name] = op.node; break;
    case DirOp::kUnlink: entries->erase(op.name); break;
    case DirOp::kRename: {
      auto it = entries->find(op.name);
      if (it == entries->end()) break;  // its creation is not in this state: nothing moves
      const uint64_t node = it->second;
      entries->erase(it);
      (*entries)[op.to] = node;
      break;
    }
  }
}

size_t CrashingFileSystem::pending_dir_ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_.size();
}

Status CrashingFileSystem::Image(const std::string& out, std::mt19937_64& rng) {
  return Write(out, &rng);
}

Status CrashingFileSystem::ImageLosingAllUnsynced(const std::string& out) {
  return Write(out, nullptr);
}

Status CrashingFileSystem::Write(const std::string& out, std::mt19937_64* rng) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, uint64_t> entries = durable_;
  const size_t kept_ops = rng ? size_t((*rng)() % (pending_.size() + 1)) : 0;
  for (size_t i = 0; i < kept_ops; ++i) Apply(pending_[i], &entries);
  for (const auto& [name, id] : entries) {
    const Node& n = nodes_[id];
    const uint64_t size = SizeOf(n.link);
    const uint64_t synced = std::min(n.synced, size);
    if (!rng || synced == size || (*rng)() % 2 == 0) {
      const uint64_t length = synced + (rng ? (*rng)() % (size - synced + 1) : 0);
      REFTAB_RETURN_IF_ERROR(CopyPrefix(n.link, out + "/" + name, length));
      continue;
    }
    // The other half: the unsynced bytes written back in any order, by 512-byte sectors (a
    // page is several; a disk writes sectors). Each sector after the synced bytes is kept or
    // not; the file reaches the end of the last one kept, and those lost before it read as
    // zeros (blocks never written).
    constexpr uint64_t kPage = 512;
    std::vector<std::pair<uint64_t, uint64_t>> lost;  // [from, to)
    uint64_t length = synced;
    for (uint64_t at = synced; at < size; at = (at / kPage + 1) * kPage) {
      const uint64_t end = std::min(size, (at / kPage + 1) * kPage);
      if ((*rng)() % 2 == 0) {
        length = end;
      } else {
        lost.emplace_back(at, end);
      }
    }
    const std::string path = out + "/" + name;
    REFTAB_RETURN_IF_ERROR(CopyPrefix(n.link, path, length));
    REFTAB_RETURN_IF_ERROR(ZeroRanges(path, lost, length));
  }
  return Status::Ok();
}

Result<std::unique_ptr<RandomAccessFile>> CrashingFileSystem::OpenRead(const std::string& path) {
  return base_->OpenRead(path);
}

Result<std::unique_ptr<WritableFile>> CrashingFileSystem::Create(const std::string& path,
                                                                 bool exclusive) {
  if (before_create_) before_create_(path);
  // The lock covers the operation and its record, so that another thread's rename or
  // removal of the same name cannot come between them.
  std::lock_guard<std::mutex> lock(mu_);
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, base_->Create(path, exclusive));
  uint64_t node = kUntracked;
  if (const std::string name = NameIn(path); !name.empty()) {
    auto it = live_.find(name);
    if (!exclusive && it != live_.end()) {
      node = it->second;  // truncated: the same file, nothing of it durable now
      nodes_[node].synced = 0;
    } else {
      REFTAB_ASSIGN_OR_RETURN(node, AddNode(path, 0));
      live_[name] = node;
      pending_.push_back(DirOp{DirOp::kLink, name, "", node});
    }
  }
  return std::unique_ptr<WritableFile>(
      std::make_unique<CrashTrackedFile>(this, node, std::move(file)));
}

Result<std::unique_ptr<WritableFile>> CrashingFileSystem::OpenAppend(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, base_->OpenAppend(path));
  uint64_t node = kUntracked;
  if (const std::string name = NameIn(path); !name.empty()) {
    auto it = live_.find(name);
    if (it != live_.end()) node = it->second;
  }
  return std::unique_ptr<WritableFile>(
      std::make_unique<CrashTrackedFile>(this, node, std::move(file)));
}

Result<std::string> CrashingFileSystem::ReadFile(const std::string& path) {
  return base_->ReadFile(path);
}

Result<std::unique_ptr<PinnedFile>> CrashingFileSystem::ReadPinned(const std::string& path,
                                                                   std::string* contents,
                                                                   FileInfo* info) {
  return base_->ReadPinned(path, contents, info);
}

Status CrashingFileSystem::Rename(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mu_);
  REFTAB_RETURN_IF_ERROR(base_->Rename(from, to));
  const std::string a = NameIn(from);
  const std::string b = NameIn(to);
  if (a.empty() || b.empty()) return Status::Ok();
  auto it = live_.find(a);
  if (it == live_.end()) return Status::Ok();
  live_[b] = it->second;
  live_.erase(a);
  pending_.push_back(DirOp{DirOp::kRename, a, b, 0});
  return Status::Ok();
}

Status CrashingFileSystem::Remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  REFTAB_RETURN_IF_ERROR(base_->Remove(path));
  if (const std::string name = NameIn(path); !name.empty()) {
    live_.erase(name);
    pending_.push_back(DirOp{DirOp::kUnlink, name, "", 0});
  }
  return Status::Ok();
}

Result<std::vector<std::string>> CrashingFileSystem::ListDir(const std::string& dir) {
  return base_->ListDir(dir);
}

Result<FileInfo> CrashingFileSystem::Stat(const std::string& path) { return base_->Stat(path); }

Status CrashingFileSystem::SyncDir(const std::string& dir) {
  if (dir != dir_) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  for (const DirOp& op : pending_) Apply(op, &durable_);
  pending_.clear();
  return Status::Ok();
}

Status CrashingFileSystem::Chmod(const std::string& path, uint32_t mode) {
  return base_->Chmod(path, mode);
}

Result<std::unique_ptr<FileLock>> CrashingFileSystem::TryLock(const std::string& path) {
  return base_->TryLock(path);
}

}  // namespace reftab::testutil

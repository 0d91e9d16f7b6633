#include "store/temp_table.h"

#include <cstdio>

#include "store/trace.h"

namespace reftab {
namespace {

bool IsHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// 0x<min>-0x<max>-<random>, each part lower-case hex.
bool IsTableStem(std::string_view stem) {
  size_t dash1 = stem.find('-');
  size_t dash2 = dash1 == std::string_view::npos ? dash1 : stem.find('-', dash1 + 1);
  if (dash2 == std::string_view::npos || stem.substr(0, 2) != "0x" ||
      stem.substr(dash1 + 1, 2) != "0x") {
    return false;
  }
  return IsHex(stem.substr(2, dash1 - 2)) && IsHex(stem.substr(dash1 + 3, dash2 - dash1 - 3)) &&
         IsHex(stem.substr(dash2 + 1));
}

}  // namespace

bool IsTableName(std::string_view name) {
  return name.size() > 4 && name.substr(name.size() - 4) == ".ref" &&
         IsTableStem(name.substr(0, name.size() - 4));
}

bool IsTempTableName(std::string_view name) {
  size_t temp = name.find(".temp.");
  if (temp == std::string_view::npos || temp + 6 == name.size()) return false;
  if (name.find('/') != std::string_view::npos) return false;
  return IsTableStem(name.substr(0, temp));
}

TempTable::TempTable(FileSystem* fs, std::string dir, std::string path,
                     std::unique_ptr<BufferedSink> file)
    : fs_(fs), dir_(std::move(dir)), path_(std::move(path)), file_(std::move(file)) {}

TempTable::~TempTable() { Discard(); }

Result<std::unique_ptr<TempTable>> TempTable::Create(FileSystem* fs, const std::string& dir,
                                                     const std::string& stem,
                                                     std::optional<uint32_t> mode,
                                                     std::minstd_rand* rng, std::string buffer) {
  std::unique_ptr<TempTable> t;
  for (int attempt = 0; !t; ++attempt) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%06x", unsigned((*rng)() & 0xffffff));
    std::string path = dir + "/" + stem + ".temp." + suffix;
    auto created = fs->Create(path, /*exclusive=*/true);
    if (created.ok()) {
      // A table is written block by block, and log blocks deflate to a few hundred bytes:
      // one write call per block was 72k calls for 980k new refs with their reflogs
      // (58 MB), a second of system time on a VM where a call costs microseconds.
      auto buffered = std::make_unique<BufferedSink>(
          std::move(*created), BufferedSink::kDefaultChunk, std::move(buffer));
      t.reset(new TempTable(fs, dir, std::move(path), std::move(buffered)));
    } else if (created.status().code() != Code::kLockHeld || attempt > 100) {
      return created.status();
    }
  }
  if (mode) REFTAB_RETURN_IF_ERROR(fs->Chmod(t->path_, *mode));  // the destructor removes it
  auto owner = fs->TryLock(t->path_);
  if (owner.ok()) {
    t->owner_ = std::move(*owner);
  } else {
    REFTAB_TRACE(trace::kInfo, "%s: no advisory lock, relying on its age alone: %s",
                 t->path_.c_str(), owner.status().message().c_str());
  }
  return t;
}

Status TempTable::Finish(Durability durability) {
  Status s = durability != Durability::kNone ? file_->Sync() : Status::Ok();
  Status closed = file_->Close();
  return s.ok() ? closed : s;
}

void TempTable::Discard() {
  if (gone_) return;
  gone_ = true;
  if (file_) (void)file_->CloseUnflushed();  // its last bytes would only be removed again
  (void)fs_->Remove(path_);
  owner_.reset();
}

Status TempTable::Install(const std::string& name, Durability durability) {
  Status s = fs_->Rename(path_, dir_ + "/" + name);
  if (!s.ok()) {
    Discard();
    return s;
  }
  gone_ = true;
  owner_.reset();  // the file is a table now; the lock protected its temporary name only
  if (durability == Durability::kFull) {
    s = fs_->SyncDir(dir_);
    // Not durably in place, so it must not be published: take it away again.
    if (!s.ok()) (void)fs_->Remove(dir_ + "/" + name);
  }
  return s;
}

}  // namespace reftab

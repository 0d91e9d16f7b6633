#include "store/stack.h"

#include <chrono>
#include <random>
#include <thread>

namespace reftab {

// ------------------------------------------------------------------ Snapshot

Snapshot::Snapshot(std::vector<std::shared_ptr<const TableReader>> tables, HashId hash_id)
    : tables_(std::move(tables)), hash_id_(hash_id) {
  raw_.reserve(tables_.size());
  for (const auto& t : tables_) raw_.push_back(t.get());
}

uint64_t Snapshot::max_update_index() const {
  uint64_t m = 0;
  for (const auto& t : tables_) m = std::max(m, t->max_update_index());
  return m;
}

Status Snapshot::ReadRef(std::string_view name, RefRecord* ref, bool* found) const {
  *found = false;
  for (size_t i = tables_.size(); i-- > 0;) {
    bool here = false;
    REFTAB_RETURN_IF_ERROR(tables_[i]->ReadRef(name, ref, &here));
    if (here) {
      *found = !ref->is_deletion();
      return Status::Ok();
    }
  }
  return Status::Ok();
}

MergedRefIterator Snapshot::NewRefIterator() const { return MergedRefIterator(raw_); }
MergedLogIterator Snapshot::NewLogIterator() const { return MergedLogIterator(raw_); }

// ------------------------------------------------------------------ tables.list

Status ParseTablesList(std::string_view contents, std::vector<std::string>* names) {
  names->clear();
  if (contents.empty()) return Status::Ok();
  if (contents.back() != '\n') {
    return Status::Corruption("tables.list: last line does not end in a newline");
  }
  size_t pos = 0;
  while (pos < contents.size()) {
    size_t nl = contents.find('\n', pos);
    std::string_view line = contents.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    if (line == "." || line == ".." || line.find('/') != std::string_view::npos ||
        line.find('\0') != std::string_view::npos) {
      return Status::Corruption("tables.list: bad table name '" + std::string(line) + "'");
    }
    names->emplace_back(line);
  }
  return Status::Ok();
}

// ------------------------------------------------------------------ Stack

Stack::Stack(std::string dir, const StackOptions& options)
    : dir_(std::move(dir)), options_(options), fs_(options.fs ? options.fs : PosixFileSystem()) {}

Result<std::unique_ptr<Stack>> Stack::Open(const std::string& dir, const StackOptions& options) {
  std::unique_ptr<Stack> stack(new Stack(dir, options));
  REFTAB_RETURN_IF_ERROR(stack->Reload());
  return stack;
}

Status Stack::ReadList(std::vector<std::string>* names) {
  auto contents = fs_->ReadFile(dir_ + "/tables.list");
  if (!contents.ok()) {
    if (contents.status().code() == Code::kNotFound) {
      names->clear();
      return Status::Ok();
    }
    return contents.status();
  }
  return ParseTablesList(*contents, names).WithContext(dir_);
}

Status Stack::TryLoad(const std::vector<std::string>& names) {
  std::vector<std::shared_ptr<const TableReader>> tables;
  tables.reserve(names.size());
  std::optional<HashId> hash = options_.hash_id;
  for (const std::string& name : names) {
    std::shared_ptr<const TableReader> table;
    if (snapshot_) {
      for (size_t i = 0; i < names_.size() && i < snapshot_->tables().size(); ++i) {
        if (names_[i] == name) table = snapshot_->tables()[i];
      }
    }
    if (!table) {
      auto file = fs_->OpenRead(dir_ + "/" + name);
      if (!file.ok()) return file.status();
      auto opened = TableReader::Open(std::move(*file));
      if (!opened.ok()) return opened.status();
      table = std::shared_ptr<const TableReader>(std::move(*opened));
    }
    if (!hash) hash = table->hash_id();
    if (table->hash_id() != *hash) {
      return Status::Corruption(table->name() + ": hash differs from the stack's object format");
    }
    tables.push_back(std::move(table));
  }
  snapshot_ = std::make_shared<const Snapshot>(std::move(tables), hash.value_or(HashId::kSha1));
  names_ = names;
  return Status::Ok();
}

Status Stack::Reload() {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(3000);
  std::minstd_rand rng(std::random_device{}());
  uint64_t delay_ms = 0;
  for (int tries = 1;; ++tries) {
    std::vector<std::string> names;
    REFTAB_RETURN_IF_ERROR(ReadList(&names));
    Status s = TryLoad(names);
    if (s.ok() || s.code() != Code::kNotFound) return s;
    // A listed table is missing: if the list changed meanwhile a compaction replaced it, so
    // try again; if not, the stack is really broken.
    std::vector<std::string> after;
    REFTAB_RETURN_IF_ERROR(ReadList(&after));
    if (after == names) return s;
    if (tries >= 3 && Clock::now() >= deadline) {
      return Status::NotFound(dir_ + ": tables kept disappearing while reloading (" + s.message() + ")");
    }
    delay_ms = delay_ms + delay_ms * (rng() % 1000) / 2000 + 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
}

}  // namespace reftab

#include "store/table_reader.h"

#include <cstring>

#include "format/record_codec.h"

namespace reftab {
namespace {

// Index levels a valid table can have are few (each level divides by the records per
// block); a deeper chain means the index points in a loop.
constexpr int kMaxIndexDepth = 16;

const char* SectionName(BlockType t) {
  switch (t) {
    case BlockType::kRef: return "ref";
    case BlockType::kLog: return "log";
    case BlockType::kObj: return "obj";
    case BlockType::kIndex: return "index";
  }
  return "?";
}

}  // namespace

// ---------------------------------------------------------------- SectionCursor

namespace internal {

Status SectionCursor::Corrupt(std::string_view what) {
  active_ = false;
  if (status_.ok()) status_ = table_->Error(what);
  return status_;
}

void SectionCursor::FailValue() {
  const BlockView& b = it_.block();
  it_.Fail();
  (void)Corrupt("block at offset " + std::to_string(b.offset) + ": malformed " + SectionName(type_) +
          " record");
}

Status SectionCursor::Load(uint64_t offset) {
  const BlockSource& src = table_->source();
  uint8_t t = PeekBlockType(src, offset);
  if (t != uint8_t(type_)) {
    return Corrupt("block at offset " + std::to_string(offset) + ": expected a " +
                   SectionName(type_) + " block");
  }
  if (type_ == BlockType::kLog && !inflater_) inflater_ = std::make_unique<Inflater>();
  BlockView view;
  Status s = DecodeBlock(src, offset, inflater_.get(), &log_buf_, &view);
  if (!s.ok()) {
    active_ = false;
    if (status_.ok()) status_ = std::move(s).WithContext(table_->name());
    return status_;
  }
  it_.Init(view, table_->hash_size());
  active_ = true;
  return Status::Ok();
}

bool SectionCursor::NextBlock() {
  for (;;) {
    if (it_.error()) {
      FailValue();
      return false;
    }
    const BlockView& b = it_.block();
    uint64_t next = b.offset + b.full_size;
    if (PeekBlockType(table_->source(), next) != uint8_t(type_)) {
      active_ = false;
      return false;
    }
    if (!Load(next).ok()) return false;
    if (it_.NextKey()) return true;
  }
}

Status SectionCursor::SeekToFirst() {
  uint64_t start = 0;
  bool present = false;
  switch (type_) {
    case BlockType::kRef: present = table_->RefSectionStart(&start); break;
    case BlockType::kLog: present = table_->LogSectionStart(&start); break;
    case BlockType::kObj: present = table_->ObjSectionStart(&start); break;
    case BlockType::kIndex: present = false; break;
  }
  active_ = false;
  if (!status_.ok()) return status_;
  if (!present) return Status::Ok();
  return Load(start);
}

Status SectionCursor::SeekLinear(uint64_t start, std::string_view want) {
  REFTAB_RETURN_IF_ERROR(Load(start));
  // Only a block's first key is cheap to read: look one block ahead, step back if needed.
  for (;;) {
    const BlockView& b = it_.block();
    uint64_t prev = b.offset;
    uint64_t next = b.offset + b.full_size;
    if (PeekBlockType(table_->source(), next) != uint8_t(type_)) break;
    REFTAB_RETURN_IF_ERROR(Load(next));
    std::string_view first;
    if (!it_.FirstKey(&first)) {
      return Corrupt("block at offset " + std::to_string(next) + ": malformed first record");
    }
    if (first > want) {
      REFTAB_RETURN_IF_ERROR(Load(prev));
      break;
    }
  }
  if (!it_.Seek(want)) FailValue();
  return status_;
}

Status SectionCursor::Seek(std::string_view want) {
  active_ = false;
  if (!status_.ok()) return status_;
  uint64_t index_pos = type_ == BlockType::kIndex ? 0 : table_->IndexPosition(type_);
  if (index_pos == 0) {
    uint64_t start = 0;
    bool present = false;
    switch (type_) {
      case BlockType::kRef: present = table_->RefSectionStart(&start); break;
      case BlockType::kLog: present = table_->LogSectionStart(&start); break;
      case BlockType::kObj: present = table_->ObjSectionStart(&start); break;
      case BlockType::kIndex: break;
    }
    if (!present) return Status::Ok();
    return SeekLinear(start, want);
  }
  // Top level: up to a few consecutive index blocks, scanned linearly.
  SectionCursor idx(table_, BlockType::kIndex);
  Status s = idx.SeekLinear(index_pos, want);
  for (int depth = 0; s.ok() && depth < kMaxIndexDepth; ++depth) {
    if (!idx.NextKey()) {
      if (!idx.status().ok()) break;
      return Status::Ok();  // every key in the section is smaller than `want`
    }
    ByteReader in = idx.it().value();
    uint64_t pos = in.GetVarint();
    if (!in.ok()) {
      idx.FailValue();
      break;
    }
    uint8_t t = PeekBlockType(table_->source(), pos);
    if (t == uint8_t(type_)) {
      REFTAB_RETURN_IF_ERROR(Load(pos));
      if (!it_.Seek(want)) FailValue();
      return status_;
    }
    if (t != uint8_t(BlockType::kIndex)) {
      return Corrupt("index record points at offset " + std::to_string(pos) +
                     ", which holds no " + SectionName(type_) + " or index block");
    }
    s = idx.Load(pos);
    if (s.ok() && !idx.it().Seek(want)) idx.FailValue();
    s = idx.status();
  }
  if (!idx.status().ok()) {
    status_ = idx.status();
    return status_;
  }
  return Corrupt(std::string(SectionName(type_)) + " index is nested too deeply (a loop?)");
}

}  // namespace internal

// ---------------------------------------------------------------- iterators

TableRefIterator::TableRefIterator(const TableReader* table)
    : cursor_(table, BlockType::kRef),
      min_update_index_(table->min_update_index()),
      hash_size_(table->hash_size()) {}

bool TableRefIterator::Next(RefRecord* ref) {
  if (!cursor_.NextKey()) return false;
  BlockIterator& it = cursor_.it();
  ref->refname.assign(it.key().data(), it.key().size());
  ByteReader in = it.value();
  if (!codec::GetRefValue(in, it.value_type(), min_update_index_, hash_size_, ref)) {
    cursor_.FailValue();
    return false;
  }
  it.ValueDone(in);
  return true;
}

TableLogIterator::TableLogIterator(const TableReader* table)
    : cursor_(table, BlockType::kLog), hash_size_(table->hash_size()) {}

Status TableLogIterator::Seek(std::string_view refname) {
  return SeekAt(refname, ~uint64_t(0));
}

Status TableLogIterator::SeekAt(std::string_view refname, uint64_t update_index) {
  codec::PutLogKey(&key_, refname, update_index);
  return cursor_.Seek(key_);
}

bool TableLogIterator::Next(LogRecord* log) {
  if (!cursor_.NextKey()) return false;
  BlockIterator& it = cursor_.it();
  ByteReader in = it.value();
  if (!codec::SplitLogKey(it.key(), &log->refname, &log->update_index) ||
      !codec::GetLogValue(in, it.value_type(), hash_size_, log)) {
    cursor_.FailValue();
    return false;
  }
  it.ValueDone(in);
  return true;
}

// ---------------------------------------------------------------- TableReader

TableReader::TableReader(std::unique_ptr<RandomAccessFile> file, const TableFooter& footer)
    : file_(std::move(file)), footer_(footer) {
  source_.data = file_->data();
  source_.table_size = file_->size() - footer_.header.footer_size();
  source_.header_size = uint32_t(footer_.header.header_size());
  source_.block_size = footer_.header.block_size;
}

Status TableReader::Error(std::string_view what) const {
  return Status::Corruption(name() + ": " + std::string(what));
}

Result<std::unique_ptr<TableReader>> TableReader::Open(std::unique_ptr<RandomAccessFile> file) {
  const std::string& name = file->name();
  const uint8_t* data = file->data();
  uint64_t size = file->size();
  auto header = TableHeader::DecodeFrom(data, size);
  if (!header.ok()) return header.status().WithContext(name + ": offset 0");
  uint64_t fs = header->footer_size();
  if (size < header->header_size() + fs) {
    return Status::Corruption(name + ": file of " + std::to_string(size) +
                              " bytes is too small for header and footer (truncated?)");
  }
  uint64_t footer_off = size - fs;
  auto footer = TableFooter::DecodeFrom(data + footer_off, fs, data);
  if (!footer.ok()) {
    return footer.status().WithContext(name + ": footer at offset " + std::to_string(footer_off));
  }
  const TableFooter& f = *footer;
  uint64_t table_size = footer_off;
  auto bad_pos = [&](uint64_t pos, const char* field) -> Status {
    return Status::Corruption(name + ": footer at offset " + std::to_string(footer_off) + ": " +
                              field + " " + std::to_string(pos) + " is past the block data");
  };
  if (f.ref_index_position >= table_size && f.ref_index_position) {
    return bad_pos(f.ref_index_position, "ref_index_position");
  }
  if (f.obj_position >= table_size && f.obj_position) return bad_pos(f.obj_position, "obj_position");
  if (f.obj_index_position >= table_size && f.obj_index_position) {
    return bad_pos(f.obj_index_position, "obj_index_position");
  }
  if (f.log_position >= table_size && f.log_position) return bad_pos(f.log_position, "log_position");
  if (f.log_index_position >= table_size && f.log_index_position) {
    return bad_pos(f.log_index_position, "log_index_position");
  }
  if (f.obj_position && f.obj_id_len > f.header.hash_size()) {
    return Status::Corruption(name + ": footer: obj_id_len " + std::to_string(f.obj_id_len) +
                              " is longer than the hash");
  }
  return std::unique_ptr<TableReader>(new TableReader(std::move(file), f));
}

Result<std::unique_ptr<TableReader>> TableReader::OpenBytes(std::string name, std::string bytes) {
  return Open(NewMemoryFile(std::move(name), std::move(bytes)));
}

bool TableReader::RefSectionStart(uint64_t* offset) const {
  *offset = 0;
  return PeekBlockType(source_, 0) == uint8_t(BlockType::kRef);
}

bool TableReader::LogSectionStart(uint64_t* offset) const {
  if (footer_.log_position > 0) {
    *offset = footer_.log_position;
    return true;
  }
  *offset = 0;
  return PeekBlockType(source_, 0) == uint8_t(BlockType::kLog);
}

bool TableReader::ObjSectionStart(uint64_t* offset) const {
  *offset = footer_.obj_position;
  return footer_.obj_position > 0;
}

uint64_t TableReader::IndexPosition(BlockType section) const {
  switch (section) {
    case BlockType::kRef: return footer_.ref_index_position;
    case BlockType::kObj: return footer_.obj_index_position;
    case BlockType::kLog: return footer_.log_index_position;
    case BlockType::kIndex: return 0;
  }
  return 0;
}

Status TableReader::ReadRef(std::string_view name, RefRecord* ref, bool* found) const {
  *found = false;
  internal::SectionCursor cursor(this, BlockType::kRef);
  REFTAB_RETURN_IF_ERROR(cursor.Seek(name));
  if (!cursor.NextKey()) return cursor.status();
  BlockIterator& it = cursor.it();
  if (it.key() != name) return Status::Ok();
  ByteReader in = it.value();
  if (!codec::GetRefValue(in, it.value_type(), min_update_index(), hash_size(), ref)) {
    cursor.FailValue();
    return cursor.status();
  }
  ref->refname.assign(name.data(), name.size());
  *found = true;
  return Status::Ok();
}

static bool RefHasId(const RefRecord& r, const ObjectId& id, size_t hash_size) {
  if (r.value_type != RefValueType::kVal1 && r.value_type != RefValueType::kVal2) return false;
  if (std::memcmp(r.value.data(), id.data(), hash_size) == 0) return true;
  return r.value_type == RefValueType::kVal2 &&
         std::memcmp(r.peeled.data(), id.data(), hash_size) == 0;
}

Status TableReader::ScanRefsFor(const ObjectId& id, std::vector<RefRecord>* out) const {
  TableRefIterator it(this);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  RefRecord r;
  while (it.Next(&r)) {
    if (RefHasId(r, id, hash_size())) out->push_back(r);
  }
  return it.status();
}

Status TableReader::RefsFor(const ObjectId& id, std::vector<RefRecord>* out) const {
  uint64_t obj_start;
  if (!ObjSectionStart(&obj_start)) return ScanRefsFor(id, out);
  std::string_view prefix(reinterpret_cast<const char*>(id.data()), footer_.obj_id_len);
  internal::SectionCursor cursor(this, BlockType::kObj);
  REFTAB_RETURN_IF_ERROR(cursor.Seek(prefix));
  if (!cursor.NextKey()) return cursor.status();
  BlockIterator& it = cursor.it();
  if (it.key() != prefix) return Status::Ok();  // no ref points at an id with this prefix
  std::vector<uint64_t> positions;
  ByteReader in = it.value();
  if (!codec::GetObjValue(in, it.value_type(), &positions)) {
    cursor.FailValue();
    return cursor.status();
  }
  if (positions.empty()) return ScanRefsFor(id, out);  // count 0: "scan all refs"
  BlockView view;
  BlockIterator block_it;
  RefRecord r;
  for (uint64_t pos : positions) {
    if (PeekBlockType(source_, pos) != uint8_t(BlockType::kRef)) {
      return Error("obj record points at offset " + std::to_string(pos) + ", not a ref block");
    }
    Status s = DecodeBlock(source_, pos, nullptr, nullptr, &view);
    if (!s.ok()) return std::move(s).WithContext(name());
    block_it.Init(view, hash_size());
    while (block_it.NextKey()) {
      ByteReader v = block_it.value();
      if (!codec::GetRefValue(v, block_it.value_type(), min_update_index(), hash_size(), &r)) {
        return Error("block at offset " + std::to_string(pos) + ": malformed ref record");
      }
      block_it.ValueDone(v);
      if (RefHasId(r, id, hash_size())) {
        r.refname.assign(block_it.key().data(), block_it.key().size());
        out->push_back(r);
      }
    }
    if (block_it.error()) {
      return Error("block at offset " + std::to_string(pos) + ": malformed ref record");
    }
  }
  return Status::Ok();
}

Status TableReader::ForEachBlock(const std::function<Status(const BlockView&)>& fn) const {
  uint64_t off = 0;
  if (!RefSectionStart(&off) && !LogSectionStart(&off)) {
    if (PeekBlockType(source_, 0) == 0) return Status::Ok();  // no blocks at all
    off = 0;
  }
  Inflater inflater;
  std::vector<uint8_t> log_buf;
  while (off < source_.table_size) {
    BlockView view;
    Status s = DecodeBlock(source_, off, &inflater, &log_buf, &view);
    if (!s.ok()) return std::move(s).WithContext(name());
    REFTAB_RETURN_IF_ERROR(fn(view));
    off += view.full_size;
  }
  return Status::Ok();
}

}  // namespace reftab

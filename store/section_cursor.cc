// The out-of-line steps of the section cursors (store/section_cursor.h): block loads, seeks,
// and what happens at the end of a block or on a malformed record.
#include "store/section_cursor.h"

#include <string>

#include "store/trace.h"

namespace reftab {

// ---------------------------------------------------------------- SectionCursor

void SectionCursor::Stop() {
  active_ = false;
  it_.Stop();
}

Status SectionCursor::Corrupt(std::string_view what) {
  Stop();
  if (status_.ok()) status_ = table_->Error(what);
  return status_;
}

void SectionCursor::FailValue() {
  const BlockView& b = it_.block();
  it_.Fail();
  (void)Corrupt("block at offset " + std::to_string(b.offset) + ": malformed " +
                SectionName(type_) + " record");
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
  REFTAB_TRACE(trace::kBlock, "%s: %s block at %llu: %s", table_->name().c_str(),
               SectionName(type_), (unsigned long long)offset,
               s.ok() ? "read" : s.message().c_str());
  if (!s.ok()) {
    Stop();
    if (status_.ok()) status_ = std::move(s).WithContext(table_->name());
    return status_;
  }
  Enter(view);
  return Status::Ok();
}

void SectionCursor::Enter(const BlockView& view) {
  it_.Init(view, table_->hash_size());
  const uint64_t offset = view.offset;
  if (bounded_ && offset >= bound_block_) it_.LimitTo(offset == bound_block_ ? bound_pos_ : 0);
  active_ = true;
}

bool SectionCursor::LoadAhead(uint64_t offset) {
  if (!window_) window_ = std::make_unique<ReadaheadWindow>();
  BlockView view;
  switch (window_->LoadForward(*table_, offset, type_, &view)) {
    case ReadaheadWindow::Load::kLoaded: Enter(view); return true;
    case ReadaheadWindow::Load::kNotHere: return false;
    case ReadaheadWindow::Load::kReadFailed: readahead_ = false; return false;
  }
  return false;
}

bool SectionCursor::NextBlock() {
  if (!active_) return false;  // see NextKey()
  for (;;) {
    if (it_.error()) {
      FailValue();
      return false;
    }
    const BlockView& b = it_.block();
    if (bounded_ && b.offset >= bound_block_) {  // the end of SeekRange's range
      Stop();
      return false;
    }
    uint64_t next = b.offset + b.full_size;
    passed_ += b.full_size;
    if (!readahead_ || passed_ < readahead_after_ || !LoadAhead(next)) {
      if (PeekBlockType(table_->source(), next) != uint8_t(type_)) {
        Stop();
        Status end = table_->CheckSectionEnd(next, type_);
        if (!end.ok() && status_.ok()) status_ = std::move(end);
        return false;
      }
      if (!Load(next).ok()) return false;
    }
    if (it_.NextKey()) return true;
  }
}

bool SectionCursor::SectionStart(uint64_t* start) const {
  switch (type_) {
    case BlockType::kRef: return table_->RefSectionStart(start);
    case BlockType::kLog: return table_->LogSectionStart(start);
    case BlockType::kObj: return table_->ObjSectionStart(start);
    case BlockType::kIndex: break;  // index levels are reached through their section
  }
  return false;
}

Status SectionCursor::SeekToFirst() {
  bounded_ = false;
  passed_ = 0;
  uint64_t start = 0;
  const bool present = SectionStart(&start);
  Stop();
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
    if (PeekBlockType(table_->source(), next) != uint8_t(type_)) {
      Status end = table_->CheckSectionEnd(next, type_);
      if (!end.ok()) {
        Stop();
        status_ = std::move(end);
        return status_;
      }
      break;
    }
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
  bounded_ = false;
  passed_ = 0;
  return SeekFrom(want);
}

Status SectionCursor::SeekRange(std::string_view want, std::string_view limit) {
  bounded_ = false;
  passed_ = 0;
  Stop();
  if (!status_.ok()) return status_;
  if (!limit.empty() && type_ != BlockType::kLog) REFTAB_RETURN_IF_ERROR(PlaceBound(limit));
  return SeekFrom(want);
}

Status SectionCursor::PlaceBound(std::string_view limit) {
  uint64_t at = 0;
  uint64_t index_pos = type_ == BlockType::kIndex ? 0 : table_->IndexPosition(type_);
  if (index_pos != 0) {
    bool found = false;
    Status s = table_->FindIndexedBlock(type_, limit, &at, &found);
    if (!s.ok()) {
      status_ = std::move(s);
      return status_;
    }
    if (!found) return Status::Ok();  // every key is < limit: the section's end is the bound
  } else if (!SectionStart(&at)) {
    return Status::Ok();
  }
  // Without an index (a small table), or if the indexed block ends below `limit`, walk on.
  const BlockSource& src = table_->source();
  while (PeekBlockType(src, at) == uint8_t(type_)) {
    BlockView view;
    Status s = DecodeBlock(src, at, nullptr, nullptr, &view);
    if (!s.ok()) {
      if (status_.ok()) status_ = std::move(s).WithContext(table_->name());
      return status_;
    }
    BlockFind f = FindInBlock(view, limit, table_->hash_size());
    if (f.result == BlockFind::kCorrupt) {
      return Corrupt("block at offset " + std::to_string(at) + ": malformed " + SectionName(type_) +
                     " record");
    }
    if (f.result != BlockFind::kEnd) {
      bounded_ = true;
      bound_block_ = at;
      bound_pos_ = f.record_pos;
      return Status::Ok();
    }
    at += view.full_size;
  }
  // The section ends first (a malformed end is for the scan to report).
  return Status::Ok();
}

Status SectionCursor::SeekFrom(std::string_view want) {
  Stop();
  if (!status_.ok()) return status_;
  uint64_t index_pos = type_ == BlockType::kIndex ? 0 : table_->IndexPosition(type_);
  if (index_pos == 0) {
    uint64_t start = 0;
    if (!SectionStart(&start)) return Status::Ok();
    return SeekLinear(start, want);
  }
  if (type_ == BlockType::kRef && !bounded_ && TryExact()) {
    uint64_t block = 0;
    uint32_t record = 0;
    TableReader::ExactRef exact = TableReader::ExactRef::kNoIndex;
    Status s = table_->FindExactRef(want, &block, &record, &exact);
    if (!s.ok()) {
      status_ = std::move(s);
      return status_;
    }
    if (exact == TableReader::ExactRef::kFound) {
      exact_misses_ = 0;
      REFTAB_RETURN_IF_ERROR(Load(block));
      if (!it_.PositionAt(record, want)) FailValue();
      return status_;
    }
    if (exact == TableReader::ExactRef::kAbsent && exact_misses_ < kExactMissRun) ++exact_misses_;
  }
  uint64_t leaf = 0;
  bool found = false;
  Status s = table_->FindIndexedBlock(type_, want, &leaf, &found);
  if (!s.ok()) {
    status_ = std::move(s);
    return status_;
  }
  if (!found) return Status::Ok();  // every key in the section is smaller than `want`
  REFTAB_RETURN_IF_ERROR(Load(leaf));
  if (!it_.Seek(want)) FailValue();
  return status_;
}

// ---------------------------------------------------------------- TableRefCursor

bool TableRefCursor::DecodeOtherValue(RefRecord* ref) {
  BlockIterator& it = cursor_.it();
  ByteReader in = it.value();
  if (!codec::GetRefValue(in, it.value_type(), min_update_index_, hash_size_, ref)) {
    cursor_.FailValue();
    return false;
  }
  it.ValueDone(in);
  return true;
}

// ---------------------------------------------------------------- TableLogCursor

Status TableLogCursor::SeekAt(std::string_view refname, uint64_t update_index) {
  codec::PutLogKey(&key_, refname, update_index);
  return cursor_.Seek(key_);
}

bool TableLogCursor::ReadValue(LogRecord* log) {
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

}  // namespace reftab

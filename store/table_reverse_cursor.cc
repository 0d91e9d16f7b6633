#include "store/table_reverse_cursor.h"

#include <algorithm>
#include <string>

#include "format/record_codec.h"

namespace reftab {

namespace {

// Index levels deeper than this mean the index points in a loop (as DescendIndex says).
constexpr int kMaxIndexDepth = 16;

std::string At(uint64_t offset) { return "block at offset " + std::to_string(offset); }

}  // namespace

Status TableRefReverseCursor::Fail(Status s) {
  valid_ = false;
  if (status_.ok()) status_ = std::move(s);
  return status_;
}

Status TableRefReverseCursor::BlockDamage() {
  const BlockView& b = it_.block();
  const uint32_t at = it_.error_offset();
  return Fail(table_->Error(At(b.offset) + ": malformed " +
                            (at >= b.restart_off ? "restart table" : "ref record") + " at offset " +
                            std::to_string(b.offset + at)));
}

Status TableRefReverseCursor::Load(uint64_t offset) {
  const BlockSource& src = table_->source();
  if (PeekBlockType(src, offset) != uint8_t(BlockType::kRef)) {
    return Fail(table_->Error(At(offset) + ": expected a ref block"));
  }
  BlockView view;
  Status s = DecodeBlock(src, offset, nullptr, nullptr, &view);
  if (!s.ok()) return Fail(std::move(s).WithContext(table_->name()));
  it_.Init(view, table_->hash_size());
  return Status::Ok();
}

Status TableRefReverseCursor::WalkSection() {
  if (walked_) return Status::Ok();
  const BlockSource& src = table_->source();
  uint64_t pos = 0;
  if (table_->RefSectionStart(&pos)) {
    // Each block is at least its header long: the walk moves forwards and ends.
    while (PeekBlockType(src, pos) == uint8_t(BlockType::kRef)) {
      BlockView view;
      Status s = DecodeBlock(src, pos, nullptr, nullptr, &view);
      if (!s.ok()) return Fail(std::move(s).WithContext(table_->name()));
      offsets_.push_back(pos);
      pos += view.full_size;
    }
  }
  walked_ = true;
  return Status::Ok();
}

bool TableRefReverseCursor::AlignedBefore(uint64_t start, uint64_t offset, uint64_t* before) const {
  const uint64_t size = table_->source().block_size;
  if (size == 0 || offset < start || offset - start < size) return false;
  *before = offset - size;
  return true;
}

bool TableRefReverseCursor::WalkedBefore(uint64_t offset, uint64_t* before) const {
  auto at = std::lower_bound(offsets_.begin(), offsets_.end(), offset);
  if (at == offsets_.begin()) return false;
  *before = *(at - 1);
  return true;
}

Status TableRefReverseCursor::BlockBefore(uint64_t offset, uint64_t* before, bool* found) {
  *found = false;
  uint64_t start = 0;
  if (!table_->RefSectionStart(&start) || offset <= start) return Status::Ok();
  const BlockSource& src = table_->source();
  uint64_t candidate = 0;
  if (AlignedBefore(start, offset, &candidate)) {
    BlockView view;
    if (PeekBlockType(src, candidate) == uint8_t(BlockType::kRef) &&
        DecodeBlock(src, candidate, nullptr, nullptr, &view).ok() &&
        candidate + view.full_size == offset) {
      *before = candidate;
      *found = true;
      return Status::Ok();
    }
  }
  REFTAB_RETURN_IF_ERROR(WalkSection());
  *found = WalkedBefore(offset, before);
  return Status::Ok();
}

Status TableRefReverseCursor::LastBlock(uint64_t* offset, bool* found) {
  *found = false;
  const BlockSource& src = table_->source();
  uint64_t pos = table_->IndexPosition(BlockType::kRef);
  if (pos == 0) {
    REFTAB_RETURN_IF_ERROR(WalkSection());
    if (offsets_.empty()) return Status::Ok();
    *offset = offsets_.back();
    *found = true;
    return Status::Ok();
  }
  // The top level of the index may span several blocks, which end it: its last one.
  for (;;) {
    BlockView view;
    if (PeekBlockType(src, pos) != uint8_t(BlockType::kIndex)) break;
    Status s = DecodeBlock(src, pos, nullptr, nullptr, &view);
    if (!s.ok()) return Fail(std::move(s).WithContext(table_->name()));
    if (PeekBlockType(src, pos + view.full_size) != uint8_t(BlockType::kIndex)) break;
    pos += view.full_size;
  }
  // Down the last entry of each level.
  BlockReverseCursor level;
  for (int depth = 0; depth < kMaxIndexDepth; ++depth) {
    if (PeekBlockType(src, pos) != uint8_t(BlockType::kIndex)) {
      return Fail(table_->Error(At(pos) + ": expected a index block"));
    }
    BlockView view;
    Status s = DecodeBlock(src, pos, nullptr, nullptr, &view);
    if (!s.ok()) return Fail(std::move(s).WithContext(table_->name()));
    level.Init(view, table_->hash_size());
    if (!level.SeekToLast()) {
      return Fail(table_->Error(At(pos) + ": malformed index record at offset " +
                                std::to_string(pos + level.error_offset())));
    }
    ByteReader in = level.value();
    const uint64_t child = in.GetVarint();
    if (!in.ok()) return Fail(table_->Error(At(pos) + ": malformed index record"));
    const uint8_t type = PeekBlockType(src, child);
    if (type == uint8_t(BlockType::kRef)) {
      *offset = child;
      *found = true;
      return Status::Ok();
    }
    if (type != uint8_t(BlockType::kIndex)) {
      return Fail(table_->Error(At(pos) + ": index entry points at offset " +
                                std::to_string(child) + ", which holds no ref or index block"));
    }
    pos = child;
  }
  return Fail(table_->Error("ref index deeper than " + std::to_string(kMaxIndexDepth) +
                            " levels (a loop?)"));
}

Status TableRefReverseCursor::SeekToLast() {
  valid_ = false;
  passed_ = 0;
  if (!status_.ok()) return status_;
  uint64_t offset = 0;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(LastBlock(&offset, &found));
  if (!found) return Status::Ok();
  REFTAB_RETURN_IF_ERROR(Load(offset));
  if (!it_.SeekToLast()) return BlockDamage();  // a block holds at least one record
  valid_ = true;
  return Status::Ok();
}

Status TableRefReverseCursor::SeekBefore(std::string_view want, bool inclusive) {
  valid_ = false;
  passed_ = 0;
  if (!status_.ok()) return status_;
  uint64_t offset = 0;
  bool found = false;
  const uint64_t index_pos = table_->IndexPosition(BlockType::kRef);
  if (index_pos != 0) {
    Status s = table_->DescendIndex(index_pos, BlockType::kRef, want, &offset, &found);
    if (!s.ok()) return Fail(std::move(s));
  }
  if (!found) REFTAB_RETURN_IF_ERROR(LastBlock(&offset, &found));
  // Each block before is at a smaller offset: the loop ends.
  while (found) {
    REFTAB_RETURN_IF_ERROR(Load(offset));
    if (it_.SeekBefore(want, inclusive)) {
      valid_ = true;
      return Status::Ok();
    }
    if (it_.error()) return BlockDamage();
    REFTAB_RETURN_IF_ERROR(BlockBefore(offset, &offset, &found));
  }
  return Status::Ok();
}

bool TableRefReverseCursor::LoadBehind(uint64_t offset) {
  uint64_t start = 0;
  if (!table_->RefSectionStart(&start) || offset <= start) return false;
  // The block before, as BlockBefore finds it (checked below as it checks it), without
  // walking the section through the mapping: that is BlockBefore's to do.
  const BlockSource& src = table_->source();
  uint64_t before = 0;
  if (!AlignedBefore(start, offset, &before) && !(walked_ && WalkedBefore(offset, &before))) {
    return false;
  }
  if (!window_) window_ = std::make_unique<ReadaheadWindow>();
  // The block and the byte after it (see ReadaheadWindow::Decode).
  if (!window_->Cover(*table_, before, std::min(offset + 1, src.table_size), /*backward=*/true)) {
    readahead_ = false;
    return false;
  }
  BlockView view;
  if (!window_->Decode(*table_, before, &view) || view.type != BlockType::kRef ||
      before + view.full_size != offset) {
    return false;
  }
  it_.Init(view, table_->hash_size());
  return true;
}

void TableRefReverseCursor::PrevBlock() {
  valid_ = false;
  if (it_.error()) {
    (void)BlockDamage();
    return;
  }
  const uint64_t at = it_.block().offset;
  passed_ += it_.block().full_size;
  if (!readahead_ || passed_ < readahead_after_ || !LoadBehind(at)) {
    uint64_t offset = 0;
    bool found = false;
    if (!BlockBefore(at, &offset, &found).ok() || !found) return;
    if (!Load(offset).ok()) return;
  }
  if (!it_.SeekToLast()) {
    (void)BlockDamage();
    return;
  }
  valid_ = true;
}

bool TableRefReverseCursor::ReadOtherValue(RefRecord* ref) {
  ByteReader in = it_.value();
  if (!codec::GetRefValue(in, it_.value_type(), table_->min_update_index(), table_->hash_size(),
                          ref)) {
    const BlockView& b = it_.block();
    (void)Fail(table_->Error(At(b.offset) + ": malformed ref record"));
    return false;
  }
  Assign(key(), &ref->refname);
  return true;
}

bool TableRefReverseCursor::ReadValue(RefView* ref) {
  ByteReader in = it_.value();
  ref->value_type = it_.value_type();
  if (GetShortKvValue(ref->value_type, in.pos(), in.pos() + in.remaining(), &ref->value)) {
    Assign(key(), &ref->refname);
    return true;
  }
  if (!GetRefValueView(in, ref->value_type, table_->hash_size(), &ref->value)) {
    const BlockView& b = it_.block();
    (void)Fail(table_->Error(At(b.offset) + ": malformed ref record"));
    return false;
  }
  Assign(key(), &ref->refname);
  return true;
}

}  // namespace reftab

#include "store/index_check.h"

#include "format/bytes.h"
#include "store/section_cursor.h"

namespace reftab {

IndexCheck::IndexCheck(const TableReader& t, BlockType section)
    : t_(t), section_(section), root_(t.IndexPosition(section)) {
  // Levels are never moved once in use: their restart checks point at their views.
  if (active()) levels_.reserve(TableReader::kMaxIndexDepth);
}

std::string IndexCheck::Key(std::string_view key) const {
  std::string out;
  if (section_ != BlockType::kObj) {
    out.reserve(key.size() + 2);
    out.push_back('\'');
    out.append(key);
    out.push_back('\'');
    return out;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  for (char c : key) {
    out += kDigits[uint8_t(c) >> 4];
    out += kDigits[uint8_t(c) & 15];
  }
  return out;
}

Status IndexCheck::At(uint64_t block, const std::string& what) const {
  return t_.Error("block at offset " + std::to_string(block) + ": " + what);
}

Status IndexCheck::Push(uint64_t pos, std::string_view parent_key, uint64_t parent_block) {
  if (depth_ >= size_t(TableReader::kMaxIndexDepth)) {
    return t_.Error(std::string(SectionName(section_)) + " index is nested too deeply (a loop?)");
  }
  if (depth_ == levels_.size()) levels_.emplace_back();
  Level& l = levels_[depth_];
  Status s = DecodeBlock(t_.source(), pos, nullptr, nullptr, &l.view);
  if (!s.ok()) return std::move(s).WithContext(t_.name());
  l.it.Init(l.view, t_.hash_size());
  l.restarts.Start(l.view);
  l.next_record = RestartCheck::FirstRecord(l.view);
  l.any = false;
  l.parent_key.assign(parent_key.data(), parent_key.size());
  l.parent_block = parent_block;
  ++depth_;
  return Status::Ok();
}

Status IndexCheck::Pop() {
  Level& l = levels_[depth_ - 1];
  if (l.it.error()) return At(l.view.offset, "malformed index record");
  if (!l.restarts.End()) return At(l.view.offset, l.restarts.Problem());
  if (!l.any) return At(l.view.offset, "index block with no records");
  if (depth_ > 1) {
    // Every index block leads to a block of the section (it has a record, and each record
    // is a leaf or leads to an index block with a record, down to the depth limit): the
    // record that led here has its last block now.
    if (l.parent_key < last_) {
      return At(l.parent_block,
                std::string(SectionName(section_)) + " index record " + Key(l.parent_key) +
                    " is below " + Key(last_) + ", the last key of the " + SectionName(section_) +
                    " block at offset " + std::to_string(last_block_) + " that it leads to");
    }
    if (l.parent_key > ended_) {
      ended_ = l.parent_key;
      ended_block_ = l.parent_block;
    }
    --depth_;
    return Status::Ok();
  }
  // The top level goes on in the next block if that is an index block, as a lookup's
  // descent does when every key of a top-level block is smaller than the one sought.
  const uint64_t next = l.view.offset + l.view.full_size;
  --depth_;
  if (PeekBlockType(t_.source(), next) == uint8_t(BlockType::kIndex)) return Push(next, {}, 0);
  // Where it ends, what follows must be able to (a damaged type byte is no end).
  return t_.CheckSectionEnd(next, BlockType::kIndex);
}

Status IndexCheck::NextLeaf(uint64_t* child, std::string_view* key, uint64_t* index_block,
                            bool* found) {
  *found = false;
  if (!started_) {
    started_ = true;
    if (PeekBlockType(t_.source(), root_) != uint8_t(BlockType::kIndex)) {
      return At(root_, std::string("no index block where the footer's ") + SectionName(section_) +
                           " index position points");
    }
    REFTAB_RETURN_IF_ERROR(Push(root_, {}, 0));
  }
  while (depth_ > 0) {
    Level& l = levels_[depth_ - 1];
    if (!l.it.NextKey()) {
      REFTAB_RETURN_IF_ERROR(Pop());
      continue;
    }
    if (!l.restarts.Record(l.next_record)) return At(l.view.offset, l.restarts.Problem());
    ByteReader v = l.it.value();
    const uint64_t pos = v.GetVarint();
    if (!v.ok()) return At(l.view.offset, "malformed index record");
    l.it.ValueDone(v);
    l.next_record = uint32_t(v.pos() - l.view.data);
    l.any = true;
    const uint8_t type = PeekBlockType(t_.source(), pos);
    if (type == uint8_t(section_)) {
      *child = pos;
      *key = l.it.key();
      *index_block = l.view.offset;
      *found = true;
      return Status::Ok();
    }
    if (type != uint8_t(BlockType::kIndex)) {
      return At(l.view.offset, std::string(SectionName(section_)) + " index record " +
                                   Key(l.it.key()) + " points at offset " + std::to_string(pos) +
                                   ", which holds no " + SectionName(section_) + " or index block");
    }
    REFTAB_RETURN_IF_ERROR(Push(pos, l.it.key(), l.view.offset));
  }
  return Status::Ok();
}

Status IndexCheck::OnBlock(uint64_t offset, std::string_view first, std::string_view last) {
  if (!active()) return Status::Ok();
  uint64_t child = 0, index_block = 0;
  std::string_view key;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(NextLeaf(&child, &key, &index_block, &found));
  const char* section = SectionName(section_);
  if (!found) {
    return At(offset, std::string("no ") + section + " index record leads to this " + section +
                          " block (the index ends before it)");
  }
  if (have_last_ && !(ended_ < first)) {
    return At(ended_block_, std::string(section) + " index record " + Key(ended_) +
                                " is not below " + Key(first) + ", the first key of the " +
                                section + " block at offset " + std::to_string(offset) +
                                " after the blocks it leads to");
  }
  if (child != offset) {
    return At(index_block, std::string(section) + " index record " + Key(key) +
                               " points at offset " + std::to_string(child) + ", but the next " +
                               section + " block is at offset " + std::to_string(offset));
  }
  if (key < last) {
    return At(index_block, std::string(section) + " index record " + Key(key) + " is below " +
                               Key(last) + ", the last key of the " + section +
                               " block at offset " + std::to_string(offset) + " that it leads to");
  }
  have_last_ = true;
  last_block_ = offset;
  AssignName(&last_, last);
  AssignName(&ended_, key);
  ended_block_ = index_block;
  return Status::Ok();
}

Status IndexCheck::Finish() {
  if (!active()) return Status::Ok();
  uint64_t child = 0, index_block = 0;
  std::string_view key;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(NextLeaf(&child, &key, &index_block, &found));
  if (!found) return Status::Ok();
  const char* section = SectionName(section_);
  return At(index_block, std::string(section) + " index record " + Key(key) + " points at offset " +
                             std::to_string(child) + ", past the last " + section + " block" +
                             (have_last_ ? "" : " (the section has none)"));
}

}  // namespace reftab

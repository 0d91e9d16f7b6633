// Internal, not installed: whether a section's index sends every key of the section to the
// block that holds it (store/verify.cc runs it on the ref and obj indexes).
//
// A lookup descends from the top level (the index blocks that follow one another from the
// footer's index position) through one index block per level, taking in each the first
// record whose key is >= the key sought (a search over the block's restart points), down to
// a block of the section. Instead of one such descent per key, the index is walked once in
// key order, beside the section's blocks in file order, and holds when:
//   * every index block decodes and its restart points are sound (store/restart_check.h), so
//     that the search in it finds what a scan finds;
//   * the records that point at the section's blocks (leaf records), in the walk's order,
//     point at each of its blocks once, in file order;
//   * every record's key is at least the last key of the last block it leads to, and below
//     the first key of the block after that one.
// The keys of every level then increase, and a descent for a key of block j takes, on each
// level, the record that leads to block j: the records before it lead to earlier blocks and
// so have keys below block j's first key, and its own is at least block j's last key. So
// each lookup lands on its block, and the checks of the block's own restart table make the
// search there right: together, what a lookup of every key would show, for one read of the
// index.
#ifndef REFTAB_STORE_INDEX_CHECK_H_
#define REFTAB_STORE_INDEX_CHECK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/block_reader.h"
#include "format/constants.h"
#include "format/status.h"
#include "store/restart_check.h"
#include "store/table_reader.h"

namespace reftab {

class IndexCheck {
 public:
  // For the index of `section` (kRef or kObj) of `t`; inactive when the table has none.
  IndexCheck(const TableReader& t, BlockType section);
  bool active() const { return root_ != 0; }

  // The section's blocks, each once, in file order, with their first and last keys (the
  // caller checked that the keys increase, within blocks and across them).
  Status OnBlock(uint64_t offset, std::string_view first, std::string_view last);
  // After the section's last block: the index must lead to no more blocks.
  Status Finish();

 private:
  // An index block being walked, and the record of the level above that led to it.
  struct Level {
    BlockView view;
    BlockIterator it;
    RestartCheck restarts;
    uint32_t next_record = 0;  // where the next record starts, from view.data
    bool any = false;          // a record was read
    std::string parent_key;    // the key of the record that led here (not for the top)
    uint64_t parent_block = 0;
  };
  // The next leaf record: *found false when the walk is over.
  Status NextLeaf(uint64_t* child, std::string_view* key, uint64_t* index_block, bool* found);
  Status Push(uint64_t pos, std::string_view parent_key, uint64_t parent_block);
  // Leaves the deepest level, whose records are all read.
  Status Pop();
  std::string Key(std::string_view key) const;
  Status At(uint64_t block, const std::string& what) const;

  const TableReader& t_;
  const BlockType section_;
  const uint64_t root_;
  bool started_ = false;
  std::vector<Level> levels_;  // the path from the top level, its first depth_ in use
  size_t depth_ = 0;
  // The section's previous block: where it is and its last key.
  bool have_last_ = false;
  uint64_t last_block_ = 0;
  std::string last_;
  // The greatest key of the records whose blocks end with the previous block, which must
  // be below the next block's first key, and the index block that holds it.
  std::string ended_;
  uint64_t ended_block_ = 0;
};

}  // namespace reftab

#endif  // REFTAB_STORE_INDEX_CHECK_H_

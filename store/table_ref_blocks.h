// Internal, not installed (store/meson.build leaves it out of store_public_headers): whole ref
// blocks of one table appended to the ref section of another as they are, for a merge of
// tables whose key ranges do not overlap (store/disjoint_merge.h). Such a merge writes the
// same records, in the same order, as one that decodes and re-encodes them, but in other
// blocks (each copied block keeps its records, so blocks of different tables are not
// filled up together) and with other update indexes: a ref's update index is stored as a
// delta from its table's min_update_index, so a copied ref reads as
//   merged min + (its update index - its table's min),
// still within the merged table's limits (the merged range holds its table's). Only for
// stacks whose users give update indexes no meaning (StackOptions::copy_disjoint_tables).
#ifndef REFTAB_STORE_TABLE_REF_BLOCKS_H_
#define REFTAB_STORE_TABLE_REF_BLOCKS_H_

#include <cstdint>
#include <string_view>

#include "format/block_reader.h"
#include "store/table_builder.h"
#include "store/table_writer.h"

namespace reftab {

struct TableRefBlocks {
  // Ends the block `w` has open, if any, and appends ref block `block` (decoded by
  // DecodeBlock from its table) as the next block of `w`'s ref section. The caller has
  // checked the block: its `records` records (at least one) decode, with strictly
  // increasing keys from `first_key` to `last_key`, and every restart point is the start of
  // a record with a full key (RestartCheck). InvalidArgument, with nothing written, when it
  // cannot be appended: `w` writes an obj index (which needs each ref's object ids) or has
  // begun its log section, `first_key` is not after the last ref written, or the block does
  // not fit `w`'s block size once it carries the file header (as `w`'s first block).
  static Status Copy(TableWriter& w, const BlockView& block, std::string_view first_key,
                     std::string_view last_key, uint64_t records) {
    return w.impl_->CopyRefBlock(block, first_key, last_key, records);
  }
};

}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_REF_BLOCKS_H_

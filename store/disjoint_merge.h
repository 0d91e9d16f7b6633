// Internal, not installed: the merge of tables whose key ranges do not overlap, by copying
// their ref blocks (store/table_ref_blocks.h) instead of decoding and re-encoding every
// record. A key/value store filled in key order (or by a few writers each in key order)
// flushes tables that do not overlap: a record merge of those spends its time on records
// that nothing shadows and whose order is already the output's, block after block; a copy
// checks each record once and moves its bytes.
//
// Used by Stack's compactions when StackOptions::copy_disjoint_tables is set; any range that
// does not qualify is merged record by record as before.
#ifndef REFTAB_STORE_DISJOINT_MERGE_H_
#define REFTAB_STORE_DISJOINT_MERGE_H_

#include <vector>

#include "format/status.h"
#include "store/stack.h"
#include "store/table_reader.h"
#include "store/table_writer.h"

namespace reftab {

// Whether `tables` (a merge's inputs, in any order) can be merged by copying their ref
// blocks: each has refs and nothing but refs (no obj or log section), and their key ranges,
// first to last ref, do not overlap. If so, *order holds them by key (the output's order);
// else it is empty. Reads each table's first and last keys only. Errors are corrupt tables.
Status OrderDisjointTables(const std::vector<const TableReader*>& tables,
                           std::vector<const TableReader*>* order);

// Appends the ref blocks of `order` (from OrderDisjointTables) to `w`, checking every record
// as it goes (corruption is an error naming the table and the block's offset). The merge
// drops tombstones when it reaches the base (`drop_tombstones`), which a copy cannot: then a
// block holding one stops the copy with *copied false, and `w` (partly written) is to be
// discarded for a record merge. Gives back each table's pages as it passes them, checks
// options.cancel before every block and tells options.progress of every record.
Status WriteDisjointTables(TableWriter& w, const std::vector<const TableReader*>& order,
                           bool drop_tombstones, const CompactionOptions& options, bool* copied);

}  // namespace reftab

#endif  // REFTAB_STORE_DISJOINT_MERGE_H_

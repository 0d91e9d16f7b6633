// Public API: what an operator asks of a stack — its tables, their sizes, how many records of
// each kind they hold (tombstones apart), how full their blocks are, how deep their indexes go,
// and whether git's auto-compaction would merge anything now. Read-only; `reftab stats`
// prints it.
#ifndef REFTAB_STORE_STACK_STATS_H_
#define REFTAB_STORE_STACK_STATS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/compaction_policy.h"
#include "store/stack.h"
#include "store/table_reader.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// One section of a table (refs, objs or logs) with its index.
struct SectionStats {
  uint64_t blocks = 0;
  uint64_t records = 0;
  // Bytes of the blocks' content (header to restart table; for log blocks, inflated) against
  // the bytes the blocks could hold (block size each; their file size if unaligned).
  uint64_t bytes_used = 0;
  uint64_t bytes_capacity = 0;
  uint64_t file_bytes = 0;  // what the section's blocks occupy in the file
  uint64_t index_blocks = 0;
  uint64_t index_records = 0;
  uint64_t index_bytes = 0;
  int index_levels = 0;  // 0: no index (one block, or few enough)
};

struct TableStats {
  std::string name;
  uint64_t file_size = 0;
  uint8_t version = 1;
  uint32_t block_size = 0;
  uint64_t min_update_index = 0;
  uint64_t max_update_index = 0;
  uint8_t obj_id_len = 0;
  uint64_t refs = 0;  // values and symrefs
  uint64_t symrefs = 0;
  uint64_t ref_tombstones = 0;  // deletions
  uint64_t log_entries = 0;
  uint64_t log_tombstones = 0;  // deleted reflogs
  SectionStats ref, obj, log;
};

struct StackStats {
  std::vector<TableStats> tables;  // oldest first
  uint64_t total_bytes = 0;
  uint64_t live_refs = 0;  // in the merged view
  uint64_t live_reflog_entries = 0;
  uint32_t geometric_factor = 2;
  // The tables auto-compaction would merge now, if any.
  std::optional<Segment> compaction_due;
};

Status ComputeTableStats(const TableReader& table, const std::string& name, TableStats* out);
Status ComputeStackStats(const Stack& stack, StackStats* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_STACK_STATS_H_

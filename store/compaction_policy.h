// Public API: which tables auto-compaction merges — a pure function of the table sizes,
// kept apart from the I/O that carries it out (store/compaction.h).
//
// git's geometric rule (FORMAT.md §18.2): after compaction every table is at least `factor`
// times larger than all newer tables together, so a stack of n updates has O(log n) tables.
#ifndef REFTAB_STORE_COMPACTION_POLICY_H_
#define REFTAB_STORE_COMPACTION_POLICY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "format/visibility.h"
namespace reftab {
REFTAB_PUBLIC_BEGIN

// Tables [start, end) of a stack, oldest first.
struct Segment {
  size_t start = 0;
  size_t end = 0;
  bool operator==(const Segment&) const = default;
};

// The size git's policy uses for a table: its file size less the footer and less the header
// minus one byte (so `file_size - 91` for version 1 and `file_size - 99` for version 2).
uint64_t PolicySize(uint64_t file_size, uint8_t version);

// `sizes` oldest first (PolicySize of each table); `factor` >= 1 (0 means git's default, 2).
// Returns the segment to compact (always at least two tables), or nothing if the stack
// already forms a geometric sequence.
std::optional<Segment> SuggestCompaction(const std::vector<uint64_t>& sizes, uint32_t factor);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_COMPACTION_POLICY_H_

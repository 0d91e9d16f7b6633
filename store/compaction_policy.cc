#include "store/compaction_policy.h"

#include "format/constants.h"

namespace reftab {

uint64_t PolicySize(uint64_t file_size, uint8_t version) {
  uint64_t overhead = FooterSize(version) + HeaderSize(version) - 1;
  return file_size > overhead ? file_size - overhead : 0;
}

std::optional<Segment> SuggestCompaction(const std::vector<uint64_t>& sizes, uint32_t factor) {
  if (factor == 0) factor = 2;
  size_t n = sizes.size();
  if (n <= 1) return std::nullopt;
  // The segment ends at the newest table whose older neighbour is less than `factor` times
  // its size.
  size_t i = n - 1;
  size_t end = 0;
  uint64_t bytes = 0;
  for (; i > 0; --i) {
    if (sizes[i - 1] < sizes[i] * factor) {
      end = i + 1;
      bytes = sizes[i];
      break;
    }
  }
  if (end == 0) return std::nullopt;
  // It starts at the oldest table that is smaller than `factor` times everything newer than
  // it within the segment.
  size_t start = i - 1;
  for (; i > 0; --i) {
    uint64_t newer = bytes;
    bytes += sizes[i - 1];
    if (sizes[i - 1] < newer * factor) start = i - 1;
  }
  return Segment{start, end};
}

}  // namespace reftab

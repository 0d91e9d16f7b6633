#include "store/ref_filter.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace reftab {
namespace {

// Odd multipliers spreading the hash's low 32 bits over the eight words of a block (the
// constants of the Parquet split-block Bloom filter specification).
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

}  // namespace

RefFilter::RefFilter(uint64_t expected_names) {
  // 10 bits per name, in 256-bit blocks; at least one block.
  uint64_t blocks = (expected_names * 10 + 255) / 256;
  blocks_ = blocks > 0 ? (blocks < (uint64_t(1) << 31) ? blocks : uint64_t(1) << 31) : 1;
  words_.assign(8 * blocks_, 0);
}

uint64_t RefFilter::Hash(std::string_view name) { return XXH3_64bits(name.data(), name.size()); }

void RefFilter::Add(std::string_view name) {
  uint64_t h = Hash(name);
  uint32_t* block = const_cast<uint32_t*>(BlockFor(h));
  uint32_t x = uint32_t(h);
  for (int i = 0; i < 8; ++i) block[i] |= uint32_t(1) << ((x * kSalt[i]) >> 27);
}

bool RefFilter::MayContainHash(uint64_t h) const {
  const uint32_t* block = BlockFor(h);
  uint32_t x = uint32_t(h);
  uint32_t miss = 0;
  for (int i = 0; i < 8; ++i) miss |= ~block[i] & (uint32_t(1) << ((x * kSalt[i]) >> 27));
  return miss == 0;
}

}  // namespace reftab

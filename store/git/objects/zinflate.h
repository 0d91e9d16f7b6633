// Internal (not installed): zlib streams of git's object storage (loose objects and pack
// entries) inflated into memory, with the bounds hostile input needs: a claimed size is
// checked against what the stream holds, and nothing grows past a limit.
#ifndef REFTAB_STORE_GIT_OBJECTS_ZINFLATE_H_
#define REFTAB_STORE_GIT_OBJECTS_ZINFLATE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/status.h"

namespace reftab {

// The most any one object may inflate to (content or delta): larger claims are refused
// before any memory is taken for them.
inline constexpr uint64_t kMaxGitObjectSize = uint64_t(256) << 20;

// Inflates the zlib stream at `in` (at most `in_len` bytes) into *out, stopping once `limit`
// bytes are out: a prefix is enough for an object's header. A stream (or input) that ends
// sooner gives what it holds. Corruption (saying what is wrong, for the caller to say where)
// when the stream is damaged.
Status InflatePrefix(const uint8_t* in, size_t in_len, size_t limit, std::string* out);

// Inflates a stream that must hold exactly `size` bytes: Corruption when it holds fewer
// (truncated input included), more, or is damaged, and when `size` exceeds
// kMaxGitObjectSize.
Status InflateExactly(const uint8_t* in, size_t in_len, uint64_t size, std::string* out);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_ZINFLATE_H_

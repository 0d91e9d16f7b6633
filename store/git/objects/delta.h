// Internal (not installed): git's delta format (gitformat-pack: "Deltified representation"),
// which rebuilds an object from a base and a list of copy and insert instructions.
#ifndef REFTAB_STORE_GIT_OBJECTS_DELTA_H_
#define REFTAB_STORE_GIT_OBJECTS_DELTA_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "format/status.h"

namespace reftab {

// The two sizes a delta starts with: its base's and its result's. Corruption when they are
// cut short or overflow 64 bits.
Status DeltaSizes(std::string_view delta, uint64_t* base_size, uint64_t* result_size);

// Applies `delta` to `base` into *out. Corruption when the delta's base size is not
// base.size(), its result is larger than kMaxGitObjectSize, an instruction reads past the
// base or the delta, or the result does not have the size announced.
Status ApplyDelta(std::string_view base, std::string_view delta, std::string* out);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_DELTA_H_

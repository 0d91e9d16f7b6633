// Internal (not installed): how many objects git thinks a database holds, for the automatic
// abbreviation length. git counts only what its pack indexes say (a multi-pack index, and the
// packs it does not cover), in the database and its alternates; loose objects do not count.
#ifndef REFTAB_STORE_GIT_OBJECTS_OBJECT_COUNT_H_
#define REFTAB_STORE_GIT_OBJECTS_OBJECT_COUNT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/status.h"

namespace reftab {

// Sums the object counts of the pack indexes under `objects_dir`/pack and under each
// alternate's (objects/info/alternates, followed as git does to a small depth). Unreadable
// or malformed indexes are errors; a missing pack directory counts 0.
Status ApproximateObjectCount(const std::string& objects_dir, uint64_t* count);

// git's automatic core.abbrev for `count` objects: the bits of the count, halved and rounded
// up into hex digits, at least 7 and at most `hex_len`.
size_t AbbrevLengthForCount(uint64_t count, size_t hex_len);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_OBJECT_COUNT_H_

// A hash for object ids in unordered containers (not installed: for the objects layer's own
// walks). Ids are uniformly random, so their first bytes make a good hash as they are.
#ifndef REFTAB_STORE_GIT_OBJECTS_ID_HASH_H_
#define REFTAB_STORE_GIT_OBJECTS_ID_HASH_H_

#include <cstddef>

#include "format/record.h"

namespace reftab {

struct ObjectIdHash {
  size_t operator()(const ObjectId& id) const {
    size_t h = 0;
    for (size_t i = 0; i < sizeof(h); ++i) h = h << 8 | id[i];
    return h;
  }
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_ID_HASH_H_

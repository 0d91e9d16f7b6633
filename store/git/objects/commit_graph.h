// Internal (not installed): the commits GitObjects has read for generation numbers, kept so
// that a listing that walks for every ref (%(ahead-behind), %(is-base)) reads each commit and
// computes each generation once.
#ifndef REFTAB_STORE_GIT_OBJECTS_COMMIT_GRAPH_H_
#define REFTAB_STORE_GIT_OBJECTS_COMMIT_GRAPH_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "format/record.h"
#include "store/git/objects/objects.h"

namespace reftab {

struct GitObjects::CommitNode {
  bool read = false;
  uint64_t date = 0;
  uint64_t generation = 0;  // 0 until computed
  std::vector<ObjectId> parents;
};

struct GitObjects::CommitGraph {
  std::unordered_map<ObjectId, CommitNode, ObjectIdHash> nodes;  // nodes stay put as it grows
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_COMMIT_GRAPH_H_

// Public API: the little of git's object database a ref store needs — whether an object
// exists, its type, and what an annotated tag peels to — read from loose objects and pack
// indexes (version 2) in $GIT_COMMON_DIR/objects and its alternates. No object is written.
#ifndef REFTAB_STORE_GIT_OBJECTS_H_
#define REFTAB_STORE_GIT_OBJECTS_H_

#include <memory>
#include <string>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

enum class GitObjectType { kNone = 0, kCommit = 1, kTree = 2, kBlob = 3, kTag = 4 };

class GitObjects {
 public:
  // `objects_dir` is $GIT_COMMON_DIR/objects; `hash_size` 20 or 32.
  GitObjects(std::string objects_dir, size_t hash_size);
  ~GitObjects();

  // The object's type, or kNone when the database does not have it. Errors are I/O errors
  // and corrupt objects.
  Status TypeOf(const ObjectId& id, GitObjectType* type);
  // Follows annotated tags from `id` to the first object that is not a tag. *ok is false
  // when a tag in the chain names a missing object or one of another type than it claims
  // (git then stores no peeled value).
  Status Peel(const ObjectId& id, ObjectId* peeled, bool* ok);

 private:
  struct Pack;
  // The object's type and, for a tag, the start of its body (what `object`/`type` say).
  Status Read(const ObjectId& id, GitObjectType* type, std::string* head);
  Status ReadLoose(const std::string& dir, const ObjectId& id, GitObjectType* type,
                   std::string* head, bool* found);
  Status LoadPacks();

  std::vector<std::string> dirs_;  // objects_dir and its alternates
  size_t hash_size_;
  bool packs_loaded_ = false;
  std::vector<std::unique_ptr<Pack>> packs_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_H_

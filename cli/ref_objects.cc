#include "cli/ref_objects.h"

namespace reftab::cli {

const char* ObjectTypeName(GitObjectType type) { return GitObjectTypeName(type); }

bool ObjectsAvailable(GitObjects& objects, std::string* why) {
  if (objects.available()) return true;
  *why = objects.reason();
  return false;
}

Status ReadObject(GitObjects& objects, const ObjectId& id, GitObjectType* type,
                  std::string* content) {
  return objects.Read(id, type, content);
}

Status ObjectSize(GitObjects& objects, const ObjectId& id, GitObjectType* type, uint64_t* size) {
  return objects.Size(id, type, size);
}

Status CountAheadBehind(GitObjects& objects, const ObjectId& a, const ObjectId& b, size_t* ahead,
                        size_t* behind, GitWalkOrder order) {
  return objects.AheadBehind(a, b, ahead, behind, order);
}

}  // namespace reftab::cli

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

Status AbbreviateObject(GitObjects& objects, const ObjectId& id, size_t min_len, std::string* hex) {
  return objects.Abbreviate(id, min_len, hex);
}

Status DefaultAbbrev(GitObjects& objects, size_t* len) { return objects.DefaultAbbrevLength(len); }

Status CountAheadBehind(GitObjects& objects, const ObjectId& a, const ObjectId& b, size_t* ahead,
                        size_t* behind) {
  return objects.AheadBehind(a, b, ahead, behind);
}

}  // namespace reftab::cli

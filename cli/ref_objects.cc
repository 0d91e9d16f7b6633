#include "cli/ref_objects.h"

namespace reftab::cli {
namespace {

Status NotBuilt() { return Status::IoError("this build of reftab cannot read object contents"); }

}  // namespace

const char* ObjectTypeName(GitObjectType type) {
  switch (type) {
    case GitObjectType::kCommit: return "commit";
    case GitObjectType::kTree: return "tree";
    case GitObjectType::kBlob: return "blob";
    case GitObjectType::kTag: return "tag";
    case GitObjectType::kNone: break;
  }
  return "";
}

bool ObjectsAvailable(GitObjects&, std::string* why) {
  *why = "this build of reftab cannot read object contents";
  return false;
}

Status ReadObject(GitObjects& objects, const ObjectId& id, GitObjectType* type,
                  std::string* content) {
  content->clear();
  return objects.TypeOf(id, type);
}

Status AbbreviateObject(GitObjects&, const ObjectId&, size_t, std::string*) { return NotBuilt(); }
Status DefaultAbbrev(GitObjects&, size_t*) { return NotBuilt(); }
Status CountAheadBehind(GitObjects&, const ObjectId&, const ObjectId&, size_t*, size_t*) {
  return NotBuilt();
}

}  // namespace reftab::cli

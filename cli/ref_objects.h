// The object database calls for-each-ref makes, in one place: the atoms go through these so
// that "objects are unavailable" (no objects directory) is reported the same way everywhere,
// naming the atom that needed them.
#ifndef REFTAB_CLI_REF_OBJECTS_H_
#define REFTAB_CLI_REF_OBJECTS_H_

#include <cstdint>
#include <string>

#include "format/record.h"
#include "format/status.h"
#include "store/git/objects/objects.h"

namespace reftab::cli {

const char* ObjectTypeName(GitObjectType type);

// Whether `objects` can answer; otherwise *why says so in one line.
bool ObjectsAvailable(GitObjects& objects, std::string* why);
Status ReadObject(GitObjects& objects, const ObjectId& id, GitObjectType* type,
                  std::string* content);
// Type and size only, without reading all of the content where the storage allows.
Status ObjectSize(GitObjects& objects, const ObjectId& id, GitObjectType* type, uint64_t* size);
Status CountAheadBehind(GitObjects& objects, const ObjectId& a, const ObjectId& b, size_t* ahead,
                        size_t* behind, GitWalkOrder order = GitWalkOrder::kCommitDate);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REF_OBJECTS_H_

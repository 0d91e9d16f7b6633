// Internal (not installed): git's loose objects — one zlib stream per object in
// objects/<first two hex digits>/<the rest>, holding "<type> <size>\0" and the content.
#ifndef REFTAB_STORE_GIT_OBJECTS_LOOSE_H_
#define REFTAB_STORE_GIT_OBJECTS_LOOSE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/git/objects/objects.h"

namespace reftab {

// The path of `id`'s loose object under the objects directory `dir`.
std::string LooseObjectPath(const std::string& dir, const ObjectId& id, size_t hash_size);

// Reads the loose object at `path`: its type, content size and, when `content` is not null,
// its content. *found is false (and nothing else set) when there is no such file. Corruption
// naming the file when its stream is damaged or truncated, its header malformed, its type
// unknown, or its content not of the size the header says; IoError when it cannot be read.
Status ReadLooseObject(const std::string& path, GitObjectType* type, uint64_t* size,
                       std::string* content, bool* found);

// The ids of the loose objects in `dir` whose first byte is `first_byte`, from the names in
// its subdirectory (files that are not named as an object's rest are skipped).
std::vector<ObjectId> ListLooseObjects(const std::string& dir, uint8_t first_byte,
                                       size_t hash_size);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_LOOSE_H_

// Internal (not installed): the fast path of store/git/objects/objects.h for the two questions
// every ref write and listing asks — does this object exist, of which type, and what does an
// annotated tag peel to. It reads loose objects' headers and version-2 pack indexes of
// $GIT_COMMON_DIR/objects and its alternates itself, both hash formats, inflating no more of
// an object than its header (or a tag's first lines).
//
// Why beside libgit2: loading libgit2 and its start-up cost about 6 ms of CPU per process on
// Debian 12 (its TLS layer parses the system's certificates), eight times what a whole
// `show-ref` or `update-ref` of git takes; these lookups cost microseconds. Everything else
// (contents, abbreviations, commit walks) goes through libgit2.
#ifndef REFTAB_STORE_GIT_OBJECTS_OBJECT_HEADERS_H_
#define REFTAB_STORE_GIT_OBJECTS_OBJECT_HEADERS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/git/objects/objects.h"

namespace reftab {

class GitObjectHeaders {
 public:
  // `objects_dir` is $GIT_COMMON_DIR/objects; `hash_size` 20 or 32.
  GitObjectHeaders(std::string objects_dir, size_t hash_size);
  ~GitObjectHeaders();
  GitObjectHeaders(const GitObjectHeaders&) = delete;
  GitObjectHeaders& operator=(const GitObjectHeaders&) = delete;

  // The object's type, or kNone when the database does not have it. Errors are I/O errors
  // and corrupt objects.
  Status TypeOf(const ObjectId& id, GitObjectType* type);
  // Whether the database has the object, as `git show-ref` asks: a pack index entry or a
  // loose file is enough, nothing is inflated. Errors are I/O errors.
  Status Has(const ObjectId& id, bool* found);
  // How the object is stored, as git's %(objectsize:disk) and %(deltabase) see it: the
  // bytes its pack entry takes (header and delta base reference included) or its loose
  // file's size, and for a delta entry the id of its base (zero otherwise, and for loose
  // objects). *found is false when the database does not have it.
  Status Storage(const ObjectId& id, uint64_t* disk_size, ObjectId* delta_base, bool* found);
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
  ObjectId last_id_{};  // TypeOf's last answer (kNone: none kept)
  GitObjectType last_type_ = GitObjectType::kNone;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_OBJECT_HEADERS_H_

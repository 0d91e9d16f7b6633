// Internal (not installed): git's object database read by our own code, for both hash
// formats — loose objects (loose.h) and version-2 packs (pack.h), in $GIT_COMMON_DIR/objects
// and the databases its objects/info/alternates names. Multi-pack indexes are not read: git
// keeps the .idx of every pack they cover, and those are read instead.
//
// GitObjects (objects.h) answers through this reader: existence, types and peeling always
// (microseconds, where loading libgit2 costs about 6 ms of CPU per process), and contents,
// sizes and abbreviations where libgit2 cannot (SHA-256) or is not faster; objects.cc says
// which.
#ifndef REFTAB_STORE_GIT_OBJECTS_OBJECT_READER_H_
#define REFTAB_STORE_GIT_OBJECTS_OBJECT_READER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/git/objects/delta_base_cache.h"
#include "store/git/objects/objects.h"

namespace reftab {

class GitPack;

class GitObjectReader {
 public:
  // `objects_dir` is $GIT_COMMON_DIR/objects; `hash_size` 20 or 32. Alternates are read
  // here (alternates.h), packs on first use.
  GitObjectReader(std::string objects_dir, size_t hash_size);
  ~GitObjectReader();
  GitObjectReader(const GitObjectReader&) = delete;
  GitObjectReader& operator=(const GitObjectReader&) = delete;

  // The object's type, or kNone when the database does not have it. Errors are I/O errors
  // and corrupt objects (the message names the file, and in a pack the offset).
  Status TypeOf(const ObjectId& id, GitObjectType* type);
  // Whether the database has the object, as `git show-ref` asks: a pack index entry or a
  // loose file is enough, nothing is inflated. Errors are I/O errors.
  Status Has(const ObjectId& id, bool* found);
  // Type and content size; kNone and 0 when missing. Inflates no more than headers.
  Status Size(const ObjectId& id, GitObjectType* type, uint64_t* size);
  // Type and whole content; kNone and "" when missing.
  Status Read(const ObjectId& id, GitObjectType* type, std::string* content);
  // Follows annotated tags from `id` to the first object that is not a tag. *ok is false
  // when `id` is missing, or a tag in the chain is malformed, names a missing object or one
  // of another type than it claims (git then stores no peeled value).
  Status Peel(const ObjectId& id, ObjectId* peeled, bool* ok);
  // How many leading hex digits `id` shares with the nearest other object of the database
  // (0 when none shares a digit): git's unique abbreviation is one digit longer.
  Status CommonHexPrefix(const ObjectId& id, size_t* digits);
  // Every object whose first `digits` hex digits are those of `prefix` (its digits past them
  // zero), each once, in no particular order: git's candidates for an abbreviated id.
  Status FindByPrefix(const ObjectId& prefix, size_t digits, std::vector<ObjectId>* found);
  // How the object is stored, as git's %(objectsize:disk) and %(deltabase) see it: the bytes
  // its pack entry takes or its loose file's size, and for a packed delta its base's id
  // (zero otherwise). *found is false when the database does not have it.
  Status Storage(const ObjectId& id, uint64_t* disk_size, ObjectId* delta_base, bool* found);

 private:
  // Where `id` is: a pack and offset, or (pack null, *found true) a loose file at *loose.
  Status Locate(const ObjectId& id, GitPack** pack, uint64_t* offset, std::string* loose,
                bool* found);
  Status LoadPacks();

  std::vector<std::string> dirs_;  // objects_dir and its alternates
  size_t hash_size_;
  bool packs_loaded_ = false;
  std::vector<std::unique_ptr<GitPack>> packs_;
  // A third of git's default core.deltaBaseCacheLimit: what is read here is mostly commits,
  // tags and small trees.
  DeltaBaseCache bases_{32 << 20};
  // Loose ids by (database, first byte), listed on first need for abbreviations.
  std::map<std::pair<size_t, uint8_t>, std::vector<ObjectId>> loose_lists_;
  ObjectId last_id_{};  // TypeOf's last answer (kNone: none kept)
  GitObjectType last_type_ = GitObjectType::kNone;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_OBJECT_READER_H_

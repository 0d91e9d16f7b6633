// Public API: git's object database, read-only — whether an object exists, its type, size and
// content, what an annotated tag peels to, abbreviated names, and how two commits relate —
// for both hash formats (SHA-1 and SHA-256): loose objects, version-2 packs, and the
// databases objects/info/alternates names, read by our own code (object_reader.h; objects.cc
// says why not libgit2). No object is written.
//
// Not thread-safe: one GitObjects per thread.
#ifndef REFTAB_STORE_GIT_OBJECTS_OBJECTS_H_
#define REFTAB_STORE_GIT_OBJECTS_OBJECTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"

namespace reftab {

// Not installed, and kept out of the exports below: declared before REFTAB_PUBLIC_BEGIN
// because a class takes its visibility from its first declaration.
class GitObjectReader;  // store/git/objects/object_reader.h, not installed

REFTAB_PUBLIC_BEGIN

enum class GitObjectType { kNone = 0, kCommit = 1, kTree = 2, kBlob = 3, kTag = 4 };

// The order of a walk over commits: newest committer date first, as git's revision walks (a
// commit dated before its parent, clock skew, can end a count early), or highest generation
// first (corrected commit dates, as git's ahead-behind: exact, but the first use computes
// generations down to the root commits).
enum class GitWalkOrder { kCommitDate, kGeneration };

// git's name of the type ("commit", "tree", "blob", "tag"); "" for kNone.
const char* GitObjectTypeName(GitObjectType type);
// The type git's name stands for; kNone for anything else.
GitObjectType GitObjectTypeNamed(std::string_view name);

// A commit's links as git's commit parser reads them.
struct GitCommitLinks {
  ObjectId tree{};
  std::vector<ObjectId> parents;
  uint64_t date = 0;  // the committer date; 0 when it has none
};

class GitObjects {
 public:
  // `objects_dir` is $GIT_COMMON_DIR/objects; `hash_size` 20 or 32. `shallow_file`
  // ($GIT_COMMON_DIR/shallow; empty: none) lists the commits whose parents the repository
  // lacks, as a shallow clone leaves them; it is read on first need. Nothing is loaded or
  // opened here; failures to do so later are reported by available()/reason().
  GitObjects(std::string objects_dir, size_t hash_size, std::string shallow_file = "");
  ~GitObjects();
  GitObjects(const GitObjects&) = delete;
  GitObjects& operator=(const GitObjects&) = delete;

  // Whether the database can be read: its directory exists (checked once). When false,
  // reason() says why, and Size, Read, Abbreviate, IsAncestor and AheadBehind fail with an
  // IoError saying so; TypeOf, Has and Peel find no object there.
  bool available();
  // One line, without a trailing newline; empty while available.
  const std::string& reason();

  // The object's type, or kNone when the database does not have it. Errors: I/O and
  // corrupt objects (the message names the file, and in a pack the offset).
  Status TypeOf(const ObjectId& id, GitObjectType* type);
  // Whether the database has the object (its type unread: cheaper than TypeOf).
  Status Has(const ObjectId& id, bool* found);
  // Type and size of the content (what `git cat-file -s` prints) without inflating all of
  // it where the storage allows; kNone and 0 when missing.
  Status Size(const ObjectId& id, GitObjectType* type, uint64_t* size);
  // The whole content (without git's "<type> <size>\0" header); kNone and "" when missing.
  Status Read(const ObjectId& id, GitObjectType* type, std::string* content);
  // How the object is stored (git's %(objectsize:disk) and %(deltabase)): the bytes its
  // pack entry takes, or its loose file's size; and the id of the base of a delta entry,
  // zero when it is not one (loose objects never are). *found is false when the database
  // lacks it. Only entry headers are read, nothing is inflated.
  Status Storage(const ObjectId& id, uint64_t* disk_size, ObjectId* delta_base, bool* found);
  // Follows annotated tags from `id` to the first object that is not a tag. *ok is false
  // when `id` is missing, or a tag in the chain is malformed, names a missing object or one
  // of another type than it claims (git then stores no peeled value).
  Status Peel(const ObjectId& id, ObjectId* peeled, bool* ok);
  // The commit `id` stands for, as git's lookup_commit_reference_gently finds it: `id`
  // itself or, through annotated tags (Peel), the commit they end at. *ok is false when `id`
  // is missing, the tags cannot be followed, or they end at another type of object. Works
  // through the object reader, as Peel does.
  Status PeelToCommit(const ObjectId& id, ObjectId* commit, bool* ok);

  // git's abbreviation of `id`: its first hex digits, at least `min_len` and as many more
  // as make it name no other object in the database. As in git, 0 means the whole id; 1 to 3
  // act as 4 (git's callers raise them to its minimum). An id the database lacks is abbreviated so
  // that it names no object at all.
  Status Abbreviate(const ObjectId& id, size_t min_len, std::string* hex);
  // Every object whose id starts with the hex digits `prefix` (kMinimumAbbrev to the id's
  // length of them, either case; shorter or non-hex prefixes InvalidArgument), in no
  // particular order: git's candidates for an abbreviated id. Index lookups for packs,
  // a listing of the loose directories the prefix allows (kept for later calls).
  Status FindByPrefix(std::string_view prefix, std::vector<ObjectId>* found);
  // git's automatic core.abbrev: half the bits of the approximate object count (objects in
  // packs and multi-pack indexes, alternates included; loose objects are not counted), in
  // hex digits rounded up, and at least 7. Callers honour a configured core.abbrev first.
  Status DefaultAbbrevLength(size_t* len);

  // A commit as git's parser gives it. *ok is false when `id`
  // cannot be read as one: missing, another type, or not well formed (ParseCommit). A commit
  // the shallow file lists has no parents: git does not look past it (nor do the walks
  // below). Errors: I/O, and a shallow file line that does not start with an id in hex
  // (git's fatal "bad shallow line: <line>").
  Status ReadCommitLinks(const ObjectId& id, GitCommitLinks* out, bool* ok);

  // Whether `ancestor` is reachable from `descendant` over commit parents (a commit is its
  // own ancestor), as `git merge-base --is-ancestor`. Non-commits: InvalidArgument.
  Status IsAncestor(const ObjectId& ancestor, const ObjectId& descendant, bool* is);
  // Commits reachable from `a` but not from `b` (*ahead) and from `b` but not from `a`
  // (*behind): what %(upstream:track) prints for a = the branch, b = its upstream.
  Status AheadBehind(const ObjectId& a, const ObjectId& b, size_t* ahead, size_t* behind,
                     GitWalkOrder order = GitWalkOrder::kCommitDate);
  // git's %(is-base:<tip>): which of `bases` (commits) `tip` most likely branched from. The
  // first-parent histories of the tip and of every base are walked together, highest
  // generation (corrected commit date) first; the first commit of the tip's history reached
  // from a base decides, the lowest index winning among bases that reach it at once.
  // *index is -1 when no base's first-parent history meets the tip's.
  Status BranchBase(const ObjectId& tip, const std::vector<ObjectId>& bases, int* index);

 private:
  GitObjectReader& reader();
  // Checks once that the database's directory exists; reason_ says why not.
  Status Load();
  Status Unavailable() const;
  // FindByPrefix's prefix as bytes (the last half-byte zero when the length is odd).
  Status ParseHexPrefix(std::string_view prefix, ObjectId* bytes, size_t* digits) const;
  // A commit's parents and committer date; a commit the database lacks (a shallow
  // boundary) has none. InvalidArgument for an object that is not a commit.
  Status ReadCommit(const ObjectId& id, std::vector<ObjectId>* parents, uint64_t* date);
  // Commits read for generation numbers, kept for the life of this object.
  struct CommitGraph;
  struct CommitNode;
  // The commit with its generation (corrected commit date) computed; an object that is not
  // a commit has no parents and date 0.
  Status GenerationOf(const ObjectId& id, const CommitNode** node);
  // Whether the shallow file lists `id`; reads it on first use.
  Status IsShallow(const ObjectId& id, bool* shallow);

  std::string objects_dir_;
  size_t hash_size_;
  bool tried_ = false;                       // Load() ran (successfully or not)
  std::unique_ptr<GitObjectReader> reader_;  // created on first use
  std::unique_ptr<CommitGraph> graph_;       // created on first GenerationOf
  std::string reason_;
  std::string shallow_file_;
  bool shallow_read_ = false;
  std::vector<ObjectId> shallow_;  // sorted
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_OBJECTS_H_

// Public API: git's object database, read-only — whether an object exists, its type, size and
// content, what an annotated tag peels to, abbreviated names, and how two commits relate —
// read through libgit2's object database (git_odb_open on $GIT_COMMON_DIR/objects: loose
// objects, packs, multi-pack indexes and alternates). No object is written, and no ref is read
// through libgit2 (it need not understand reftable).
//
// Existence, type and peeling (TypeOf, Peel) — what every ref write and listing asks — are
// answered by a small reader of loose object headers and pack indexes of our own, for both
// hash formats and without libgit2: loading libgit2 costs more than a whole git command
// (below). Everything else goes through libgit2, loaded lazily: this library does not link
// it. When the build found libgit2's headers (Meson feature `libgit2`, default auto), the
// first call that needs it dlopen()s libgit2's shared library and resolves the few functions
// it uses; that costs about 6 ms of CPU on Debian 12 (most of it libgit2's TLS start-up).
// available() is false, and reason() says why in one line, when the build has no libgit2
// support, when the library cannot be loaded at run time, when the database cannot be
// opened, and for SHA-256 repositories: libgit2 1.5 (Debian 12) has no SHA-256 object format.
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
class GitObjectHeaders;  // store/git/objects/object_headers.h, not installed

REFTAB_PUBLIC_BEGIN

enum class GitObjectType { kNone = 0, kCommit = 1, kTree = 2, kBlob = 3, kTag = 4 };

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

  // Whether libgit2's lookups (Size, Read, Abbreviate, IsAncestor, AheadBehind) work; loads
  // libgit2 and opens the database on first use. When false, reason() says why and those
  // fail with an IoError saying so. TypeOf and Peel do not need it.
  bool available();
  // One line, without a trailing newline; empty while available.
  const std::string& reason();

  // The object's type, or kNone when the database does not have it. Errors: I/O and
  // corrupt objects. Works without libgit2, for both hash formats.
  Status TypeOf(const ObjectId& id, GitObjectType* type);
  // Whether the database has the object (its type unread: cheaper than TypeOf). Works
  // without libgit2, for both hash formats.
  Status Has(const ObjectId& id, bool* found);
  // Type and size of the content (what `git cat-file -s` prints) without inflating all of
  // it where the storage allows; kNone and 0 when missing.
  Status Size(const ObjectId& id, GitObjectType* type, uint64_t* size);
  // The whole content (without git's "<type> <size>\0" header); kNone and "" when missing.
  Status Read(const ObjectId& id, GitObjectType* type, std::string* content);
  // Follows annotated tags from `id` to the first object that is not a tag. *ok is false
  // when `id` is missing, or a tag in the chain is malformed, names a missing object or one
  // of another type than it claims (git then stores no peeled value).
  Status Peel(const ObjectId& id, ObjectId* peeled, bool* ok);
  // The commit `id` stands for, as git's lookup_commit_reference_gently finds it: `id`
  // itself or, through annotated tags (Peel), the commit they end at. *ok is false when `id`
  // is missing, the tags cannot be followed, or they end at another type of object. Works
  // without libgit2, as Peel does.
  Status PeelToCommit(const ObjectId& id, ObjectId* commit, bool* ok);

  // git's abbreviation of `id`: its first hex digits, at least `min_len` and as many more
  // as make it name no other object in the database. As in git, 0 means the whole id; 1 to 3
  // act as 4 (git's callers raise them to its minimum, and libgit2 looks up no shorter
  // prefix). An id the database lacks is abbreviated so that it names no object at all.
  Status Abbreviate(const ObjectId& id, size_t min_len, std::string* hex);
  // git's automatic core.abbrev: half the bits of the approximate object count (objects in
  // packs and multi-pack indexes, alternates included; loose objects are not counted), in
  // hex digits rounded up, and at least 7. Callers honour a configured core.abbrev first.
  // Reads the pack indexes itself: works without libgit2 too.
  Status DefaultAbbrevLength(size_t* len);

  // A commit as git's parser gives it (needs libgit2, as Read does). *ok is false when `id`
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
  Status AheadBehind(const ObjectId& a, const ObjectId& b, size_t* ahead, size_t* behind);

 private:
  struct Lib;  // libgit2's functions, its odb handle, and the loaded library
  GitObjectHeaders& headers();
  Status Load();
  Status Unavailable() const;
  // A commit's parents and committer date; a commit the database lacks (a shallow
  // boundary) has none. InvalidArgument for an object that is not a commit.
  Status ReadCommit(const ObjectId& id, std::vector<ObjectId>* parents, uint64_t* date);
  // Whether the shallow file lists `id`; reads it on first use.
  Status IsShallow(const ObjectId& id, bool* shallow);

  std::string objects_dir_;
  size_t hash_size_;
  bool tried_ = false;  // Load() ran (successfully or not)
  std::unique_ptr<Lib> lib_;
  std::unique_ptr<GitObjectHeaders> headers_;  // created on first TypeOf/Peel
  std::string reason_;
  std::string shallow_file_;
  bool shallow_read_ = false;
  std::vector<ObjectId> shallow_;  // sorted
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_OBJECTS_H_

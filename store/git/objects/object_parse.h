// Public API: the bytes of git's commit and tag objects as values — header fields, people
// with their dates, and the message split as git's for-each-ref splits it (subject, body,
// signature). Pure functions over the object's content (what GitObjects::Read returns); no
// I/O, no libgit2.
#ifndef REFTAB_STORE_GIT_OBJECTS_OBJECT_PARSE_H_
#define REFTAB_STORE_GIT_OBJECTS_OBJECT_PARSE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/objects/objects.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// An "author", "committer" or "tagger" header: "Name <email> 1700000000 +0100".
struct GitPerson {
  std::string line;   // the header's value, as written
  std::string name;   // what comes before " <"; "" when there is no " <"
  std::string email;  // from '<' to '>', both included; "" when there is none
  // The date after "> ": seconds since the epoch and the zone as written, a signed decimal
  // number such as +100 or -530 (hhmm). has_date is false when there is none, as git then
  // prints an empty date.
  bool has_date = false;
  uint64_t timestamp = 0;
  int tz = 0;
};

// Parses a person header's value by git's (lenient) rules; never fails.
GitPerson ParsePerson(std::string_view value);

struct GitCommit {
  ObjectId tree{};
  std::vector<ObjectId> parents;
  std::optional<GitPerson> author, committer;
  std::string encoding;  // the "encoding" header; "" when absent (UTF-8)
  // "gpgsig" (and "gpgsig-sha256") headers, continuation lines unfolded: the leading space of
  // each continuation line removed, lines joined with '\n'.
  std::string gpgsig, gpgsig_sha256;
  std::string message;  // everything after the blank line that ends the headers
};

struct GitTag {
  ObjectId object{};
  GitObjectType type = GitObjectType::kNone;  // what the "type" header claims
  std::string type_name;                      // the "type" header as written
  std::string tag;                            // the "tag" header (the tag's own name)
  std::optional<GitPerson> tagger;            // old tags have none
  std::string message;  // after the blank line; a signature, if any, is at its end
};

// One entry of a tree object. The name is not kept: nothing here needs it.
struct GitTreeEntry {
  uint32_t mode = 0;  // as written, octal ("40000" is 040000; git's file-type bits)
  ObjectId id{};
};
// Whether a tree entry's mode names a subtree (S_ISDIR), or a submodule commit (gitlink).
bool IsTreeMode(uint32_t mode);
bool IsGitlinkMode(uint32_t mode);

// A tree's content: "<octal mode> <name>\0<raw id>" entries back to back. Corruption, with
// git's words, for an entry whose mode is not octal, whose name is empty, or that is cut short.
Status ParseTree(std::string_view content, size_t hash_size, std::vector<GitTreeEntry>* out);

// A commit's content. Corruption when the "tree" header is missing or not first, or a
// "tree"/"parent" id is not `hash_size` bytes of lower-case hex.
Status ParseCommit(std::string_view content, size_t hash_size, GitCommit* out);
// A tag's content. Corruption when "object" or "type" is missing or malformed.
Status ParseTag(std::string_view content, size_t hash_size, GitTag* out);

// The message of a commit or tag object as git's ref-filter splits it. Input is the whole
// object content (headers included); like git, it stops at the first NUL byte.
struct GitMessageParts {
  std::string subject;        // %(subject): the first paragraph, its lines joined with ' '
  std::string raw_subject;    // the first paragraph as written, trailing newlines dropped
  std::string body;           // %(contents:body): after the subject, up to the signature
  std::string body_and_sig;   // %(body): after the subject, to the end
  std::string signature;      // %(contents:signature): from the last signature line start
  std::string contents;       // %(contents): the whole message
  std::string unsigned_part;  // the message without its signature (%(contents:lines=N))
};
GitMessageParts SplitMessage(std::string_view object_content);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_OBJECT_PARSE_H_

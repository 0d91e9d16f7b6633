// git log's decorations: the names of the refs that point at a commit, shown after its id as
// " (HEAD -> main, tag: v1, origin/main)", with git's order, kinds and colours.
#ifndef REFTAB_CLI_REF_DECORATIONS_H_
#define REFTAB_CLI_REF_DECORATIONS_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cli/git_color.h"
#include "cli/stack_access.h"
#include "format/record.h"
#include "format/status.h"

namespace reftab::cli {

// The kind of a decoration; also its index in LogColorConfig::decorate.
enum class DecorationType : unsigned char {
  kNone,
  kBranch,        // refs/heads/
  kRemoteBranch,  // refs/remotes/
  kTag,           // refs/tags/, and what an annotated tag points at
  kStash,         // refs/stash
  kHead,          // HEAD
  kGrafted,
};

// log.decorate / --decorate's styles. kAuto is not a style: Resolve it.
enum class DecorateStyle : unsigned char { kNo, kShort, kFull, kAuto, kInvalid };
// git's parse of a style ("short", "full", "auto", or a boolean: true short, false no);
// kInvalid for anything else.
DecorateStyle ParseDecorateStyle(std::string_view value);
// kAuto as git decides it: short names on a terminal or with a pager in use, else none.
DecorateStyle ResolveDecorateStyle(DecorateStyle style);

// The decorations of every object a ref points at, as git loads them by default: the refs
// under refs/heads/, refs/tags/, refs/remotes/, refs/stash and HEAD (a symref as the ref
// it reaches), each annotated tag also decorating what it peels to.
class RefDecorations {
 public:
  // Errors: reading the refs or an object failed.
  static Result<RefDecorations> Load(Store& store);

  // Appends git's " (...)" for `id` (nothing when no ref points at it). `colors`: null for
  // no colour.
  void Append(const ObjectId& id, DecorateStyle style, const LogColorConfig* colors,
              std::string* out) const;

 private:
  struct Decoration {
    DecorationType type;
    std::string name;  // the full ref name
  };
  // Per object, newest first as git lists them (the last ref loaded first).
  std::unordered_map<ObjectId, std::vector<Decoration>, ObjectIdHash> by_id_;
  std::string head_branch_;  // the refs/... HEAD is a symref to, or empty
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REF_DECORATIONS_H_

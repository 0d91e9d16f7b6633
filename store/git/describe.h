// Public API: `git describe <commit>` as for-each-ref's %(describe) runs it: the nearest tag
// (annotated ones, or any with `tags`) from which the commit is reachable, as
// "<tag>-<commits since>-g<abbreviated id>", or the tag alone for a tagged commit. The same
// candidate search as git's (newest commits first, at most 10 candidates, the fewest commits
// not reachable from the tag wins), so ties and cut-offs come out as git's.
#ifndef REFTAB_STORE_GIT_DESCRIBE_H_
#define REFTAB_STORE_GIT_DESCRIBE_H_

#include <memory>
#include <string>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/objects/abbrev.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// The options %(describe:...) passes on: --tags/--no-tags, --abbrev=<n>, --match, --exclude.
struct GitDescribeOptions {
  bool tags = false;                 // lightweight tags are candidates too
  int abbrev = kAbbrevDefault;       // kAbbrevDefault, kAbbrevFull (no suffix), or a minimum
  std::vector<std::string> match;    // wildmatch patterns over the name after refs/tags/
  std::vector<std::string> exclude;  // idem; an excluded tag is never a candidate
};

class GitDescriber {
 public:
  // `store` (with an object database) and `abbrev` must outlive this object. The tags are
  // read on the first Describe.
  GitDescriber(GitRefStore& store, GitAbbreviator& abbrev, GitDescribeOptions options);
  ~GitDescriber();
  GitDescriber(const GitDescriber&) = delete;
  GitDescriber& operator=(const GitDescriber&) = delete;

  // Describes `commit` (a commit's id). *out is "" where git describe fails (no tags, none
  // reaches the commit): for-each-ref then prints nothing. Errors: the database's.
  Status Describe(const ObjectId& commit, std::string* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_DESCRIBE_H_

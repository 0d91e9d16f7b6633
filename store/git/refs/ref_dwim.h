// Public API: short ref names as git reads them ("main" for refs/heads/main), in one place
// for every command that accepts them. git tries, in order: the name itself, refs/<name>,
// refs/tags/<name>, refs/heads/<name>, refs/remotes/<name>, refs/remotes/<name>/HEAD; the
// first that resolves (through symrefs) wins, and more than one makes the name ambiguous.
// The reverse, ShortenRefname, gives the shortest name that reads back as the full one.
// Only names: revision syntax (~, ^, @{...}, abbreviated ids) is not parsed here.
#ifndef REFTAB_STORE_GIT_REFS_REF_DWIM_H_
#define REFTAB_STORE_GIT_REFS_REF_DWIM_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// git's rev-parse rules (refs.c's ref_rev_parse_rules), the one list every expansion and
// shortening of ref names goes through: the full names `name` stands for, in the order git
// tries them (NAME, refs/NAME, refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME,
// refs/remotes/NAME/HEAD). Nothing is looked up.
std::vector<std::string> ExpandRefname(std::string_view name);

struct DwimResult {
  int matches = 0;      // how many of git's rules found a ref; above 1 the name is ambiguous
  std::string refname;  // the first match, where its symrefs end (what git reports)
  ObjectId id{};
  // git's warnings for rules that met a dangling symref on the way, in order, without
  // "warning: " ("ignoring dangling symref refs/heads/x").
  std::vector<std::string> warnings;
};

// Expands `name` by git's rules. `all_rules` (git's core.warnAmbiguousRefs, on by default)
// keeps trying after the first match so that ambiguity is counted; otherwise it stops there.
Status DwimRef(GitRefStore& store, std::string_view name, bool all_rules, DwimResult* out);

// What ResolveRevision (store/git/refs/object_name.h) makes of a name, with what git prints
// while reading it.
struct ObjectNameResult {
  bool found = false;
  ObjectId id{};
  std::string refname;  // the ref the base name came from (empty for an id)
  // git's warnings, in order, without "warning: ": dangling symrefs met on the way, the
  // ambiguity warning when more than one rule matched (if core.warnAmbiguousRefs), reflog
  // warnings ("log for 'main' only goes back to ...").
  std::vector<std::string> warnings;
  // Lines git prints as they are right after the warnings (its advice on a ref named like a
  // full object id).
  std::vector<std::string> advice;
  // git's error lines, without "error: ", for a name that fails as git reports it
  // ("x^{blob}: expected blob type, but the object dereferences to tree type", "short object
  // ID 1234 is ambiguous"); printed, as git prints them, each time the name is looked up.
  std::vector<std::string> errors;
  // git's hint lines, without "hint: ", printed after the errors (an ambiguous short id's
  // candidates).
  std::vector<std::string> hints;
  // git gives up on the spot (exit status 128) after printing the above: with `fatal`
  // ("log for 'main' only has 3 entries", "no upstream configured for branch 'x'") as its
  // "fatal: " line, or silently when `fatal` is empty (what --quiet makes of some of them).
  bool dies = false;
  std::string fatal;
};

// git's core.warnAmbiguousRefs for this store (true without a repository).
bool WarnAmbiguousRefs(const GitRefStore& store);

// git's "refname 'x' is ambiguous." (without "warning: ").
std::string AmbiguousRefnameWarning(std::string_view name);

// The shortest form of `refname` that DwimRef reads back as it (git's
// shorten_unambiguous_ref): "refs/heads/main" -> "main" unless refs/main or refs/tags/main
// exist (RefExists). `strict`: no other rule may match at all. A name no rule shortens (the
// short name would be empty, or it is taken) is returned whole.
Status ShortenRefname(GitRefStore& store, std::string_view refname, bool strict, std::string* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_DWIM_H_

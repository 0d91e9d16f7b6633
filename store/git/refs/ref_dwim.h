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

// What a command that takes an object name gets from `name` when only full ids and ref names
// are understood (git's get_oid without revision syntax): a full hex id of the store's hash
// (taken as is, existing or not), "@" for HEAD, or a name DwimRef finds.
struct ObjectNameResult {
  bool found = false;
  ObjectId id{};
  std::string refname;  // the ref it came from (empty for a hex id)
  // git's warnings, in order, without "warning: ": dangling symrefs met on the way, then the
  // ambiguity warning when more than one rule matched (if core.warnAmbiguousRefs).
  std::vector<std::string> warnings;
  // git's error lines, without "error: ", for a name that fails as git reports it
  // (ResolveRevision's "x^{blob}: expected blob type, but the object dereferences to tree
  // type"); printed, as git prints them, each time the name is looked up.
  std::vector<std::string> errors;
};
Status ResolveObjectName(GitRefStore& store, std::string_view name, ObjectNameResult* out);

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

// `reftab for-each-ref` and `reftab refs list`: one command under two names, as in git.
// The options as git's for-each-ref reads them (for_each_ref_args.cc), and the listing
// itself (cmd_for_each_ref.cc).
#ifndef REFTAB_CLI_FOR_EACH_REF_H_
#define REFTAB_CLI_FOR_EACH_REF_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/git_color.h"
#include "cli/output.h"
#include "cli/ref_format.h"
#include "cli/ref_sort.h"
#include "format/record.h"
#include "store/git/refs/ref_patterns.h"
#include "store/git/refs/ref_store.h"
#include "store/git/refs/refname.h"

namespace reftab::cli {

struct ForEachRefOptions {
  unsigned quote_bits = 0;  // one bit per quoting option given
  QuoteStyle quote = QuoteStyle::kNone;
  bool omit_empty = false;
  int64_t count = 0;  // 0: all
  std::string format = "%(objectname) %(objecttype)\t%(refname)";
  bool json = false;        // --format=json (reftab's addition)
  bool pager_color = true;  // color.pager: kAuto colours through the pager
  // --format='json %(atom) ...': the atoms to print as the objects' fields ("" for the
  // default fields: refname, objectname, peeled, symref).
  std::string json_fields;
  std::optional<std::string> start_after;
  ColorWhen color = ColorWhen::kUnknown;  // kUnknown: color.ui decides
  std::vector<std::string> excludes;
  std::vector<std::string> sorts{"refname"};  // git's default key comes first
  std::vector<std::string> points_at;
  // --merged, --no-merged, --contains, --no-contains with the commit each names.
  std::vector<std::pair<std::string, std::string>> reach;
  bool ignore_case = false;
  bool from_stdin = false;
  bool include_root_refs = false;
  std::vector<std::string> patterns;
};

// git's usage synopsis of for-each-ref's options after "reftab <command>" (for-each-ref,
// refs list), with its continuation lines.
std::string Synopsis(const char* command);

// The prefixes a listing reads, in order: "refs/" (or "" with --include-root-refs), or the
// literal prefixes of the patterns.
std::vector<std::string> ListingPrefixes(const ForEachRefOptions& o);

// A name AdmitListedName leaves out: git's warning for a broken one (Ok), git's fatal
// message for a dangerous one (the error).
Status RefuseListedName(std::string_view name, ListedRefname verdict);

// git's name rules for a listed ref: under refs/ (or a root ref with --include-root-refs);
// then, as git's iterator and ref filter judge the name (JudgeListedRefname), a broken one
// left out with git's warning and a dangerous one ending the listing (the error, git's
// fatal message); then after --start-after, matching a pattern if any are given, and no
// --exclude. *listed: whether the ref is listed.
// `judged`: JudgeListedRefname(name), when the caller has it already.
inline Status AdmitListedName(const ForEachRefOptions& o, std::string_view name, bool* listed,
                              std::optional<ListedRefname> judged = std::nullopt) {
  *listed = false;
  bool under_refs = name.size() >= 5 && std::memcmp(name.data(), "refs/", 5) == 0;
  if (!under_refs && !(o.include_root_refs && IsRootRef(name))) return Status::Ok();
  const ListedRefname verdict = judged ? *judged : JudgeListedRefname(name);
  if (verdict != ListedRefname::kGood) [[unlikely]]
    return RefuseListedName(name, verdict);
  if (o.start_after && name <= *o.start_after) return Status::Ok();
  if (!o.patterns.empty() && !MatchesRefPattern(o.patterns, name, o.ignore_case)) {
    return Status::Ok();
  }
  *listed = o.excludes.empty() || !MatchesRefPattern(o.excludes, name, o.ignore_case);
  return Status::Ok();
}

// The commits of --merged, --no-merged, --contains, --no-contains, in that order.
using Reach = std::array<std::vector<ObjectId>, 4>;

// The commit `id` names, tags peeled (git's lookup_commit_reference_gently); *is_commit is
// false for anything else. Fails, naming `what`, when there is no object database.
Status CommitOf(GitRefStore& store, const char* what, const ObjectId& id, ObjectId* commit,
                bool* is_commit);

// The checks and look-ups git makes after reading the options, in git's order (object names,
// the format, sort keys, --stdin patterns). -1 to go on, else the exit status (after git's
// message).
int PrepareForEachRef(const char* command, GitRefStore& store, ForEachRefOptions* o, RefFormat* f,
                      std::vector<SortKey>* keys, std::vector<ObjectId>* points_at, Reach* reach);

// "error: <message>" and git's usage of `command` ("for-each-ref" or "refs list", naming
// reftab) on stderr; returns git's status 129.
int ForEachRefUsageError(const char* command, const std::string& message);

// Reads the options; returns -1 to go on, or the exit status after printing git's message.
int ParseForEachRefArgs(const char* command, const Args& args, ForEachRefOptions* options);

int RunForEachRef(const GlobalOptions& g, const char* command, const Args& args);

// The listing's fast path (for_each_ref_fast.cc): whether it lists these options and this
// format exactly as the general path would, and the listing itself, into `out`.
bool FastListingApplies(GitRefStore& store, const ForEachRefOptions& o, const RefFormat& f,
                        const std::vector<SortKey>& keys);
Status ListFast(GitRefStore& store, const ForEachRefOptions& o, const RefFormat& f, Output* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_FOR_EACH_REF_H_

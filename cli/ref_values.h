// The values of for-each-ref's atoms for one ref: from the ref itself (names, ids, symref
// targets, HEAD), from the config (upstream, push) and from the object database (types,
// sizes, commit and tag fields), computed as git computes them.
#ifndef REFTAB_CLI_REF_VALUES_H_
#define REFTAB_CLI_REF_VALUES_H_

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cli/ref_format.h"
#include "format/record.h"
#include "format/status.h"
#include "store/git/describe.h"
#include "store/git/objects/abbrev.h"
#include "store/git/refs/ref_store.h"
#include "store/git/signature.h"
#include "store/git/trailer.h"
#include "store/git/upstream.h"
#include "store/git/worktrees.h"

namespace reftab::cli {

// A listed ref, as git's ref iteration hands it over.
struct RefItem {
  std::string refname;
  ObjectId oid{};           // what the ref (through its symrefs) names
  bool has_peeled = false;  // the table stores the peeled id of an annotated tag
  ObjectId peeled{};
  bool is_symref = false;
  std::string symref;  // the last name its symref chain reaches
};

// For %(is-base:...): by ref name, one slot per %(is-base) atom: the commit as written, or ""
// for none. git fills slot j with the j-th atom whose base was found, whatever ref that is:
// a ref's slot need not be its own atom's (kept as git prints it).
using IsBaseNames = std::unordered_map<std::string, std::vector<std::string>>;

class RefValues {
 public:
  // `store` must outlive this object. `core_abbrev`: ReadCoreAbbrev's value, the length of
  // %(objectname:short) and the like.
  RefValues(GitRefStore& store, int core_abbrev);

  // What %(is-base:...) atoms print, found over the whole listing before any Fill.
  void SetIsBase(IsBaseNames names) { is_base_ = std::move(names); }

  // Fills one value per atom of `format`. Errors carry git's fatal message (without
  // "fatal: "), e.g. "missing object <id> for refs/heads/x".
  Status Fill(const RefFormat& format, const RefItem& ref, std::vector<AtomValue>* values);

 private:
  struct ObjectData;
  Status RefAtom(const UsedAtom& a, const RefItem& ref, AtomValue* v, bool* done);
  Status ShowRef(const UsedAtom& a, const std::string& name, std::string* out);
  Status RemoteAtom(const UsedAtom& a, const RefItem& ref, AtomValue* v);
  Status Track(const UsedAtom& a, const std::string& branch, const std::string& base,
               std::string* out);
  Status Load(const ObjectId& id, const RefItem& ref, bool content, ObjectData* data);
  Status ObjectAtoms(const RefFormat& format, bool deref, const ObjectData& data,
                     std::vector<AtomValue>* values);
  Status CommonAtom(const UsedAtom& a, const ObjectData& d, bool deref, bool* ahead_behind_seen,
                    AtomValue* v, bool* done);
  Status CommitField(const UsedAtom& a, std::string_view content, AtomValue* v);
  Status MessageAtom(const UsedAtom& a, std::string_view content, AtomValue* v);
  Status SignatureAtom(const UsedAtom& a, const ObjectData& d, AtomValue* v);
  Status DescribeAtom(size_t index, const UsedAtom& a, const ObjectData& d, AtomValue* v);
  Status StorageAtom(const UsedAtom& a, const ObjectData& d, AtomValue* v);
  Status PersonAtom(const UsedAtom& a, std::string_view name, const ObjectData& d, AtomValue* v);
  Status Abbrev(const ObjectId& id, const UsedAtom& a, std::string* out);
  Status Objects(const char* atom, GitObjects** objects);
  Status ShortName(const std::string& refname, std::string* out);
  bool MailmapInUse();
  Status AheadBehind(const UsedAtom& a, const ObjectData& d, bool first, std::string* out);
  Status WorktreePath(const std::string& refname, std::string* out);

  GitRefStore& store_;
  size_t hash_size_;
  GitAbbreviator abbrev_;
  GitUpstreams upstreams_;
  std::optional<std::string> head_;  // what HEAD resolves to (a name), read once
  std::optional<std::vector<GitWorktreeHead>> worktrees_;  // read once, when first needed
  std::optional<GitTrailerConfig> trailer_config_;         // read once, when first needed
  std::vector<std::unique_ptr<GitDescriber>> describers_;  // by atom index, made when needed
  IsBaseNames is_base_;
  std::optional<GitSignatureCheck> signature_;  // the current object's, once checked
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REF_VALUES_H_

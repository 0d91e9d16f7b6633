// for-each-ref's fast path: a listing in name order whose format needs nothing but each
// ref's name, id and symref target (`--format=%(refname)`, `%(objectname) %(refname)`, ...)
// is printed straight from the tables' key buffers (store/git/refs/ref_view_scan.h), without the
// per-ref item, atom values and std::function calls of the general path. It lists the same
// refs with the same bytes: the name rules (AdmitListedName), the symref rules and the rendering
// (literals, values quoted as --shell/--perl/..., --omit-empty, --count) are the general
// path's, and anything else (sorting, object atoms, modifiers, filters that read objects,
// a linked worktree's two stacks) is left to it (FastListingApplies).
#include <cstdlib>
#include <string>

#include "cli/for_each_ref.h"
#include "cli/ref_quote.h"
#include "format/record.h"
#include "store/git/refs/ref_view_scan.h"

namespace reftab::cli {
namespace {

// Whether one atom's value is the ref's name, full id or symref target as written.
bool PlainAtom(const UsedAtom& a) {
  if (a.deref) return false;
  switch (a.kind) {
    case AtomKind::kRefname:
    case AtomKind::kSymref: return a.refname == RefnameOption::kNormal;
    case AtomKind::kObjectname: return a.oid == OidOption::kFull;
    default: return false;
  }
}

// What one listed ref prints: its name (a view), id and symref target.
struct RefView {
  std::string_view name;
  const ObjectId* oid = nullptr;
  std::string_view symref;  // empty unless the ref is a symref
};

class FastListing {
 public:
  FastListing(GitRefStore& store, const ForEachRefOptions& o, const RefFormat& f, Output* out)
      : store_(store), o_(o), f_(f), out_(out), hash_size_(store.hash_size()) {}

  Status Run() {
    int64_t shown = 0;
    for (const std::string& prefix : ListingPrefixes(o_)) {
      RefViewScan scan(store_);
      REFTAB_RETURN_IF_ERROR(scan.Seek(prefix));
      for (std::string_view name; !(name = scan.Next()).empty();) {
        bool listed = false;
        REFTAB_RETURN_IF_ERROR(Print(name, scan.judged(), scan.value(), &listed));
        if (listed && o_.count && ++shown >= o_.count) return Status::Ok();
      }
      REFTAB_RETURN_IF_ERROR(scan.status());
    }
    return Status::Ok();
  }

 private:
  // Prints the ref `name` if the general path lists it (*listed then true).
  Status Print(std::string_view name, ListedRefname judged, const RefRecord& value, bool* listed) {
    RefView ref{name, &value.value, {}};
    bool admitted = false;
    REFTAB_RETURN_IF_ERROR(AdmitListedName(o_, ref.name, &admitted, judged));
    if (!admitted) return Status::Ok();
    if (value.value_type == RefValueType::kSymref) {
      // As the general path: followed to the end, and skipped when missing or broken.
      REFTAB_RETURN_IF_ERROR(store_.Resolve(ref.name, &resolved_));
      if (!resolved_.exists || resolved_.broken) return Status::Ok();
      ref.oid = &resolved_.id;
      ref.symref = resolved_.name;
    }
    *listed = Render(ref);
    out_->MaybeFlush();
    return Status::Ok();
  }

  // Appends the ref's line; false if --omit-empty drops it.
  bool Render(const RefView& ref) {
    std::string& b = out_->buf();
    const size_t start = b.size();
    for (const FormatPiece& p : f_.pieces) {
      if (!p.is_atom) {
        b.append(p.literal);
        continue;
      }
      const UsedAtom& a = f_.atoms[p.atom];
      if (a.kind == AtomKind::kObjectname) {
        if (f_.quote == QuoteStyle::kNone) {
          AppendHexId(*ref.oid, hash_size_, &b);
        } else {
          hex_.clear();
          AppendHexId(*ref.oid, hash_size_, &hex_);
          AppendQuoted(f_.quote, hex_, &b);
        }
      } else {
        std::string_view v = a.kind == AtomKind::kRefname ? ref.name : ref.symref;
        if (f_.quote == QuoteStyle::kNone) {
          b.append(v);
        } else {
          AppendQuoted(f_.quote, v, &b);
        }
      }
    }
    if (f_.reset_color_at_eol) AppendQuoted(f_.quote, kGitColorReset, &b);
    if (b.size() == start && o_.omit_empty) return false;
    b.push_back('\n');
    return true;
  }

  GitRefStore& store_;
  const ForEachRefOptions& o_;
  const RefFormat& f_;
  Output* out_;
  size_t hash_size_;
  ResolvedRef resolved_;  // reused for symrefs
  std::string hex_;       // an id before quoting
};

}  // namespace

bool FastListingApplies(GitRefStore& store, const ForEachRefOptions& o, const RefFormat& f,
                        const std::vector<SortKey>& keys) {
  // The comparison tests run every case through the general path too (for_each_ref_fast.sh).
  const char* off = std::getenv("REFTAB_TEST_FOR_EACH_REF_GENERAL");
  if (off && *off && std::string_view(off) != "0") return false;
  if (o.json || !o.points_at.empty() || !o.reach.empty() || !IsNameOrder(f, keys)) return false;
  for (const UsedAtom& a : f.atoms) {
    if (!PlainAtom(a)) return false;
  }
  return RefViewScan::Applies(store);
}

Status ListFast(GitRefStore& store, const ForEachRefOptions& o, const RefFormat& f, Output* out) {
  return FastListing(store, o, f, out).Run();
}

}  // namespace reftab::cli

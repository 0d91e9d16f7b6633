// for-each-ref's fast path: a listing in name order whose format needs nothing but each
// ref's name, id and symref target (`--format=%(refname)`, `%(objectname) %(refname)`, ...)
// is printed straight from the tables' key buffers (store/git/refs/ref_view_scan.h), without the
// per-ref item, atom values and std::function calls of the general path. It lists the same
// refs with the same bytes: the name rules (AdmitListedName), the symref rules and the rendering
// (literals, values quoted as --shell/--perl/..., --omit-empty, --count) are the general
// path's, and anything else (sorting, object atoms, modifiers, filters that read objects,
// a linked worktree's two stacks) is left to it (FastListingApplies).
#include <cstdlib>
#include <cstring>
#include <memory>
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
      : store_(store), o_(o), f_(f), out_(out), hash_size_(store.hash_size()) {
    for (const FormatPiece& p : f_.pieces) {
      if (p.is_atom) {
        ++names_;
      } else {
        literals_ += p.literal.size();
      }
    }
    just_the_name_ = names_ == 1 && f_.pieces.size() == 1;
    // A line holds the name, so it is never empty (--omit-empty).
    if (names_ > 0 && NamesOnly()) lines_ = std::make_unique<char[]>(kLinesCap);
  }

  Status Run() {
    Status s = Scan();
    FlushLines();  // also before an error's message
    return s;
  }

 private:
  Status Scan() {
    int64_t shown = 0;
    for (const std::string& prefix : ListingPrefixes(o_)) {
      RefViewScan scan(store_);
      REFTAB_RETURN_IF_ERROR(scan.Seek(prefix));
      for (std::string_view name; !(name = scan.Next()).empty();) {
        bool listed = false;
        if (!TakeLine(name, scan.judged(), scan.value(), &listed)) {
          FlushLines();  // the lines so far come first
          REFTAB_RETURN_IF_ERROR(Print(name, scan.judged(), scan.value(), &listed));
        }
        if (listed && o_.count && ++shown >= o_.count) return Status::Ok();
      }
      REFTAB_RETURN_IF_ERROR(scan.status());
    }
    return Status::Ok();
  }

  // Whether every line is the format's literals and the ref's name as it is (no quoting, no
  // colour), and every ref under refs/ with a good name is listed (no --start-after, patterns
  // or --exclude): such lines are put together in lines_, with no per-ref check but the
  // name's and no std::string on the way (the bulk of a `--format=%(refname)` listing).
  bool NamesOnly() const {
    if (f_.quote != QuoteStyle::kNone || f_.reset_color_at_eol) return false;
    if (o_.start_after || !o_.patterns.empty() || !o_.excludes.empty()) return false;
    for (const FormatPiece& p : f_.pieces) {
      if (p.is_atom && f_.atoms[p.atom].kind != AtomKind::kRefname) return false;
    }
    return true;
  }

  // NamesOnly()'s line for a plain ref (a good name under refs/, not a symref), into
  // lines_; false, with nothing done, for any other ref (Print's).
  bool TakeLine(std::string_view name, ListedRefname judged, const RefRecord& value, bool* listed) {
    if (!lines_ || judged != ListedRefname::kGood || value.value_type == RefValueType::kSymref ||
        name.size() < 5 || std::memcmp(name.data(), "refs/", 5) != 0) {
      return false;
    }
    const size_t need = literals_ + names_ * name.size() + 1;
    if (lines_used_ + need > kLinesRoom) [[unlikely]] {
      FlushLines();
      if (need > kLinesRoom) return false;
    }
    char* w = lines_.get() + lines_used_;
    if (just_the_name_) [[likely]] {
      w = CopyName(w, name);
    } else {
      for (const FormatPiece& p : f_.pieces) {
        if (p.is_atom) {
          w = CopyName(w, name);
        } else {
          std::memcpy(w, p.literal.data(), p.literal.size());
          w += p.literal.size();
        }
      }
    }
    *w++ = '\n';
    lines_used_ = size_t(w - lines_.get());
    if (lines_used_ >= kLinesAt) FlushLines();
    *listed = true;
    return true;
  }

  // Whole 16-byte blocks: the scan's names are followed by readable bytes, and lines_ has
  // room past kLinesRoom for what lies beyond the name. Returns the end of the copy.
  static char* CopyName(char* w, std::string_view name) {
    for (size_t i = 0; i < name.size(); i += 16) std::memcpy(w + i, name.data() + i, 16);
    return w + name.size();
  }

  // Hands the lines gathered so far to the output.
  void FlushLines() {
    if (lines_used_ == 0) return;
    out_->Write(std::string_view(lines_.get(), lines_used_));
    lines_used_ = 0;
  }

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

  static_assert(RefViewScan::kNameReadSlack >= 16);
  // lines_ is handed over once it holds kLinesAt bytes; it has room for kLinesRoom (so
  // that a line seldom finds it too full), and for the blocks a name's copy writes past them.
  static constexpr size_t kLinesAt = Output::kFlushAt;
  static constexpr size_t kLinesRoom = kLinesAt + 4096;
  static constexpr size_t kLinesCap = kLinesRoom + 16;

  GitRefStore& store_;
  const ForEachRefOptions& o_;
  const RefFormat& f_;
  Output* out_;
  size_t hash_size_;
  ResolvedRef resolved_;           // reused for symrefs
  std::string hex_;                // an id before quoting
  std::unique_ptr<char[]> lines_;  // NamesOnly()'s lines, or null
  size_t lines_used_ = 0;
  size_t names_ = 0;            // the format's atoms (each the name, in NamesOnly())
  size_t literals_ = 0;         // the bytes of its literals
  bool just_the_name_ = false;  // the format is "%(refname)"
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

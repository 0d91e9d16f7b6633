// Public API: git's rules for reference names, as `git check-ref-format` and git's ref
// transactions apply them. Pure functions over byte strings: no repository, no I/O.
//
// Three questions are kept apart because git keeps them apart:
//  - Is the name well formed (CheckRefnameFormat)? Required for every name a write gives a
//    value to.
//  - Is the name safe (IsSafeRefname)? Weaker: a name that is not well formed may still be
//    deleted or read if it cannot escape the ref namespace; an unsafe one ("refname is
//    dangerous") is refused everywhere.
//  - What kind of name is it outside refs/ (root ref syntax, root ref, pseudoref)?
#ifndef REFTAB_STORE_GIT_REFS_REFNAME_H_
#define REFTAB_STORE_GIT_REFS_REFNAME_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "format/visibility.h"
namespace reftab {
REFTAB_PUBLIC_BEGIN

// Options of CheckRefnameFormat, combined with '|'.
enum RefnameFlags : unsigned {
  kRefnameStrict = 0,
  // A single component ("HEAD", "main") is accepted (--allow-onelevel).
  kRefnameAllowOneLevel = 1u << 0,
  // One '*' is accepted in the whole name (--refspec-pattern).
  kRefnameRefspecPattern = 1u << 1,
};

// The first rule a name breaks, in the order git checks them.
enum class RefnameProblem {
  kNone,
  kIsAt,                    // the whole name is "@"
  kEmptyComponent,          // "", leading or trailing '/', or "//"
  kBadCharacter,            // control byte, DEL, space, ~ ^ : ? [ \ (or NUL)
  kAsterisk,                // '*' without kRefnameRefspecPattern, or a second '*'
  kDoubleDot,               // ".."
  kAtBrace,                 // "@{"
  kComponentStartsWithDot,  // a component begins with '.'
  kComponentEndsWithLock,   // a component ends with ".lock"
  kEndsWithDot,             // the name ends with '.'
  kOneLevel,                // one component without kRefnameAllowOneLevel
};

// Checks `name` against every rule of `git check-ref-format` with `flags`.
RefnameProblem CheckRefnameFormat(std::string_view name, unsigned flags = kRefnameStrict);
inline bool IsValidRefname(std::string_view name, unsigned flags = kRefnameStrict) {
  return CheckRefnameFormat(name, flags) == RefnameProblem::kNone;
}
// A short English description of a problem ("contains \"..\"").
std::string_view RefnameProblemText(RefnameProblem problem);

// `git check-ref-format --normalize`: leading slashes dropped and runs of slashes collapsed,
// then checked; nullopt when the collapsed name is still not valid.
std::optional<std::string> NormalizeRefname(std::string_view name, unsigned flags = kRefnameStrict);

// git's "refname is dangerous" test, negated. Under refs/: a non-empty rest that neither
// starts nor ends with '/' and has no empty, "." or ".." component. Outside refs/: only upper
// case letters and '_' (no '-', no digits), non-empty. Names with a NUL byte are unsafe.
bool IsSafeRefname(std::string_view name);

// A ref name read from a table as git reads it: as a C string, so that a name holding a NUL
// byte (written by another tool) ends there. What every name leaving the tables goes
// through (GitRefStore::ForEachRef, RefViewScan).
inline std::string_view StoredRefname(std::string_view raw) {
  const void* nul = std::memchr(raw.data(), 0, raw.size());
  return nul ? raw.substr(0, size_t(static_cast<const char*>(nul) - raw.data())) : raw;
}

// What git's ref listings make of a listed name (after StoredRefname).
enum class ListedRefname : uint8_t {
  kGood,       // well formed (one level allowed)
  kBadName,    // safe but not well formed: listed as broken (show-ref dies on it), or left
               // out by for-each-ref with "warning: ignoring ref with broken name <name>"
  kDangerous,  // not even safe: every listing dies, "fatal: refname is dangerous: <name>"
};
// A quick first look, for listings of many names: true when `name` is certainly well
// formed (one level allowed) — no byte but letters, digits, '-', '_', '@' and '/' between
// non-empty components... (see refname.cc); false when it needs CheckRefnameFormat.
bool PlainlyValidRefname(std::string_view name);

inline ListedRefname JudgeListedRefname(std::string_view name) {
  if (PlainlyValidRefname(name) || IsValidRefname(name, kRefnameAllowOneLevel)) [[likely]]
    return ListedRefname::kGood;
  return IsSafeRefname(name) ? ListedRefname::kBadName : ListedRefname::kDangerous;
}

// A name for messages about names that may hold any byte: as it is when it prints as it is
// (no control byte or DEL, valid UTF-8); otherwise with every control byte, DEL, backslash,
// double quote and byte from 0x80 up as a C escape (\0, \t, \001, \377), as git's C-style
// quoting writes them.
std::string EscapedRefname(std::string_view name);
// Whether `name` is valid UTF-8 (git does not require it; reftab's verify warns).
bool IsUtf8(std::string_view name);

// Root-ref syntax: every byte an upper case letter, '-' or '_' (the empty name qualifies, as
// in git; callers check emptiness separately).
bool IsRootRefSyntax(std::string_view name);
// Pseudorefs: FETCH_HEAD and MERGE_HEAD. They are not refs of the ref store: git refuses to
// write them through a ref transaction ("refusing to update pseudoref").
bool IsPseudoRef(std::string_view name);
// Root refs: root-ref syntax, not a pseudoref, and either ending in "_HEAD" or one of HEAD,
// AUTO_MERGE, BISECT_EXPECTED_REV, NOTES_MERGE_PARTIAL, NOTES_MERGE_REF, MERGE_AUTOSTASH.
bool IsRootRef(std::string_view name);
// Names a listing of all refs includes: root refs and everything under refs/.
inline bool IsListedRef(std::string_view name) {
  return IsRootRef(name) || name.substr(0, 5) == "refs/";
}

// Why a ref transaction refuses to touch `name`, as git words it (without "fatal: "), or
// nullopt when it may. `gives_value`: the update leaves the ref with a value (create, update,
// symref-*); deletes and verifies (`gives_value` false) only need a safe name.
//   "refusing to update pseudoref 'FETCH_HEAD'"
//   "refusing to update ref with bad name 'refs/heads/a..b'"
std::optional<std::string> RefnameRefusal(std::string_view name, bool gives_value);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REFNAME_H_

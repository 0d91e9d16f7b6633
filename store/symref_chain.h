// Public API: following symbolic refs (value type 3: a record naming another ref) to the
// record that holds an id. The stack's transactions use it for the id a symref's reflog entry
// records, the C API for lookups in stores without git's rules; the git layer walks chains
// itself (store/git/refs/ref_store.h) because it checks each name on the way, with the same
// limit.
#ifndef REFTAB_STORE_SYMREF_CHAIN_H_
#define REFTAB_STORE_SYMREF_CHAIN_H_

#include <string>
#include <string_view>
#include <utility>

#include "format/record.h"
#include "format/status.h"

namespace reftab {

// How many names a chain may have before readers give up: git and JGit stop after 5 and
// treat a longer chain, or a cycle, as a broken ref.
inline constexpr int kMaxSymrefDepth = 5;

// Reads `name` with `read` (Status(std::string_view name, RefRecord* out, bool* found)) and
// follows symrefs, at most kMaxSymrefDepth names. *found is true when the chain ends at a
// record that is not a symref, which is then in *out; false when a name in it is absent or the
// chain is too long. Errors are `read`'s.
template <typename ReadFn>
Status FollowSymrefs(ReadFn&& read, std::string_view name, RefRecord* out, bool* found) {
  std::string next(name);
  for (int depth = 0; depth < kMaxSymrefDepth; ++depth) {
    REFTAB_RETURN_IF_ERROR(read(std::string_view(next), out, found));
    if (!*found || out->value_type != RefValueType::kSymref) return Status::Ok();
    next = std::move(out->target);
  }
  *found = false;
  return Status::Ok();
}

}  // namespace reftab

#endif  // REFTAB_STORE_SYMREF_CHAIN_H_

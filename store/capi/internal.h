// Internal (not installed): what the files implementing the C API (store/capi/reftab.h) share —
// the error object, turning a Status into a code, and the guard that keeps C++ exceptions
// from crossing into C.
#ifndef REFTAB_STORE_CAPI_INTERNAL_H_
#define REFTAB_STORE_CAPI_INTERNAL_H_

#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/capi/reftab.h"
#include "store/git/refs/ref_store.h"
#include "store/stack.h"
#include "store/table_reader.h"

struct reftab_error {
  reftab_code code;
  std::string message;
};

// Exactly one of `git`, `stack` and `table` is set: what was opened.
struct reftab_store {
  std::unique_ptr<reftab::GitRefStore> git;          // a repository, or a stack with git's rules
  std::unique_ptr<reftab::Stack> stack;              // a plain stack
  std::shared_ptr<const reftab::TableReader> table;  // one table file, read only
  bool read_only = false;
  reftab::RefRecord lookup;  // what the last lookup's view points into
};

namespace reftab::capi {

reftab_code CodeOf(Code code);

// Stores a new error in *err (freeing what was there) unless err is NULL; returns `code`.
reftab_code Fail(reftab_error** err, reftab_code code, std::string_view message);
// OK stays OK (and *err untouched); anything else becomes an error object.
reftab_code Report(reftab_error** err, const Status& status);

// The value a C caller stored in an enum-typed parameter or field, read as an int: C lets a
// caller pass any int there, and loading one the enum does not name is undefined behaviour
// in C++ (UBSan reports it), so the C API checks enums through this before switching.
template <class Enum>
int EnumValue(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Runs `body` (returning reftab_code) and turns anything it throws (std::bad_alloc from a
// string, a std::length_error) into REFTAB_INTERNAL: C has no exceptions to catch them.
template <class Body>
reftab_code Guard(reftab_error** err, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return Fail(err, REFTAB_INTERNAL, e.what());
  } catch (...) {
    return Fail(err, REFTAB_INTERNAL, "unexpected failure inside reftab");
  }
}

// One sorted source of records for an iterator: a stack's snapshot, and whether it is a
// linked worktree's main stack (whose per-worktree names the worktree's own stack hides) or
// the worktree's stack.
struct Source {
  std::shared_ptr<const Snapshot> snapshot;
  enum class Role { kOnly, kSharedOfWorktree, kWorktree } role = Role::kOnly;
};
// The store's sources, main stack first.
Result<std::vector<Source>> SourcesOf(reftab_store* store);
HashId HashOf(const reftab_store* store);

// Views of records (store/capi/reftab.h): pointers into `r`, valid while it is unchanged.
void FillRefView(const RefRecord& r, reftab_ref* out);
void FillLogView(const LogRecord& r, reftab_log* out);

// For a required pointer argument: REFTAB_INVALID_ARGUMENT naming it when it is NULL.
#define REFTAB_C_REQUIRE(err, ptr)                                                            \
  do {                                                                                        \
    if ((ptr) == nullptr) {                                                                   \
      return ::reftab::capi::Fail(err, REFTAB_INVALID_ARGUMENT, "argument " #ptr " is NULL"); \
    }                                                                                         \
  } while (0)

}  // namespace reftab::capi

#endif  // REFTAB_STORE_CAPI_INTERNAL_H_

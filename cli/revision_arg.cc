#include "cli/revision_arg.h"

#include "store/git/refs/object_name.h"

namespace reftab::cli {

Status ResolveRevisionArg(Store& store, const std::string& s, ObjectId* id, bool* found) {
  *found = false;
  if (s.empty()) return Status::Ok();
  ObjectNameResult r;
  REFTAB_RETURN_IF_ERROR(ResolveRevision(store, s, &r));
  for (const std::string& w : r.warnings) GitWarning(w);
  for (const std::string& e : r.errors) GitError(e);
  *id = r.id;
  *found = r.found;
  return Status::Ok();
}

}  // namespace reftab::cli

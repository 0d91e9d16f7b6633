#include "cli/revision_arg.h"

#include "cli/object_name_report.h"
#include "store/git/refs/object_name.h"

namespace reftab::cli {

Status ResolveRevisionArg(Store& store, const std::string& s, ObjectId* id, bool* found) {
  *found = false;
  if (s.empty()) return Status::Ok();
  if (ParseFullObjectId(store, s, id)) {  // the answer below, without its result to fill
    *found = true;
    return Status::Ok();
  }
  ObjectNameResult r;
  RevisionOptions options;
  options.skip_full_id_check = true;  // git's GET_OID_SKIP_AMBIGUITY_CHECK
  REFTAB_RETURN_IF_ERROR(ResolveRevision(store, s, &r, options));
  ReportObjectName(r);
  // Where git dies reading the name, its fatal line is the caller's (quiet is never asked).
  if (r.dies) return Status::InvalidArgument(r.fatal);
  *id = r.id;
  *found = r.found;
  return Status::Ok();
}

}  // namespace reftab::cli

#include "store/git/refs/reflog_at.h"

#include "store/git/date_format.h"
#include "store/git/refs/reflog.h"

namespace reftab {
namespace {

std::string Rfc2822(uint64_t time, int tz) {
  DateMode rfc;
  rfc.style = DateStyle::kRfc;
  return ShowDate(int64_t(time), tz, rfc);
}

}  // namespace

Status ReadRefAt(GitRefStore& store, std::string_view refname, uint64_t at_time, int count,
                 const ObjectId& current, RefAtResult* out) {
  *out = RefAtResult();
  out->id = current;
  std::vector<LogRecord> entries;
  REFTAB_RETURN_IF_ERROR(ReadReflog(store, refname, &entries));
  const ObjectId zero{};
  const std::string name(refname);
  // Newest first, remembering the previous (newer) entry's old value: the entry asked for
  // is the first one at or before the time, or the one `count` entries back.
  ObjectId newer_old{};
  int seen = 0;
  for (const LogRecord& e : entries) {
    if (e.time <= at_time || count == 0) {
      out->cutoff_time = e.time;
      out->cutoff_tz = e.tz_offset;
      out->cutoff_count = seen;
      if (newer_old != zero) {
        out->id = e.new_id;
        if (newer_old != e.new_id) {
          out->warnings.push_back("log for ref " + name + " has gap after " +
                                  Rfc2822(e.time, e.tz_offset));
        }
      } else if (e.time == at_time) {
        out->id = e.new_id;
      } else if (e.new_id != out->id) {
        out->warnings.push_back("log for ref " + name + " unexpectedly ended on " +
                                Rfc2822(e.time, e.tz_offset));
      }
      out->found = true;
      return Status::Ok();
    }
    ++seen;
    newer_old = e.old_id;
    if (count > 0) --count;
  }
  if (entries.empty()) {
    out->empty = count != 0;
    return Status::Ok();
  }
  // Not reached: the oldest entry's old value stands for the ref before the log began.
  const LogRecord& oldest = entries.back();
  out->cutoff_time = oldest.time;
  out->cutoff_tz = oldest.tz_offset;
  out->cutoff_count = seen;
  out->id = oldest.old_id;
  if (at_time != 0 && out->id == zero) out->id = oldest.new_id;
  return Status::Ok();
}

}  // namespace reftab

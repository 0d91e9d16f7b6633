// Internal: the reflog record of one update, built in one place for the stack's transactions
// (store/stack.cc) and the git layer's reflog writers (store/git/refs/ref_transaction.cc,
// store/git/refs/reflog.cc).
#ifndef REFTAB_STORE_LOG_ENTRY_H_
#define REFTAB_STORE_LOG_ENTRY_H_

#include <string>
#include <utility>

#include "format/record.h"
#include "store/transaction.h"

namespace reftab {

// An update entry (LogValueType::kUpdate) of `refname` from `old_id` to `new_id`, by `who`
// (name, email, time, zone) with `message`; the update index is left to the caller.
inline LogRecord UpdateLogEntry(std::string refname, const ObjectId& old_id, const ObjectId& new_id,
                                const LogInfo& who, std::string message) {
  LogRecord l;
  l.refname = std::move(refname);
  l.value_type = LogValueType::kUpdate;
  l.old_id = old_id;
  l.new_id = new_id;
  l.name = who.name;
  l.email = who.email;
  l.time = who.time;
  l.tz_offset = who.tz_offset;
  l.message = std::move(message);
  return l;
}

}  // namespace reftab

#endif  // REFTAB_STORE_LOG_ENTRY_H_

// Internal, not installed: the records a transaction writes, as the stack's commit
// (store/stack.cc) collects them and its table writers (stack.cc, and the commit that
// compacts as it writes, store/compaction.cc) take them.
#ifndef REFTAB_STORE_NEW_RECORDS_H_
#define REFTAB_STORE_NEW_RECORDS_H_

#include <cstdint>
#include <vector>

#include "format/record.h"
#include "store/stack.h"

namespace reftab {

// The records a transaction writes, in table order. A ref is written from its update, whose
// type CollectItem left as the one to write (kDeletion: a tombstone), under the update index
// `update_index`: a record per update held besides the updates themselves was a sixth of
// the memory of a million creates.
struct Stack::NewRecords {
  const Transaction* tx = nullptr;  // the refs' transaction
  std::vector<Transaction::Item*> refs;
  uint64_t update_index = 0;
  std::vector<LogRecord> logs;
  bool empty() const { return refs.empty() && logs.empty(); }
};

}  // namespace reftab

#endif  // REFTAB_STORE_NEW_RECORDS_H_

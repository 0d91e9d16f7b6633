// Public API: iteration over several tables of a stack as one sorted sequence.
//
// Tables are given oldest to newest. For equal keys the newest table wins and the older
// records are skipped; only the record returned is decoded, so shadowed records cost a key
// comparison and no more. Next() fills a caller-provided record, reusing its buffers, so a
// scan allocates nothing per record. Errors (corrupt blocks) are sticky: Next() returns
// false and status() names the file and the offset.
//
// The merge itself lives in the library (one call per record returned); a moved-from
// iterator may only be destroyed or assigned to.
#ifndef REFTAB_STORE_MERGED_ITERATOR_H_
#define REFTAB_STORE_MERGED_ITERATOR_H_

#include <memory>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"

namespace reftab {

class MergeOrderMemo;  // store/merge_order.h: not installed, not exported

REFTAB_PUBLIC_BEGIN

class Snapshot;
class TableReader;

// The ref records of the tables, in name order.
class MergedRefIterator {
 public:
  // `tables` oldest first; they must outlive the iterator.
  explicit MergedRefIterator(const std::vector<const TableReader*>& tables);
  ~MergedRefIterator();
  MergedRefIterator(MergedRefIterator&&) noexcept;
  MergedRefIterator& operator=(MergedRefIterator&&) noexcept;

  // Drop deletion records (tombstones) instead of returning them.
  void set_suppress_deletions(bool v);
  Status SeekToFirst();
  // Positions before the first ref whose name is >= `name`.
  Status Seek(std::string_view name);
  // Positions before the first ref whose name starts with `prefix`; Next() then returns
  // false after the last one. Cheaper than Seek and a comparison per ref: each table finds
  // where its names leave the prefix once, with a lookup, and stops there.
  Status SeekPrefix(std::string_view prefix);
  // Fills `*out` with the next record; false at the end or on error (see status()).
  bool Next(RefRecord* out);
  const Status& status() const;

 private:
  friend class Snapshot;  // whose iterators keep its whole scans' order
  MergedRefIterator(const std::vector<const TableReader*>& tables, MergeOrderMemo* order);

  struct Impl;  // store/merged_iterator.cc
  std::unique_ptr<Impl> impl_;
};

// The log records of the tables: by name, newest update index first.
class MergedLogIterator {
 public:
  explicit MergedLogIterator(const std::vector<const TableReader*>& tables);
  ~MergedLogIterator();
  MergedLogIterator(MergedLogIterator&&) noexcept;
  MergedLogIterator& operator=(MergedLogIterator&&) noexcept;

  void set_suppress_deletions(bool v);
  Status SeekToFirst();
  // Positions at the newest entry of `refname` (or the first entry after it).
  Status Seek(std::string_view refname);
  bool Next(LogRecord* out);
  const Status& status() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_MERGED_ITERATOR_H_

// Public API: a stack of reftables in one directory, as git keeps them in .git/reftable/.
//
// `tables.list` names the tables oldest first, one per line, each ending in a newline; an
// empty or missing list is an empty stack. Readers work on a Snapshot: an immutable,
// reference-counted set of open tables that stays valid (the files are mapped) while
// writers and compactions replace files underneath. Reload() builds a new snapshot, reusing
// tables that are already open.
#ifndef REFTAB_STORE_STACK_H_
#define REFTAB_STORE_STACK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/file.h"
#include "store/merged_iterator.h"
#include "store/table_reader.h"

namespace reftab {

struct StackOptions {
  FileSystem* fs = nullptr;  // nullptr: the operating system's
  // The stack's object format. Unset: taken from the first table (SHA-1 if there is none).
  // Every table must use it.
  std::optional<HashId> hash_id;
};

class Snapshot {
 public:
  Snapshot(std::vector<std::shared_ptr<const TableReader>> tables, HashId hash_id);

  // Oldest first.
  const std::vector<std::shared_ptr<const TableReader>>& tables() const { return tables_; }
  HashId hash_id() const { return hash_id_; }
  size_t hash_size() const { return HashSize(hash_id_); }
  // Highest max_update_index of any table (0 for an empty stack).
  uint64_t max_update_index() const;

  // Exact lookup, the fast path: tables newest first, stopping at the first table that has
  // the name. A tombstone there means "not found". No merged iterator is built.
  Status ReadRef(std::string_view name, RefRecord* ref, bool* found) const;

  // Merged iterators over all tables (tombstones returned unless suppressed).
  MergedRefIterator NewRefIterator() const;
  MergedLogIterator NewLogIterator() const;

 private:
  std::vector<std::shared_ptr<const TableReader>> tables_;
  std::vector<const TableReader*> raw_;
  HashId hash_id_;
};

class Stack {
 public:
  // Opens the stack in `dir` and loads a first snapshot.
  static Result<std::unique_ptr<Stack>> Open(const std::string& dir, const StackOptions& options);

  const std::string& dir() const { return dir_; }
  // The current snapshot; cheap (a shared_ptr copy).
  std::shared_ptr<const Snapshot> snapshot() const { return snapshot_; }
  // Re-reads tables.list and installs a new snapshot. A listed table that is missing makes
  // it re-read the list (a compaction may have replaced it) with backoff, up to a deadline;
  // then it fails with kNotFound naming the table.
  Status Reload();
  // Table names of the current snapshot, oldest first.
  const std::vector<std::string>& names() const { return names_; }

 private:
  Stack(std::string dir, const StackOptions& options);
  Status ReadList(std::vector<std::string>* names);
  Status TryLoad(const std::vector<std::string>& names);

  std::string dir_;
  StackOptions options_;
  FileSystem* fs_;
  std::vector<std::string> names_;
  std::shared_ptr<const Snapshot> snapshot_;
};

// Parses the contents of a tables.list file. Fails on a missing final newline (as git
// >= 2.52 does) and on names that are not plain file names.
Status ParseTablesList(std::string_view contents, std::vector<std::string>* names);

}  // namespace reftab

#endif  // REFTAB_STORE_STACK_H_

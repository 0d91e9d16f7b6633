// Helpers for tests of the ref store: temporary directories, directory listings and copies,
// deterministic object ids, and text renderings of a stack's merged view for comparisons.
#ifndef REFTAB_TESTS_TESTUTIL_STORE_UTIL_H_
#define REFTAB_TESTS_TESTUTIL_STORE_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/record.h"
#include "store/stack.h"
#include "store/table_reader.h"

namespace reftab::testutil {

// The parts joined (g++ 12 warns, wrongly, of overlapping copies in "literal" + std::string).
std::string Cat(std::initializer_list<std::string_view> parts);

// Expects the key/value store's log at `path` to hold its header and no record.
void ExpectFreshKvLog(const std::string& path);

// A fresh directory under /tmp (mkdtemp), removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "store");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // path() + "/" + name, after creating that subdirectory.
  std::string Subdir(const std::string& name) const;

 private:
  std::string path_;
};

// Names in `dir` (no "." or ".."), sorted.
std::vector<std::string> ListDirSorted(const std::string& dir);
// The file's bytes, or `fallback` if it cannot be read.
std::string ReadFileOr(const std::string& path, const std::string& fallback = "");
void WriteFileOrDie(const std::string& path, const std::string& contents);
// Copies the contents of `from` into `to` (created if needed), recursively; copies are made
// writable by their owner (the fixtures are read-only).
void CopyDirContents(const std::string& from, const std::string& to);
// Removes everything inside `dir`, keeping `dir`.
void ClearDir(const std::string& dir);

// A deterministic object id for `n` (distinct for distinct n; never all zeros).
ObjectId TestId(uint64_t n, size_t hash_size);

bool EndsWith(const std::string& s, const std::string& suffix);
bool StartsWith(const std::string& s, const std::string& prefix);

// One line per record of the merged view, refs then logs, in iteration order: every field,
// update indexes included. Tombstones only with `include_deletions`.
std::string DumpRefs(const Snapshot& snap, bool include_deletions);
// Every ref record of one table, tombstones included, by a full scan.
std::vector<RefRecord> ScanRefs(const TableReader& table);
std::string DumpLogs(const Snapshot& snap, bool include_deletions);
std::string DumpSnapshot(const Snapshot& snap, bool include_deletions);
std::string FormatRef(const RefRecord& r, size_t hash_size);
std::string FormatLog(const LogRecord& l, size_t hash_size);

// What a stack directory looks like from outside, read through a fresh Stack object.
struct StackState {
  bool open_ok = false;
  std::string open_error;
  std::string list;                                   // tables.list bytes ("" if missing)
  std::vector<std::string> names;                     // listed tables
  std::vector<std::string> files;                     // the directory listing, sorted
  std::string merged;                                 // DumpSnapshot(include_deletions = true)
  std::string live;                                   // DumpSnapshot(include_deletions = false)
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // update index range of each table
};
StackState CaptureStack(const std::string& dir, const StackOptions& options = {});
// Files in the listing that are neither tables.list nor a listed table.
std::vector<std::string> StrayFiles(const StackState& s);

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_STORE_UTIL_H_

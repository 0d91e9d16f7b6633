// Shared helpers of the golden tests: where the fixture tables are, how they were written,
// and our reader's output in the text formats git's test helper prints.
#ifndef REFTAB_TESTS_TESTUTIL_GOLDEN_UTIL_H_
#define REFTAB_TESTS_TESTUTIL_GOLDEN_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "store/stack.h"
#include "store/table_reader.h"
#include "store/table_writer.h"
#include "tests/testutil/store_util.h"

namespace reftab::golden {

// One table file of a fixture, with what git printed for it.
struct FixtureTable {
  std::string name;             // unique and usable as a gtest parameter name
  std::string path;             // the .ref file
  std::string expected_dump;    // `dump-reftable -t` output (.table.txt[.gz] / .git-dump.txt)
  std::string expected_blocks;  // `dump-reftable -b` output, or "" if none was recorded
  std::string meta;             // expected/meta.txt of a git fixture, or "" for JGit tables
  bool written_by_git = false;
};

// Every git fixture table that has an expected dump, then every JGit table. Empty when the
// fixtures directory does not exist.
std::vector<FixtureTable> AllFixtureTables();

// AllFixtureTables() (only git's with `git_only`), or one placeholder with an empty path
// (tests skip it) so that the parameterized suites stay instantiated without fixtures.
std::vector<FixtureTable> FixtureTablesOrPlaceholder(bool git_only = false);

// Fixture folders (holding reftable/ and expected/stack.dump.txt[.gz]) with their stack dump.
struct FixtureStack {
  std::string name;
  std::string reftable_dir;
  std::string expected_dump;  // path
};
std::vector<FixtureStack> AllFixtureStacks();

// "" if equal; otherwise the offset of the first difference and the text around it in both
// (EXPECT_EQ on multi-megabyte dumps would print them whole).
std::string DescribeDifference(const std::string& ours, const std::string& theirs);

// The path of `base` or `base.gz`, whichever exists, or "" if neither does.
std::string WithOptionalGz(const std::string& base);

// Opens a table file; fails the test (and returns null) if that is not possible.
std::unique_ptr<TableReader> OpenTableOrFail(const std::string& path);

// `test-tool dump-reftable -t`: every ref record, then every log record.
std::string DumpTableGit(const TableReader& table);
// `test-tool dump-reftable -b`.
std::string DumpBlocksGit(const TableReader& table);
// `test-tool dump-reftable -s`: the merged view of a stack, tombstones included.
std::string DumpStackGit(const Snapshot& snapshot);

// The options git wrote a fixture table with: block size, hash and limits from its header,
// restart interval and obj index from the fixture's meta.txt config section.
WriteOptions GitWriteOptions(const TableReader& table, const std::string& meta);

// Writes every record of `table` again with `opts` and the table's update index limits.
std::string RewriteTable(const TableReader& table, const WriteOptions& opts);

// Every ref of a table, by a full scan (tests/testutil/store_util.h).
using testutil::ScanRefs;

// Makes `s` usable as (part of) a gtest parameter name.
std::string GtestName(const std::string& s);

}  // namespace reftab::golden

#endif  // REFTAB_TESTS_TESTUTIL_GOLDEN_UTIL_H_

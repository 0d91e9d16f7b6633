// Stack behaviour that needs real files but no randomness: tables.list parsing, update index
// rules, transactions' all-or-nothing checks, compaction (tombstones, expiry, empty results),
// reloading (missing tables, the up-to-date check, reuse of open tables, snapshots that
// outlive compactions), locking (timeouts, locked tables, Clean), durability (fsync counts
// through the FileSystem seam), and races made deterministic with the seam's hook.
#include "store/stack.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "store/table_reader.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::Del;
using storetest::IdValue;
using storetest::LiveRefs;
using storetest::OpenOrDie;
using storetest::Put;
using storetest::TestLog;
using storetest::TestOptions;
using testutil::CaptureStack;
using testutil::EndsWith;
using testutil::FaultInjectingFileSystem;
using testutil::FsOp;
using testutil::ListDirSorted;
using testutil::ReadFileOr;
using testutil::StackState;
using testutil::TempDir;
using testutil::WriteFileOrDie;

std::vector<std::pair<uint64_t, uint64_t>> Ranges(const Stack& s) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& t : s.snapshot()->tables())
    out.emplace_back(t->min_update_index(), t->max_update_index());
  return out;
}

using R = std::vector<std::pair<uint64_t, uint64_t>>;

// Records of one table file, tombstones included.
std::vector<RefRecord> TableRefs(const std::string& path) {
  auto file = PosixFileSystem()->OpenRead(path);
  EXPECT_TRUE(file.ok());
  if (!file.ok()) return {};
  auto t = TableReader::Open(std::move(*file));
  EXPECT_TRUE(t.ok());
  if (!t.ok()) return {};
  return testutil::ScanRefs(**t);
}

void ExpectSameState(const StackState& a, const StackState& b) {
  EXPECT_EQ(a.list, b.list);
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(a.merged, b.merged);
}

// ------------------------------------------------------------------ tables.list

TEST(TablesListTest, ParsesNamesAndRejectsBadLists) {
  std::vector<std::string> names;
  ASSERT_TRUE(ParseTablesList("", &names).ok());
  EXPECT_TRUE(names.empty());
  ASSERT_TRUE(ParseTablesList("a.ref\nb.ref\n", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a.ref", "b.ref"}));
  ASSERT_TRUE(ParseTablesList("a.ref\n\nb.ref\n", &names).ok()) << "empty lines are ignored";
  EXPECT_EQ(names, (std::vector<std::string>{"a.ref", "b.ref"}));
  EXPECT_EQ(ParseTablesList("a.ref\nb.ref", &names).code(), Code::kCorruption);
  EXPECT_EQ(ParseTablesList("../x.ref\n", &names).code(), Code::kCorruption);
  EXPECT_EQ(ParseTablesList("..\n", &names).code(), Code::kCorruption);
}

// A list with CRLF line ends (edited on Windows, or by a tool that converts): the error names
// the line and shows the carriage return, which would otherwise be invisible in a terminal.
TEST(TablesListTest, CrlfListNamesTheEscapedNameAndTheLineEnding) {
  std::vector<std::string> names;
  Status s = ParseTablesList("a.ref\r\nb.ref\r\n", &names);
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("line 1: bad table name 'a.ref\\r'"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("CRLF"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\r'), std::string::npos) << "no raw carriage return";
  // Other control bytes are escaped too, and the line is the right one.
  s = ParseTablesList("a.ref\nb\x01\x7f\xff.ref\n", &names);
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("line 2: bad table name 'b\\x01\\x7f\\xff.ref'"), std::string::npos)
      << s.message();
  EXPECT_EQ(s.message().find("CRLF"), std::string::npos) << s.message();
}

TEST(StackTest, CrlfTablesListFailsToOpenSayingSo) {
  TempDir tmp;
  {
    auto w = OpenOrDie(tmp.path(), TestOptions());
    ASSERT_TRUE(Put(*w, "refs/heads/main", 1).ok());
  }
  std::string list = ReadFileOr(tmp.path() + "/tables.list");
  WriteFileOrDie(tmp.path() + "/tables.list", list.substr(0, list.size() - 1) + "\r\n");
  auto r = Stack::Open(tmp.path(), TestOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().ToString().find(".ref\\r' (the line ends in CRLF"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().ToString().find(tmp.path()), std::string::npos) << "names the stack";
}

TEST(StackTest, MissingOrEmptyTablesListIsAnEmptyStack) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->names().empty());
  EXPECT_EQ(s->snapshot()->max_update_index(), 0u);
  EXPECT_TRUE(s->IsUpToDate());
  WriteFileOrDie(tmp.path() + "/tables.list", "");
  auto s2 = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(s2);
  EXPECT_TRUE(s2->names().empty());
  EXPECT_FALSE(s->IsUpToDate()) << "the list appeared";
}

// A mistyped directory is an error naming it, not an empty stack; only a caller that says a
// missing directory reads as empty gets one (and cannot commit into it).
TEST(StackTest, MissingDirectoryFailsToOpenNamingIt) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/no/such/stack";
  auto s = Stack::Open(dir, TestOptions());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kNotFound);
  EXPECT_EQ(s.status().message(), dir + ": no such directory");
  StackOptions lenient = TestOptions();
  lenient.missing_dir_is_empty = true;
  auto empty = Stack::Open(dir, lenient);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE((*empty)->names().empty());
  Transaction tx = (*empty)->NewTransaction();
  tx.Update("refs/heads/x", storetest::IdValue(1));
  EXPECT_FALSE(tx.Commit().ok());
  EXPECT_FALSE(testutil::FileExists(dir)) << "opening or failing to commit made nothing";
}

TEST(StackTest, TablesListWithoutFinalNewlineFailsToOpen) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  std::string list = ReadFileOr(tmp.path() + "/tables.list");
  ASSERT_TRUE(EndsWith(list, "\n"));
  WriteFileOrDie(tmp.path() + "/tables.list", list.substr(0, list.size() - 1));
  auto r = Stack::Open(tmp.path(), TestOptions());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
}

// ------------------------------------------------------------------ update indexes

TEST(StackTest, EachTransactionTakesMaxPlusOneAndCompactionKeepsTheRange) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(s);
  for (uint64_t i = 1; i <= 4; ++i) {
    Transaction tx = s->NewTransaction();
    tx.Update("refs/heads/b" + std::to_string(i), IdValue(i));
    ASSERT_TRUE(tx.Commit().ok());
    EXPECT_EQ(tx.committed_update_index(), i);
  }
  EXPECT_EQ(Ranges(*s), (R{{1, 1}, {2, 2}, {3, 3}, {4, 4}}));
  // git's names: 0x<min>-0x<max>-<8 hex>.ref, listed one per line with a final newline.
  std::string list;
  for (size_t i = 0; i < s->names().size(); ++i) {
    uint64_t min = 0, max = 0;
    ASSERT_TRUE(storetest::ParseTableName(s->names()[i], &min, &max)) << s->names()[i];
    EXPECT_EQ(min, Ranges(*s)[i].first);
    EXPECT_EQ(max, Ranges(*s)[i].second);
    list += s->names()[i] + "\n";
  }
  EXPECT_EQ(ReadFileOr(tmp.path() + "/tables.list"), list);

  ASSERT_TRUE(s->CompactRange(1, 2).ok());
  EXPECT_EQ(Ranges(*s), (R{{1, 1}, {2, 3}, {4, 4}}));
  Transaction tx = s->NewTransaction();
  tx.Update("refs/heads/x", IdValue(9));
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.committed_update_index(), 5u);
  ASSERT_TRUE(s->CompactAll().ok());
  EXPECT_EQ(Ranges(*s), (R{{1, 5}}));
  ASSERT_TRUE(Put(*s, "refs/heads/y", 10).ok());
  EXPECT_EQ(Ranges(*s), (R{{1, 5}, {6, 6}}));
  EXPECT_EQ(ListDirSorted(tmp.path()).size(), 3u) << "compacted tables are deleted";
}

TEST(StackTest, VerifyNoneBelowSeesLiveKeysOnly) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "a/b", 1).ok());
  ASSERT_TRUE(Put(*s, "c/d", 2).ok());
  ASSERT_TRUE(Del(*s, "c/d").ok());
  std::string list = ReadFileOr(tmp.path() + "/tables.list");
  {
    Transaction tx = s->NewTransaction();
    tx.Update("a", IdValue(3));
    tx.VerifyNoneBelow("a/", "a");
    Status st = tx.Commit();
    EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
    EXPECT_EQ(st.message(), "'a/b' exists; cannot create 'a'");
    EXPECT_EQ(ReadFileOr(tmp.path() + "/tables.list"), list) << "nothing written";
  }
  Transaction tx = s->NewTransaction();
  tx.Update("c", IdValue(4));
  tx.VerifyNoneBelow("c/", "c");    // only a tombstone below
  tx.VerifyNoneBelow("ab/", "ab");  // "a/b" sorts before, "ab" is no prefix of it
  EXPECT_TRUE(tx.Commit().ok());
}

// The checks share one iterator in prefix order (stack.cc, CheckNoneBelowAll): prefixes
// given out of order, live refs between them, and a conflict reported as the transaction's
// order meets it first.
TEST(StackTest, ManyVerifyNoneBelowChecksInAnyOrder) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/a/x/1", 1).ok());
  ASSERT_TRUE(Put(*s, "refs/c/y", 2).ok());
  ASSERT_TRUE(Put(*s, "refs/e", 3).ok());
  {
    Transaction tx = s->NewTransaction();
    tx.Update("refs/new", IdValue(4));
    for (const char* p : {"refs/d/", "refs/a/x/2/", "refs/c/", "refs/b/", "refs/a/"}) {
      tx.VerifyNoneBelow(p, std::string(p, std::strlen(p) - 1));
    }
    Status st = tx.Commit();
    EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
    EXPECT_EQ(st.message(), "'refs/c/y' exists; cannot create 'refs/c'");
  }
  Transaction tx = s->NewTransaction();
  tx.Update("refs/new", IdValue(4));
  for (const char* p :
       {"refs/f/", "refs/d/", "refs/a/x/2/", "refs/b/", "refs/a/y/", "refs/c/z/", "refs/e/"}) {
    tx.VerifyNoneBelow(p, std::string(p, std::strlen(p) - 1));
  }
  EXPECT_TRUE(tx.Commit().ok());
}

// The same checks among deleted names: a run of tombstones under a prefix hides nothing,
// a live ref after such a run under the same prefix is found, and the walks end where
// their prefixes do (the prefixes here nest and interleave with the runs).
TEST(StackTest, VerifyNoneBelowSeesThroughRunsOfDeletedNames) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  {
    Transaction tx = s->NewTransaction();
    for (int i = 0; i < 500; ++i) {
      tx.Update("refs/a/" + std::to_string(1000 + i), IdValue(uint64_t(i + 1)));
      tx.Update("refs/c/" + std::to_string(1000 + i), IdValue(uint64_t(i + 1)));
    }
    tx.Update("refs/c/zz", IdValue(7));
    ASSERT_TRUE(tx.Commit().ok());
  }
  {
    Transaction tx = s->NewTransaction();
    for (int i = 0; i < 500; ++i) {
      tx.Delete("refs/a/" + std::to_string(1000 + i));
      tx.Delete("refs/c/" + std::to_string(1000 + i));
    }
    ASSERT_TRUE(tx.Commit().ok());
  }
  {
    Transaction tx = s->NewTransaction();
    tx.Update("refs/new", IdValue(4));
    for (const char* p : {"refs/0/", "refs/a/", "refs/a/1200/", "refs/b/", "refs/c/1499/"}) {
      tx.VerifyNoneBelow(p, std::string(p, std::strlen(p) - 1));
    }
    Status st = tx.Commit();
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  Transaction tx = s->NewTransaction();
  tx.Update("refs/new2", IdValue(5));
  for (const char* p : {"refs/a/", "refs/c/1000/", "refs/c/"}) {
    tx.VerifyNoneBelow(p, std::string(p, std::strlen(p) - 1));
  }
  Status st = tx.Commit();
  EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
  EXPECT_EQ(st.message(), "'refs/c/zz' exists; cannot create 'refs/c'");
}

// VerifyNoneBelowLast checks below an update's own name. The updates go in name order,
// where a name extended by a byte below '/' ("v1-rc" after "v1") puts its prefix before the
// last one: a live ref between the two ("v1-rc/x") must still be found, and checks of
// several updates in mostly sorted order, a few out of it, find what lies below each.
TEST(StackTest, VerifyNoneBelowLastAcrossPrefixesOutOfOrder) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/tags/v1-rc/x", 1).ok());
  ASSERT_TRUE(Put(*s, "refs/tags/v2/y", 2).ok());
  std::string list = ReadFileOr(tmp.path() + "/tables.list");
  {
    Transaction tx = s->NewTransaction();
    for (const char* name : {"refs/tags/v1", "refs/tags/v1-rc"}) {
      tx.Update(name, IdValue(3));
      tx.VerifyNoneBelowLast();
    }
    Status st = tx.Commit();
    EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
    EXPECT_EQ(st.message(), "'refs/tags/v1-rc/x' exists; cannot create 'refs/tags/v1-rc'");
    EXPECT_EQ(ReadFileOr(tmp.path() + "/tables.list"), list) << "nothing written";
  }
  {
    // Given out of name order, and the conflict reported in the transaction's order.
    Transaction tx = s->NewTransaction();
    for (const char* name : {"refs/tags/v3", "refs/tags/v2", "refs/tags/v1", "refs/tags/v1-rc"}) {
      tx.Update(name, IdValue(3));
      tx.VerifyNoneBelowLast();
    }
    Status st = tx.Commit();
    EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
    EXPECT_EQ(st.message(), "'refs/tags/v2/y' exists; cannot create 'refs/tags/v2'");
  }
  Transaction tx = s->NewTransaction();
  for (int i = 0; i < 100; ++i) {
    tx.Update("refs/tags/w" + std::to_string(i), IdValue(4));
    tx.VerifyNoneBelowLast();
  }
  tx.Update("refs/tags/v1", IdValue(4));
  tx.VerifyNoneBelowLast();
  tx.Update("refs/tags/v1-rc/z", IdValue(4));  // beside the live ref, not below a new name
  EXPECT_TRUE(tx.Commit().ok());
}

TEST(StackTest, TransactionThatChangesNothingWritesNoTable) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  std::string list = ReadFileOr(tmp.path() + "/tables.list");
  {
    Transaction tx = s->NewTransaction();
    tx.Update("refs/heads/main", IdValue(1), IdValue(1), TestLog(5, "same value"));
    tx.Verify("refs/heads/none", RefValue::Absent());
    tx.Delete("refs/heads/none2");
    Status st = tx.Commit();
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(tx.committed_update_index(), 0u);
  }
  {
    Transaction tx = s->NewTransaction();
    ASSERT_TRUE(tx.Commit().ok()) << "an empty transaction";
    EXPECT_EQ(tx.committed_update_index(), 0u);
  }
  EXPECT_EQ(ReadFileOr(tmp.path() + "/tables.list"), list);
  EXPECT_EQ(ListDirSorted(tmp.path()).size(), 2u);
}

TEST(StackTest, BlindWritesAreWrittenAsGivenWhileExpectationsAreStillChecked) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  {
    Transaction tx = s->NewTransaction();
    tx.set_blind_writes(true);
    tx.Update("refs/heads/main", IdValue(1));  // unchanged, written all the same
    tx.Delete("refs/heads/none");              // missing: a tombstone all the same
    ASSERT_TRUE(tx.Commit().ok());
    EXPECT_EQ(tx.committed_update_index(), 2u);
  }
  std::string dump = testutil::DumpRefs(*s->snapshot(), /*include_deletions=*/true);
  EXPECT_NE(dump.find("refs/heads/none"), std::string::npos) << dump;
  EXPECT_EQ(LiveRefs(*s).find("refs/heads/none"), std::string::npos);
  {
    Transaction tx = s->NewTransaction();
    tx.set_blind_writes(true);
    tx.Update("refs/heads/main", IdValue(3), IdValue(2));  // an expectation is read and fails
    EXPECT_EQ(tx.Commit().code(), Code::kConflict);
  }
  EXPECT_EQ(s->snapshot()->max_update_index(), 2u);
}

// A record for Stack::AddTable: a symref to `target`, or a tombstone if it is null.
RefRecord KvRecord(std::string name, const char* target, uint64_t update_index) {
  RefRecord r;
  r.refname = std::move(name);
  r.update_index = update_index;
  r.value_type = target ? RefValueType::kSymref : RefValueType::kDeletion;
  if (target) r.target = target;
  return r;
}

TEST(StackTest, AddTableWritesWhatItsCallbackAddsAtTheNextUpdateIndex) {
  TempDir tmp;
  StackOptions o = TestOptions();
  o.fit_block_size = true;
  o.write_options.block_size = 256;
  auto s = OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  const std::string big(3000, 'v');  // beyond the block size: fit_block_size raises it
  uint64_t added = 99;
  Status st = s->AddTable(
      16 + big.size(),
      [&](TableWriter& w, uint64_t update_index) -> Status {
        EXPECT_EQ(update_index, 2u);
        REFTAB_RETURN_IF_ERROR(w.AddRef(KvRecord("refs/heads/main", nullptr, update_index)));
        return w.AddRef(KvRecord("refs/kv/a", big.c_str(), update_index));
      },
      &added);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(added, 2u);
  EXPECT_EQ(Ranges(*s), (R{{1, 1}, {2, 2}}));
  RefRecord got;
  bool found = false;
  ASSERT_TRUE(s->snapshot()->ReadRef("refs/kv/a", &got, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(got.target, big);
  ASSERT_TRUE(s->snapshot()->ReadRef("refs/heads/main", &got, &found).ok());
  EXPECT_FALSE(found);
  // Reopened from the files: the same.
  auto again = OpenOrDie(tmp.path(), o);
  EXPECT_EQ(Ranges(*again), (R{{1, 1}, {2, 2}}));
}

// Records of one large size (100 KiB values): the block grows past the first power of two
// that holds one (128 KiB, 28 KiB of padding each) until the padding is at most 1/16 of it.
TEST(StackTest, FittedBlocksOfRecordsOfOneLargeSizeWasteLittlePadding) {
  TempDir tmp;
  StackOptions o = TestOptions();
  o.fit_block_size = true;
  auto s = OpenOrDie(tmp.path(), o);
  const std::string value(100 << 10, 'v');
  Status st = s->AddTable(
      16 + value.size(),
      [&](TableWriter& w, uint64_t update_index) -> Status {
        for (int i = 0; i < 40; ++i) {
          char name[32];
          std::snprintf(name, sizeof name, "refs/kv/%06d", i);
          REFTAB_RETURN_IF_ERROR(w.AddRef(KvRecord(name, value.c_str(), update_index)));
        }
        return Status::Ok();
      },
      nullptr);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto& table = s->snapshot()->tables().back();
  EXPECT_EQ(table->header().block_size, 512u << 10);  // five records a block
  EXPECT_LT(double(table->file_size()), 40 * double(value.size()) * 1.07);
}

// A stack handle builds the blocks of the tables it writes in one buffer, kept from one
// table to the next (up to TableScratch::kMaxKeptBytes; a larger one is dropped). Tables
// of small records, of 100 KiB values (512 KiB blocks), of one 5 MiB value (8 MiB blocks,
// its buffer not kept), then small and large again: each must be, byte for byte, the
// table a fresh handle writes.
TEST(StackTest, TablesWrittenOneAfterAnotherAreTheBytesAFreshHandleWrites) {
  StackOptions o = TestOptions();
  o.fit_block_size = true;
  const std::vector<std::pair<size_t, int>> tables = {
      // value size, records
      {10, 300}, {100 << 10, 12}, {5 << 20, 1}, {10, 300}, {100 << 10, 12}, {3000, 40}};
  auto write_all = [&](const std::string& dir, bool fresh_handles) {
    std::unique_ptr<Stack> s = OpenOrDie(dir, o);
    for (size_t t = 0; t < tables.size(); ++t) {
      if (fresh_handles) s = OpenOrDie(dir, o);
      const size_t size = tables[t].first;  // not a structured binding: clang 14 cannot
      const int count = tables[t].second;   // capture one in the lambda below
      std::string value(size, '\0');
      for (size_t i = 0; i < size; ++i) value[i] = char('a' + (i * 7 + t) % 26);
      Status st = s->AddTable(16 + size, [&](TableWriter& w, uint64_t update_index) -> Status {
        for (int i = 0; i < count; ++i) {
          char name[32];
          std::snprintf(name, sizeof name, "refs/kv/%02zu/%06d", t, i);
          REFTAB_RETURN_IF_ERROR(w.AddRef(KvRecord(name, value.c_str(), update_index)));
        }
        return Status::Ok();
      });
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    std::vector<std::string> bytes;
    for (const std::string& name : s->names()) bytes.push_back(ReadFileOr(dir + "/" + name));
    return bytes;
  };
  TempDir one, fresh;
  const std::vector<std::string> got = write_all(one.path(), false);
  const std::vector<std::string> want = write_all(fresh.path(), true);
  ASSERT_EQ(got.size(), tables.size());
  ASSERT_EQ(want.size(), tables.size());
  for (size_t t = 0; t < tables.size(); ++t) {
    EXPECT_TRUE(got[t] == want[t]) << "table " << t;
  }
}

TEST(StackTest, AddTableThatFailsOrComesOutEmptyChangesNothing) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  const std::string list = ReadFileOr(tmp.path() + "/tables.list");
  const auto files = ListDirSorted(tmp.path());
  uint64_t added = 99;
  // An error of the callback, after it added a record.
  Status st = s->AddTable(
      10,
      [](TableWriter& w, uint64_t update_index) -> Status {
        REFTAB_RETURN_IF_ERROR(w.AddRef(KvRecord("refs/kv/a", "x", update_index)));
        return Status::IoError("the producer failed");
      },
      &added);
  EXPECT_EQ(st.code(), Code::kIoError);
  EXPECT_EQ(added, 0u);
  // Records out of order: the writer's error.
  st = s->AddTable(10, [](TableWriter& w, uint64_t update_index) -> Status {
    REFTAB_RETURN_IF_ERROR(w.AddRef(KvRecord("refs/kv/b", "x", update_index)));
    return w.AddRef(KvRecord("refs/kv/a", "x", update_index));
  });
  EXPECT_FALSE(st.ok());
  // Nothing added: no table, and the lock is free for the next writer.
  st = s->AddTable(
      10, [](TableWriter&, uint64_t) { return Status::Ok(); }, &added);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(added, 0u);
  EXPECT_EQ(ReadFileOr(tmp.path() + "/tables.list"), list);
  EXPECT_EQ(ListDirSorted(tmp.path()), files);
  EXPECT_TRUE(Put(*s, "refs/heads/main", 2).ok());
}

TEST(StackTest, FailedExpectationReturnsConflictAndChangesNothing) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  StackState before = CaptureStack(tmp.path());
  struct Case {
    const char* what;
    std::function<void(Transaction&)> fill;
  };
  const std::vector<Case> cases = {
      {"update with wrong old",
       [](Transaction& tx) {
         tx.Update("refs/heads/a", IdValue(5));
         tx.Update("refs/heads/main", IdValue(2), IdValue(3));
       }},
      {"create that exists",
       [](Transaction& tx) { tx.Update("refs/heads/main", IdValue(2), RefValue::Absent()); }},
      {"delete of missing with expected value",
       [](Transaction& tx) {
         tx.Update("refs/heads/a", IdValue(5));
         tx.Delete("refs/heads/missing", IdValue(1));
       }},
      {"verify fails",
       [](Transaction& tx) {
         tx.Update("refs/heads/z", IdValue(5));
         tx.Verify("refs/heads/main", RefValue::Absent());
       }},
      {"verify symref",
       [](Transaction& tx) {
         tx.Update("refs/heads/z", IdValue(5));
         tx.Verify("refs/heads/main", RefValue::Symref("refs/heads/other"));
       }},
  };
  for (const Case& c : cases) {
    Transaction tx = s->NewTransaction();
    c.fill(tx);
    Status st = tx.Commit();
    EXPECT_EQ(st.code(), Code::kConflict) << c.what << ": " << st.ToString();
    EXPECT_NE(st.message().find("cannot lock ref '"), std::string::npos) << st.message();
    StackState after = CaptureStack(tmp.path());
    ExpectSameState(before, after);
  }
  // A matching expectation commits.
  Transaction tx = s->NewTransaction();
  tx.Update("refs/heads/main", IdValue(2), IdValue(1));
  tx.Verify("refs/heads/none", RefValue::Absent());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.committed_update_index(), 2u);
}

TEST(StackTest, ExpectedPlainIdMatchesPeeledRef) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  {
    Transaction tx = s->NewTransaction();
    tx.Update("refs/tags/v1", RefValue::Peeled(testutil::TestId(1, 20), testutil::TestId(2, 20)));
    ASSERT_TRUE(tx.Commit().ok());
  }
  Transaction tx = s->NewTransaction();
  tx.Delete("refs/tags/v1", IdValue(1));
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(LiveRefs(*s), "");
}

TEST(StackTest, TwoUpdatesOfOneRefAreInvalidAndChangeNothing) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  StackState before = CaptureStack(tmp.path());
  Transaction tx = s->NewTransaction();
  tx.Update("refs/heads/main", IdValue(2));
  tx.Update("refs/heads/other", IdValue(3));
  tx.Delete("refs/heads/main");
  EXPECT_EQ(tx.Commit().code(), Code::kInvalidArgument);
  ExpectSameState(before, CaptureStack(tmp.path()));
  EXPECT_EQ(tx.Commit().code(), Code::kInvalidArgument) << "a transaction commits once";
}

TEST(StackTest, ReflogFollowsUpdatesAndDeletionRemovesIt) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  ASSERT_TRUE(Put(*s, "refs/heads/main", 2).ok());
  {
    Transaction tx = s->NewTransaction();
    tx.Update("HEAD", RefValue::Symref("refs/heads/main"), RefValue::Absent(),
              TestLog(7, "sym\n\n"));
    ASSERT_TRUE(tx.Commit().ok());
  }
  std::string logs = testutil::DumpLogs(*s->snapshot(), false);
  // The symref's entry logs the referent's id; messages get exactly one newline.
  EXPECT_EQ(logs,
            testutil::FormatLog(
                LogRecord{"HEAD", 3, LogValueType::kUpdate, ObjectId{}, testutil::TestId(2, 20),
                          "C O Mitter", "committer@example.com", 7, -800, "sym\n"},
                20) +
                "\n" +
                testutil::FormatLog(
                    LogRecord{"refs/heads/main", 2, LogValueType::kUpdate, testutil::TestId(1, 20),
                              testutil::TestId(2, 20), "C O Mitter", "committer@example.com",
                              1700000002, -800, "set refs/heads/main\n"},
                    20) +
                "\n" +
                testutil::FormatLog(
                    LogRecord{"refs/heads/main", 1, LogValueType::kUpdate, ObjectId{},
                              testutil::TestId(1, 20), "C O Mitter", "committer@example.com",
                              1700000001, -800, "set refs/heads/main\n"},
                    20) +
                "\n");
  ASSERT_TRUE(Del(*s, "refs/heads/main").ok());
  // One log tombstone per deleted entry, keyed by that entry's update index.
  std::string with_tombs = testutil::DumpLogs(*s->snapshot(), true);
  EXPECT_NE(with_tombs.find("log refs/heads/main @2 delete"), std::string::npos) << with_tombs;
  EXPECT_NE(with_tombs.find("log refs/heads/main @1 delete"), std::string::npos) << with_tombs;
  EXPECT_EQ(testutil::DumpLogs(*s->snapshot(), false).find("refs/heads/main"), std::string::npos);
}

// ------------------------------------------------------------------ compaction

TEST(StackTest, CompactRangeKeepsTombstonesUnlessItStartsAtTheBase) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/a", 1).ok());
  ASSERT_TRUE(Put(*s, "refs/heads/b", 2).ok());
  ASSERT_TRUE(Del(*s, "refs/heads/a").ok());
  ASSERT_TRUE(Put(*s, "refs/heads/c", 3).ok());
  std::string live = LiveRefs(*s);
  ASSERT_TRUE(s->CompactRange(1, 3).ok());
  ASSERT_EQ(s->names().size(), 2u);
  bool tomb = false;
  for (const RefRecord& r : TableRefs(tmp.path() + "/" + s->names()[1])) tomb |= r.is_deletion();
  EXPECT_TRUE(tomb) << "the tombstone still shadows refs/heads/a in the base table";
  EXPECT_EQ(LiveRefs(*s), live);
  ASSERT_TRUE(s->CompactRange(0, 1).ok());
  ASSERT_EQ(s->names().size(), 1u);
  for (const RefRecord& r : TableRefs(tmp.path() + "/" + s->names()[0]))
    EXPECT_FALSE(r.is_deletion());
  EXPECT_EQ(LiveRefs(*s), live);
  EXPECT_EQ(testutil::DumpLogs(*s->snapshot(), true).find("delete"), std::string::npos)
      << "log tombstones go at the base too";
}

TEST(StackTest, CompactionToNothingLeavesNoTableAndIndexesRestart) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/a", 1).ok());
  ASSERT_TRUE(Del(*s, "refs/heads/a").ok());
  ASSERT_TRUE(s->CompactAll().ok());
  EXPECT_TRUE(s->names().empty());
  EXPECT_EQ(ReadFileOr(tmp.path() + "/tables.list", "<missing>"), "");
  EXPECT_EQ(ListDirSorted(tmp.path()), (std::vector<std::string>{"tables.list"}));
  Transaction tx = s->NewTransaction();
  tx.Update("refs/heads/b", IdValue(2));
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.committed_update_index(), 1u) << "an empty stack starts again at 1 (git's rule)";
}

TEST(StackTest, ACancelledCompactionLeavesTheStackAsItWas) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(Put(*s, "refs/heads/x" + std::to_string(i), i).ok());
  const std::vector<std::string> names = s->names();
  ASSERT_GE(names.size(), 2u);
  const std::vector<std::string> files = ListDirSorted(tmp.path());
  const std::string live = LiveRefs(*s);
  std::atomic<bool> cancel = true;
  CompactionOptions options;
  options.cancel = &cancel;
  EXPECT_EQ(s->CompactAll(options).code(), Code::kOutdated);
  EXPECT_EQ(s->names(), names);
  EXPECT_EQ(ListDirSorted(tmp.path()), files) << "no temporary table or lock left";
  EXPECT_EQ(LiveRefs(*s), live);
  cancel = false;
  ASSERT_TRUE(s->CompactAll(options).ok());
  EXPECT_EQ(s->names().size(), 1u);
  EXPECT_EQ(LiveRefs(*s), live);
}

TEST(StackTest, CompactRangeRejectsBadRanges) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*s, "refs/heads/a", 1).ok());
  ASSERT_TRUE(Put(*s, "refs/heads/b", 2).ok());
  StackState before = CaptureStack(tmp.path());
  EXPECT_EQ(s->CompactRange(1, 0).code(), Code::kInvalidArgument);
  EXPECT_EQ(s->CompactRange(0, 2).code(), Code::kInvalidArgument);
  ExpectSameState(before, CaptureStack(tmp.path()));
  ASSERT_TRUE(s->CompactAll().ok());
  ASSERT_TRUE(s->CompactAll().ok()) << "compacting one table again is fine";
  EXPECT_EQ(LiveRefs(*s), before.merged.substr(0, before.merged.find("log ")));
}

TEST(StackTest, ReflogExpiryAppliesOnlyWhenCompactingToTheBase) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  for (uint64_t i = 1; i <= 6; ++i) {
    Transaction tx = s->NewTransaction();
    // Appended, not "m" + std::to_string(i): g++ 12 -O3 misreads that (-Wrestrict).
    std::string message = "m";
    message += std::to_string(i);
    tx.Update("refs/heads/main", IdValue(i), std::nullopt, TestLog(1000 * i, message));
    tx.Update("refs/heads/side", IdValue(100 + i), std::nullopt, TestLog(1000 * i, "s"));
    ASSERT_TRUE(tx.Commit().ok());
  }
  auto count_logs = [&](const std::string& ref) {
    size_t n = 0;
    MergedLogIterator it = s->snapshot()->NewLogIterator();
    it.set_suppress_deletions(true);
    EXPECT_TRUE(it.SeekToFirst().ok());
    LogRecord l;
    while (it.Next(&l)) n += l.refname == ref;
    return n;
  };
  CompactionOptions expire;
  expire.max_logs_per_ref = 2;
  ASSERT_TRUE(s->CompactRange(2, 5, expire).ok());
  EXPECT_EQ(count_logs("refs/heads/main"), 6u) << "not at the base: nothing expires";
  expire.max_logs_per_ref.reset();
  expire.expire_logs_before = 2500;  // drops the entries of times 1000 and 2000
  ASSERT_TRUE(s->CompactAll(expire).ok());
  EXPECT_EQ(count_logs("refs/heads/main"), 4u);
  expire.expire_logs_before.reset();
  expire.max_logs_per_ref = 1;
  ASSERT_TRUE(s->CompactAll(expire).ok());
  EXPECT_EQ(count_logs("refs/heads/main"), 1u);
  EXPECT_EQ(count_logs("refs/heads/side"), 1u);
  MergedLogIterator it = s->snapshot()->NewLogIterator();
  ASSERT_TRUE(it.Seek(std::string_view("refs/heads/main")).ok());
  LogRecord l;
  ASSERT_TRUE(it.Next(&l));
  EXPECT_EQ(l.update_index, 6u) << "the newest entry is kept";
  EXPECT_EQ(l.message, "m6\n");
  EXPECT_EQ(LiveRefs(*s).find("ref refs/heads/main @6"), 0u) << "refs are untouched";
}

TEST(StackTest, Sha256StacksWriteVersion2AndRejectOtherHashes) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions(HashId::kSha256));
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  EXPECT_EQ(s->hash_id(), HashId::kSha256);
  EXPECT_EQ(s->snapshot()->tables()[0]->header().version, 2);
  EXPECT_EQ(s->snapshot()->tables()[0]->hash_id(), HashId::kSha256);
  auto wrong = Stack::Open(tmp.path(), TestOptions(HashId::kSha1));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), Code::kCorruption);
  StackOptions unset = TestOptions();
  unset.hash_id.reset();
  auto taken = OpenOrDie(tmp.path(), unset);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->hash_id(), HashId::kSha256) << "taken from the first table";
}

// ------------------------------------------------------------------ reloading

TEST(StackTest, MissingTableFailsReloadWithNotFoundNamingIt) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  for (uint64_t i = 1; i <= 2; ++i)
    ASSERT_TRUE(Put(*s, "refs/heads/b" + std::to_string(i), i).ok());
  auto early = OpenOrDie(tmp.path(), TestOptions());  // has tables 1 and 2 open
  ASSERT_TRUE(Put(*s, "refs/heads/b3", 3).ok());
  std::string missing = s->names()[2];
  ASSERT_EQ(std::remove((tmp.path() + "/" + missing).c_str()), 0);
  Status st = early->Reload();
  EXPECT_EQ(st.code(), Code::kNotFound) << st.ToString();
  EXPECT_NE(st.message().find(missing), std::string::npos) << st.message();
  EXPECT_EQ(LiveRefs(*early).find("refs/heads/b3"), std::string::npos) << "kept the old snapshot";
  EXPECT_NE(LiveRefs(*early).find("refs/heads/b2"), std::string::npos);
  auto fresh = Stack::Open(tmp.path(), TestOptions());
  ASSERT_FALSE(fresh.ok());
  EXPECT_EQ(fresh.status().code(), Code::kNotFound);
  EXPECT_NE(fresh.status().message().find(missing), std::string::npos) << fresh.status().message();
  // As in git, a stack object that already has the table open (mapped) reuses it by name.
  EXPECT_TRUE(s->Reload().ok());
}

TEST(StackTest, IsUpToDateUntilAnotherStackCommits) {
  TempDir tmp;
  auto a = OpenOrDie(tmp.path(), TestOptions());
  auto b = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(Put(*a, "refs/heads/a", 1).ok());
  EXPECT_TRUE(a->IsUpToDate()) << "its own commit reloads it";
  EXPECT_FALSE(b->IsUpToDate());
  ASSERT_TRUE(b->ReloadIfChanged().ok());
  EXPECT_TRUE(b->IsUpToDate());
  EXPECT_EQ(LiveRefs(*a), LiveRefs(*b));
  {
    Transaction tx = b->NewTransaction();
    tx.Verify("refs/heads/a", IdValue(1));
    ASSERT_TRUE(tx.Commit().ok());
  }
  EXPECT_TRUE(a->IsUpToDate()) << "a transaction that writes nothing changes nothing";
  ASSERT_TRUE(Put(*b, "refs/heads/b", 2).ok());
  EXPECT_FALSE(a->IsUpToDate());
  EXPECT_EQ(LiveRefs(*a).find("refs/heads/b"), std::string::npos) << "still the old snapshot";
  ASSERT_TRUE(a->ReloadIfChanged().ok());
  EXPECT_TRUE(a->IsUpToDate());
  EXPECT_EQ(LiveRefs(*a), LiveRefs(*b));
  ASSERT_TRUE(b->CompactAll().ok());
  EXPECT_FALSE(a->IsUpToDate());
  ASSERT_TRUE(a->ReloadIfChanged().ok());
  EXPECT_EQ(a->names(), b->names());
}

TEST(StackTest, UpToDateCheckIsOneStatAndReloadReusesOpenTables) {
  TempDir tmp;
  FaultInjectingFileSystem fs;
  StackOptions o = TestOptions();
  o.fs = &fs;
  auto a = OpenOrDie(tmp.path(), o);
  auto b = OpenOrDie(tmp.path(), TestOptions());
  for (uint64_t i = 1; i <= 3; ++i)
    ASSERT_TRUE(Put(*b, "refs/heads/b" + std::to_string(i), i).ok());
  ASSERT_TRUE(a->Reload().ok());
  fs.Reset();
  EXPECT_TRUE(a->IsUpToDate());
  EXPECT_EQ(fs.count(FsOp::kStat), 1u);
  EXPECT_EQ(fs.count(FsOp::kReadPinned) + fs.count(FsOp::kReadFile) + fs.count(FsOp::kOpenRead),
            0u);
  ASSERT_TRUE(Put(*b, "refs/heads/b4", 4).ok());
  fs.Reset();
  ASSERT_TRUE(a->ReloadIfChanged().ok());
  EXPECT_EQ(fs.count(FsOp::kOpenRead), 1u) << "only the new table is opened";
  EXPECT_EQ(a->names().size(), 4u);
}

TEST(StackTest, SnapshotStaysReadableAfterItsTablesAreCompactedAway) {
  TempDir tmp;
  auto a = OpenOrDie(tmp.path(), TestOptions());
  for (uint64_t i = 1; i <= 5; ++i)
    ASSERT_TRUE(Put(*a, "refs/heads/b" + std::to_string(i), i).ok());
  ASSERT_TRUE(Del(*a, "refs/heads/b3").ok());
  std::shared_ptr<const Snapshot> snap = a->snapshot();
  std::vector<std::string> old_names = a->names();
  std::string before = testutil::DumpSnapshot(*snap, true);
  auto b = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(b->CompactAll().ok());
  for (const std::string& n : old_names) {
    EXPECT_FALSE(testutil::FileExists(tmp.path() + "/" + n)) << n << " should be deleted";
  }
  a.reset();  // the snapshot outlives its stack too
  EXPECT_EQ(testutil::DumpSnapshot(*snap, true), before);
  RefRecord r;
  bool found = false;
  ASSERT_TRUE(snap->ReadRef("refs/heads/b5", &r, &found).ok());
  EXPECT_TRUE(found);
  ASSERT_TRUE(snap->ReadRef("refs/heads/b3", &r, &found).ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(testutil::DumpSnapshot(*b->snapshot(), false), testutil::DumpSnapshot(*snap, false));
}

TEST(StackTest, ReloadRetriesWhenACompactionReplacesTablesMidway) {
  TempDir tmp;
  {
    auto w = OpenOrDie(tmp.path(), TestOptions());
    for (uint64_t i = 1; i <= 4; ++i)
      ASSERT_TRUE(Put(*w, "refs/heads/b" + std::to_string(i), i).ok());
  }
  auto compactor = OpenOrDie(tmp.path(), TestOptions());
  FaultInjectingFileSystem fs;
  bool fired = false;
  fs.set_hook([&](FsOp op, const std::string&) {
    // After the reader has read the list, before it opens the first table.
    if (op == FsOp::kOpenRead && !fired) {
      fired = true;
      ASSERT_TRUE(compactor->CompactAll().ok());
    }
  });
  StackOptions o = TestOptions();
  o.fs = &fs;
  auto reader = Stack::Open(tmp.path(), o);
  ASSERT_TRUE(fired);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->names(), compactor->names());
  EXPECT_EQ(LiveRefs(**reader), LiveRefs(*compactor));
}

// ------------------------------------------------------------------ locking

TEST(StackLockTest, HeldListLockFailsCommitAfterTheTimeoutAndChangesNothing) {
  TempDir tmp;
  {
    auto w = OpenOrDie(tmp.path(), TestOptions());
    ASSERT_TRUE(Put(*w, "refs/heads/main", 1).ok());
  }
  WriteFileOrDie(tmp.path() + "/tables.list.lock", "");
  StackState before = CaptureStack(tmp.path());
  FaultInjectingFileSystem fs;
  StackOptions o = TestOptions();
  o.fs = &fs;
  o.lock_timeout_ms = 60;
  auto s = OpenOrDie(tmp.path(), o);
  fs.Reset();
  auto start = std::chrono::steady_clock::now();
  Status st = Put(*s, "refs/heads/main", 2);
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.code(), Code::kLockHeld) << st.ToString();
  EXPECT_GE(waited, std::chrono::milliseconds(60)) << "gave up before the timeout";
  EXPECT_GT(fs.count(FsOp::kCreate), 1u) << "retried with backoff";
  ExpectSameState(before, CaptureStack(tmp.path()));
  // Clean needs the same lock, and so does compaction once it has work: a stack of one table
  // is left alone without the lock (as git's), unless its reflogs are to be expired.
  EXPECT_TRUE(s->CompactAll().ok());
  CompactionOptions expire;
  expire.max_logs_per_ref = 1;
  EXPECT_EQ(s->CompactAll(expire).code(), Code::kLockHeld);
  EXPECT_EQ(s->Clean().code(), Code::kLockHeld);
  ExpectSameState(before, CaptureStack(tmp.path()));
  // Once the stale lock is removed, writes work again.
  ASSERT_EQ(std::remove((tmp.path() + "/tables.list.lock").c_str()), 0);
  ASSERT_TRUE(Put(*s, "refs/heads/main", 2).ok());
}

// Transaction::Lock takes tables.list.lock ahead of the commit: no other writer gets in
// until the commit (which uses the lock) or the transaction's end (which releases it).
TEST(StackLockTest, TransactionLockedAheadKeepsOtherWritersOutUntilItCommits) {
  TempDir tmp;
  StackOptions o = TestOptions();
  o.lock_timeout_ms = 0;
  auto a = OpenOrDie(tmp.path(), o);
  auto b = OpenOrDie(tmp.path(), o);
  {
    Transaction tx = a->NewTransaction();
    tx.Update("refs/heads/a", IdValue(1, 20));
    ASSERT_TRUE(tx.Lock().ok());
    ASSERT_TRUE(tx.Lock().ok()) << "a second call is a no-op";
    EXPECT_TRUE(tx.locked());
    EXPECT_EQ(Put(*b, "refs/heads/b", 2).code(), Code::kLockHeld);
    ASSERT_TRUE(tx.Commit().ok());
    EXPECT_FALSE(tx.locked());
  }
  ASSERT_TRUE(Put(*b, "refs/heads/b", 2).ok()) << "the commit released the lock";
  {
    Transaction tx = a->NewTransaction();
    tx.Update("refs/heads/c", IdValue(3, 20));
    ASSERT_TRUE(tx.Lock().ok());
    EXPECT_EQ(Put(*b, "refs/heads/d", 4).code(), Code::kLockHeld);
  }  // never committed: the lock goes with the transaction
  ASSERT_TRUE(Put(*b, "refs/heads/d", 4).ok());
  {
    Transaction tx = b->NewTransaction();
    tx.Update("refs/heads/e", IdValue(5, 20));
    ASSERT_TRUE(tx.Lock().ok());
    Transaction other = a->NewTransaction();
    other.Update("refs/heads/f", IdValue(6, 20));
    EXPECT_EQ(other.Lock().code(), Code::kLockHeld);
    EXPECT_FALSE(other.locked());
    Transaction moved = std::move(tx);  // the lock moves with the transaction
    EXPECT_TRUE(moved.locked());
    ASSERT_TRUE(moved.Commit().ok());
  }
  ASSERT_TRUE(a->Reload().ok());
  const std::string live = LiveRefs(*a);
  for (const char* name : {"refs/heads/a ", "refs/heads/b ", "refs/heads/d ", "refs/heads/e "}) {
    EXPECT_NE(live.find(name), std::string::npos) << name << "missing from\n" << live;
  }
  EXPECT_EQ(live.find("refs/heads/c "), std::string::npos) << live;
  EXPECT_EQ(live.find("refs/heads/f "), std::string::npos) << live;
  EXPECT_FALSE(testutil::FileExists(tmp.path() + "/tables.list.lock"));
}

TEST(StackLockTest, ZeroTimeoutTriesOnce) {
  TempDir tmp;
  WriteFileOrDie(tmp.path() + "/tables.list.lock", "");
  FaultInjectingFileSystem fs;
  StackOptions o = TestOptions();
  o.fs = &fs;
  o.lock_timeout_ms = 0;
  auto s = OpenOrDie(tmp.path(), o);
  fs.Reset();
  EXPECT_EQ(Put(*s, "refs/heads/main", 1).code(), Code::kLockHeld);
  EXPECT_EQ(fs.count(FsOp::kCreate), 1u);
  EXPECT_EQ(ListDirSorted(tmp.path()), (std::vector<std::string>{"tables.list.lock"}));
}

TEST(StackLockTest, NegativeTimeoutWaitsUntilTheLockIsReleased) {
  TempDir tmp;
  const std::string lock = tmp.path() + "/tables.list.lock";
  WriteFileOrDie(lock, "");
  FaultInjectingFileSystem fs;
  int attempts = 0;
  fs.set_hook([&](FsOp op, const std::string& path) {
    if (op == FsOp::kCreate && path == lock && ++attempts == 5) std::remove(lock.c_str());
  });
  StackOptions o = TestOptions();
  o.fs = &fs;
  o.lock_timeout_ms = -1;
  auto s = OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(Put(*s, "refs/heads/main", 1).ok());
  EXPECT_EQ(attempts, 5);
}

// Tables of (nearly) equal size, so that the geometric policy wants to merge them all.
void EqualTables(Stack& s, int n) {
  for (int i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/heads/b%03d", i);
    ASSERT_TRUE(Put(s, name, uint64_t(i)).ok());
  }
}

TEST(StackLockTest, LockedOldestTableShrinksAutoCompactionWithoutFailingTheCommit) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  EqualTables(*s, 5);
  std::string oldest = s->names()[0];
  WriteFileOrDie(tmp.path() + "/" + oldest + ".lock", "");
  StackOptions o = TestOptions();
  o.auto_compact = true;
  auto a = OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(Put(*a, "refs/heads/b005", 5).ok());
  EXPECT_TRUE(a->last_auto_compaction().ok()) << a->last_auto_compaction().ToString();
  ASSERT_EQ(a->names().size(), 2u);
  EXPECT_EQ(a->names()[0], oldest) << "the locked table is left alone";
  EXPECT_EQ(Ranges(*a), (R{{1, 1}, {2, 6}}));
  EXPECT_TRUE(testutil::FileExists(tmp.path() + "/" + oldest + ".lock")) << "not ours to remove";
  EXPECT_EQ(LiveRefs(*a), LiveRefs(*OpenOrDie(tmp.path(), TestOptions())));
  const std::string live = LiveRefs(*a);
  EXPECT_EQ(std::count(live.begin(), live.end(), '\n'), 6);
  // A full compaction is not best effort: it fails and changes nothing.
  StackState before = CaptureStack(tmp.path());
  EXPECT_EQ(a->CompactAll().code(), Code::kLockHeld);
  ExpectSameState(before, CaptureStack(tmp.path()));
}

TEST(StackLockTest, LockedTablesMakeAutoCompactionSkipButWritesSucceed) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  EqualTables(*s, 4);
  std::vector<std::string> locked = s->names();
  for (const std::string& n : locked) WriteFileOrDie(tmp.path() + "/" + n + ".lock", "");
  StackOptions o = TestOptions();
  o.auto_compact = true;
  auto a = OpenOrDie(tmp.path(), o);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(Put(*a, "refs/heads/new" + std::to_string(i), 100 + uint64_t(i)).ok());
    EXPECT_TRUE(a->last_auto_compaction().ok()) << a->last_auto_compaction().ToString();
    ASSERT_GE(a->names().size(), locked.size() + 1);
    EXPECT_EQ(std::vector<std::string>(a->names().begin(), a->names().begin() + 4), locked);
  }
  const std::string live = LiveRefs(*a);
  EXPECT_EQ(std::count(live.begin(), live.end(), '\n'), 14);
}

TEST(StackLockTest, CleanRemovesOnlyUnreferencedOldTables) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  for (uint64_t i = 1; i <= 3; ++i)
    ASSERT_TRUE(Put(*s, "refs/heads/b" + std::to_string(i), i).ok());
  const std::string d = tmp.path() + "/";
  std::string table_bytes = ReadFileOr(d + s->names()[0]);
  // Left behind by a crashed compaction: an unlisted table within the stack's range.
  const std::string stale = "0x000000000001-0x000000000002-0badf00d.ref";
  WriteFileOrDie(d + stale, table_bytes);
  // Written by a writer that has not committed yet: beyond the stack's range.
  WriteOptions wo;
  RefRecord r;
  r.refname = "refs/heads/future";
  r.update_index = 9;
  r.value_type = RefValueType::kVal1;
  r.value = testutil::TestId(9, 20);
  const std::string newer = "0x000000000009-0x000000000009-12345678.ref";
  WriteFileOrDie(d + newer, testutil::WriteTableToString(wo, 9, 9, {r}, {}));
  // Files that are not tables, or not ours to judge: the lock of something that is not a
  // table, a temporary table too young to be abandoned.
  const std::vector<std::string> others = {"0x000000000001-0x000000000001-cafe0000.log",
                                           "garbage.ref", "notes.txt", "x.ref.lock",
                                           "0x000000000004-0x000000000004-00000000.temp.abcdef"};
  WriteFileOrDie(d + others[0], table_bytes);
  WriteFileOrDie(d + others[1], "not a table");
  WriteFileOrDie(d + others[2], "hello");
  WriteFileOrDie(d + others[3], "");
  WriteFileOrDie(d + others[4], table_bytes);
  std::vector<std::string> before = ListDirSorted(tmp.path());
  std::string refs = LiveRefs(*s);
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_EQ(ListDirSorted(tmp.path()), storetest::Without(before, stale));
  EXPECT_EQ(LiveRefs(*s), refs);
  // Once the stack reaches the newer table's index, it is stale too.
  for (uint64_t i = 4; i <= 9; ++i)
    ASSERT_TRUE(Put(*s, "refs/heads/b" + std::to_string(i), i).ok());
  ASSERT_TRUE(s->Clean().ok());
  EXPECT_FALSE(testutil::FileExists(d + newer));
  for (const std::string& f : others) EXPECT_TRUE(testutil::FileExists(d + f)) << f;
}

// ------------------------------------------------------------------ durability

struct SyncCounts {
  uint64_t syncs = 0;
  uint64_t dir_syncs = 0;
  std::vector<testutil::FsEvent> events;
};

// Runs `op` on a stack of three tables opened through a counting file system.
SyncCounts CountSyncs(Durability d, const std::function<Status(Stack&)>& op) {
  TempDir tmp;
  {
    auto w = OpenOrDie(tmp.path(), TestOptions());
    for (uint64_t i = 1; i <= 3; ++i)
      EXPECT_TRUE(Put(*w, "refs/heads/b" + std::to_string(i), i).ok());
  }
  FaultInjectingFileSystem fs;
  fs.set_perform_syncs(false);
  StackOptions o = TestOptions();
  o.fs = &fs;
  o.durability = d;
  auto s = OpenOrDie(tmp.path(), o);
  fs.Reset();
  Status st = op(*s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return SyncCounts{fs.count(FsOp::kSync), fs.count(FsOp::kSyncDir), fs.events()};
}

Status OneTransaction(Stack& s) { return Put(s, "refs/heads/new", 42); }
Status FullCompaction(Stack& s) { return s.CompactAll(); }

TEST(DurabilityTest, NoneNeverSyncs) {
  for (auto op : {OneTransaction, FullCompaction}) {
    SyncCounts c = CountSyncs(Durability::kNone, op);
    EXPECT_EQ(c.syncs, 0u);
    EXPECT_EQ(c.dir_syncs, 0u);
  }
}

TEST(DurabilityTest, GitSyncsTheNewTableAndTheListButNotTheDirectory) {
  for (auto op : {OneTransaction, FullCompaction}) {
    SyncCounts c = CountSyncs(Durability::kGit, op);
    EXPECT_EQ(c.syncs, 2u);
    EXPECT_EQ(c.dir_syncs, 0u);
    std::vector<std::string> synced;
    for (const auto& e : c.events) {
      if (e.op == FsOp::kSync) synced.push_back(e.path);
    }
    ASSERT_EQ(synced.size(), 2u);
    EXPECT_NE(synced[0].find(".temp."), std::string::npos)
        << "the table, before its rename: " << synced[0];
    EXPECT_TRUE(EndsWith(synced[1], "/tables.list.lock")) << synced[1];
    // Each file is synced before it is renamed into place.
    for (size_t i = 0; i < c.events.size(); ++i) {
      if (c.events[i].op != FsOp::kRename) continue;
      bool synced_before = false;
      for (size_t j = 0; j < i; ++j) {
        synced_before |= c.events[j].op == FsOp::kSync && c.events[j].path == c.events[i].path;
      }
      EXPECT_TRUE(synced_before) << c.events[i].path << " renamed without a sync";
    }
  }
}

TEST(DurabilityTest, FullAlsoSyncsTheDirectoryAfterTheListRename) {
  for (auto op : {OneTransaction, FullCompaction}) {
    SyncCounts c = CountSyncs(Durability::kFull, op);
    EXPECT_EQ(c.syncs, 2u);
    EXPECT_GE(c.dir_syncs, 1u);
    long list_rename = -1;
    for (size_t i = 0; i < c.events.size(); ++i) {
      if (c.events[i].op == FsOp::kRename && EndsWith(c.events[i].to, "/tables.list"))
        list_rename = long(i);
    }
    ASSERT_GE(list_rename, 0);
    bool dir_synced = false;
    for (size_t i = size_t(list_rename) + 1; i < c.events.size(); ++i)
      dir_synced |= c.events[i].op == FsOp::kSyncDir;
    EXPECT_TRUE(dir_synced);
  }
}

// kFull promises a directory sync after every rename: the table's (so that it is on disk
// before a list names it) and the list's.
TEST(DurabilityTest, FullSyncsTheDirectoryAfterEveryRename) {
  for (auto op : {OneTransaction, FullCompaction}) {
    SyncCounts c = CountSyncs(Durability::kFull, op);
    EXPECT_EQ(c.syncs, 2u);
    EXPECT_EQ(c.dir_syncs, 2u);
    for (size_t i = 0; i < c.events.size(); ++i) {
      if (c.events[i].op != FsOp::kRename) continue;
      bool synced = false;
      for (size_t j = i + 1; j < c.events.size() && c.events[j].op != FsOp::kRename; ++j) {
        synced |= c.events[j].op == FsOp::kSyncDir;
      }
      EXPECT_TRUE(synced) << "no directory sync after renaming " << c.events[i].path << " to "
                          << c.events[i].to;
    }
  }
}

// ------------------------------------------------------------------ races, made deterministic

// Six tables (the last one deletes refs/heads/b2), a stack object whose file system runs a
// hook, and a second stack object (plain file system) that the hook uses to interleave.
class StackRaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = OpenOrDie(tmp_.path(), TestOptions());
    for (uint64_t i = 1; i <= 5; ++i)
      ASSERT_TRUE(Put(*w, "refs/heads/b" + std::to_string(i), i).ok());
    ASSERT_TRUE(Del(*w, "refs/heads/b2").ok());
    other_ = OpenOrDie(tmp_.path(), TestOptions());
    StackOptions o = TestOptions();
    o.fs = &fs_;
    main_ = OpenOrDie(tmp_.path(), o);
    before_ = CaptureStack(tmp_.path());
  }
  // Runs `action` once, just before the first operation `op` on a path containing `part`.
  void Once(FsOp op, const std::string& part, std::function<void()> action) {
    fs_.set_hook([this, op, part, action, fired = false](FsOp o, const std::string& p) mutable {
      if (!fired && o == op && p.find(part) != std::string::npos) {
        fired = true;
        fired_ = true;
        action();
      }
    });
  }

  TempDir tmp_;
  FaultInjectingFileSystem fs_;
  std::unique_ptr<Stack> other_;
  std::unique_ptr<Stack> main_;
  StackState before_;
  bool fired_ = false;
};

TEST_F(StackRaceTest, AppendDuringCompactionIsKept) {
  // The compactor released tables.list.lock while it merges: another writer appends.
  Once(FsOp::kCreate, ".temp.", [&] { ASSERT_TRUE(Put(*other_, "refs/heads/late", 99).ok()); });
  ASSERT_TRUE(main_->CompactAll().ok());
  ASSERT_TRUE(fired_);
  EXPECT_EQ(Ranges(*main_), (R{{1, 6}, {7, 7}}));
  std::string refs = LiveRefs(*main_);
  EXPECT_NE(refs.find("refs/heads/late"), std::string::npos);
  EXPECT_EQ(refs, LiveRefs(*OpenOrDie(tmp_.path(), TestOptions())));
  EXPECT_TRUE(testutil::StrayFiles(CaptureStack(tmp_.path())).empty());
}

TEST_F(StackRaceTest, CompactionOfAnotherRangeDuringCompactionIsSpliced) {
  ASSERT_EQ(main_->names().size(), 6u);
  Once(FsOp::kCreate, ".temp.", [&] { ASSERT_TRUE(other_->CompactRange(3, 5).ok()); });
  ASSERT_TRUE(main_->CompactRange(0, 2).ok());
  ASSERT_TRUE(fired_);
  EXPECT_EQ(Ranges(*main_), (R{{1, 3}, {4, 6}}));
  StackState after = CaptureStack(tmp_.path());
  EXPECT_EQ(after.merged, before_.merged);
  EXPECT_EQ(LiveRefs(*main_), testutil::DumpRefs(*other_->snapshot(), false));
  EXPECT_TRUE(testutil::StrayFiles(after).empty());
}

TEST_F(StackRaceTest, OverlappingCompactionFailsWithLockHeldAndChangesNothing) {
  Status inner;
  std::string list_during;
  Once(FsOp::kCreate, ".temp.", [&] {
    list_during = ReadFileOr(tmp_.path() + "/tables.list");
    inner = other_->CompactAll();
    EXPECT_EQ(ReadFileOr(tmp_.path() + "/tables.list"), list_during);
  });
  ASSERT_TRUE(main_->CompactAll().ok());
  ASSERT_TRUE(fired_);
  EXPECT_EQ(inner.code(), Code::kLockHeld) << inner.ToString();
  EXPECT_EQ(Ranges(*main_), (R{{1, 6}}));
  EXPECT_TRUE(testutil::StrayFiles(CaptureStack(tmp_.path())).empty());
}

TEST_F(StackRaceTest, ReaderDuringCompactionSeesOneConsistentSnapshot) {
  std::string seen;
  Once(FsOp::kCreate, ".temp.", [&] {
    auto reader = OpenOrDie(tmp_.path(), TestOptions());
    seen = testutil::DumpSnapshot(*reader->snapshot(), true);
  });
  auto held = OpenOrDie(tmp_.path(), TestOptions());
  std::shared_ptr<const Snapshot> snap = held->snapshot();
  ASSERT_TRUE(main_->CompactAll().ok());
  EXPECT_EQ(seen, before_.merged);
  EXPECT_EQ(testutil::DumpSnapshot(*snap, true), before_.merged) << "an old snapshot is unaffected";
  EXPECT_EQ(testutil::DumpSnapshot(*main_->snapshot(), false),
            testutil::DumpSnapshot(*snap, false));
}

TEST_F(StackRaceTest, CleanDuringTransactionCannotTakeTheLock) {
  StackOptions o = TestOptions();
  o.lock_timeout_ms = 0;
  auto cleaner = OpenOrDie(tmp_.path(), o);
  Status inner;
  Once(FsOp::kRename, ".temp.", [&] { inner = cleaner->Clean(); });
  ASSERT_TRUE(Put(*main_, "refs/heads/new", 7).ok());
  ASSERT_TRUE(fired_);
  EXPECT_EQ(inner.code(), Code::kLockHeld);
  EXPECT_NE(LiveRefs(*OpenOrDie(tmp_.path(), TestOptions())).find("refs/heads/new"),
            std::string::npos);
}

// The compactor released tables.list.lock for the merge and has written its table; a clean
// (ours here, or git's `pack-refs`) runs before it takes the lock again. The new table must
// still be under its temporary name then, which no clean removes; had it been renamed to its
// final name already, the clean would delete it as a crashed writer's and the compactor
// would then publish a list naming a missing file.
TEST_F(StackRaceTest, CleanDuringCompactionKeepsTheNewTable) {
  const std::string live_before = testutil::DumpSnapshot(*main_->snapshot(), false);
  bool written = false;
  Status inner;
  fs_.set_hook([&](FsOp op, const std::string& path) {
    if (op == FsOp::kClose && path.find(".temp.") != std::string::npos) written = true;
    // The compactor has written its table and is about to re-take tables.list.lock.
    if (written && !fired_ && op == FsOp::kCreate && EndsWith(path, "/tables.list.lock")) {
      fired_ = true;
      inner = other_->Clean();
    }
  });
  Status st = main_->CompactAll();
  ASSERT_TRUE(fired_);
  EXPECT_TRUE(inner.ok()) << inner.ToString();
  EXPECT_TRUE(st.ok()) << st.ToString();
  StackState after = CaptureStack(tmp_.path());
  ASSERT_TRUE(after.open_ok) << after.open_error;
  auto fresh = OpenOrDie(tmp_.path(), TestOptions());
  ASSERT_TRUE(fresh);
  EXPECT_EQ(testutil::DumpSnapshot(*fresh->snapshot(), false), live_before);
  EXPECT_TRUE(testutil::StrayFiles(after).empty());
}

}  // namespace
}  // namespace reftab

// The rules under `refs migrate`: the config edits git makes, the files backend's parsers,
// and above all the safety of writing loose files from names found in a table — names that
// are not valid ref names never become paths, case-colliding names on a case-insensitive
// file system are reported and never merged, nothing is written through a symbolic link —
// and that a refused migration leaves the repository as it was.
#include "store/git/migrate/migrate.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "store/git/config/config_edit.h"
#include "store/git/migrate/files_backend_read.h"
#include "store/git/migrate/files_backend_write.h"
#include "store/git/refs/reflog.h"
#include "store/table_writer.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

TEST(ConfigEdit, ReplacesAValueInPlaceAsGitWritesIt) {
  std::string text = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
  EXPECT_EQ(SetConfigValue(text, "core.repositoryformatversion", "1"),
            "[core]\n\trepositoryformatversion = 1\n\tbare = false\n");
  EXPECT_EQ(
      SetConfigValue("[Core]\n  RepositoryFormatVersion=0\n", "core.repositoryformatversion", "1"),
      "[Core]\n\trepositoryformatversion = 1\n");
}

TEST(ConfigEdit, AddsKeysToTheirSectionOrANewOne) {
  EXPECT_EQ(SetConfigValue("[core]\n\tbare = false\n", "extensions.refstorage", "reftable"),
            "[core]\n\tbare = false\n[extensions]\n\trefstorage = reftable\n");
  EXPECT_EQ(SetConfigValue("[extensions]\n\tobjectformat = sha256\n[user]\n\tname = x\n",
                           "extensions.refstorage", "reftable"),
            "[extensions]\n\tobjectformat = sha256\n\trefstorage = reftable\n[user]\n\tname = x\n");
  EXPECT_EQ(SetConfigValue("[core]\n\tbare = false", "extensions.refstorage", "reftable"),
            "[core]\n\tbare = false\n[extensions]\n\trefstorage = reftable\n");
}

TEST(ConfigEdit, UnsettingTheLastKeyDropsTheSection) {
  EXPECT_EQ(UnsetConfigValue("[core]\n\tbare = false\n[extensions]\n\trefstorage = reftable\n",
                             "extensions.refstorage"),
            "[core]\n\tbare = false\n");
  EXPECT_EQ(UnsetConfigValue("[extensions]\n\tobjectformat = sha256\n\trefstorage = reftable\n",
                             "extensions.refstorage"),
            "[extensions]\n\tobjectformat = sha256\n");
  // A subsection is another section.
  EXPECT_EQ(UnsetConfigValue("[extensions \"x\"]\n\trefstorage = a\n", "extensions.refstorage"),
            "[extensions \"x\"]\n\trefstorage = a\n");
}

std::vector<std::string> Names(const std::vector<RefProblem>& problems) {
  std::vector<std::string> out;
  for (const RefProblem& p : problems) out.push_back(p.refname);
  return out;
}

TEST(FilesRead, PackedRefsSortedWhateverTheTraitsSay) {
  const std::string a(40, 'a'), b(40, 'b');
  std::vector<RefRecord> refs;
  ASSERT_TRUE(ParsePackedRefs("# pack-refs with: peeled \n" + a + " refs/tags/z\n^" + b + "\n" + b +
                                  " refs/heads/a\n",
                              20, &refs)
                  .ok());
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].refname, "refs/heads/a");
  EXPECT_EQ(refs[1].refname, "refs/tags/z");
  EXPECT_EQ(refs[1].value_type, RefValueType::kVal1);  // git's migration drops peeled values
  Status bad = ParsePackedRefs(a + "refs/heads/x\n", 20, &refs);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("line 1"), std::string::npos);
}

TEST(FilesRead, LooseRefsShadowPackedOnesInNameOrder) {
  TempDir dir("migrate");
  const std::string g = dir.path(), a(40, 'a'), b(40, 'b'), z(40, '0');
  // Unsorted, with a peeled line, a bad name, a null id and a ref a loose file shadows.
  testutil::WriteFileOrDie(g + "/packed-refs", "# pack-refs with: peeled \n" + a +
                                                   " refs/tags/z\n^" + b + "\n" + a +
                                                   " refs/heads/m\n" + a + " refs/heads/x..y\n" +
                                                   z + " refs/heads/null\n" + a + " refs/heads/c");
  ASSERT_EQ(mkdir((g + "/refs").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((g + "/refs/heads").c_str(), 0755), 0);
  testutil::WriteFileOrDie(g + "/refs/heads/m", b + "\n");
  testutil::WriteFileOrDie(g + "/refs/heads/broken", "junk\n");
  testutil::WriteFileOrDie(g + "/HEAD", "ref: refs/heads/m\n");
  FilesRefs refs;
  ASSERT_TRUE(ReadFilesRefs(g, 20, &refs).ok());
  std::vector<std::string> names;
  for (size_t i = 0; i < refs.size(); ++i) names.emplace_back(refs.name(i));
  EXPECT_EQ(names, (std::vector<std::string>{"HEAD", "refs/heads/c", "refs/heads/m",
                                             "refs/heads/null", "refs/tags/z"}));
  EXPECT_EQ(Names(refs.problems),
            (std::vector<std::string>{"refs/heads/broken", "refs/heads/x..y"}));
  RefRecord r;
  refs.Get(0, &r);
  EXPECT_EQ(r.value_type, RefValueType::kSymref);
  EXPECT_EQ(r.target, "refs/heads/m");
  refs.Get(2, &r);  // the loose one
  EXPECT_EQ(HexId(r.value, 20), b);
  refs.Get(4, &r);  // packed, after a loose symref in the same record
  EXPECT_EQ(r.refname, "refs/tags/z");
  EXPECT_EQ(r.value_type, RefValueType::kVal1);
  EXPECT_TRUE(r.target.empty());
  EXPECT_EQ(HexId(r.value, 20), a);
  EXPECT_TRUE(refs.HasNullId(3));
  EXPECT_FALSE(refs.HasNullId(0));
  EXPECT_FALSE(refs.HasNullId(1));
  refs.Drop({"HEAD", "refs/heads/null"});
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs.name(0), "refs/heads/c");
  EXPECT_EQ(refs.name(2), "refs/tags/z");
}

TEST(FilesRead, PackedRefsNeverReadThroughASymbolicLink) {
  TempDir dir("migrate");
  const std::string g = dir.Subdir("git"), other = dir.path() + "/elsewhere";
  testutil::WriteFileOrDie(other, std::string(40, 'a') + " refs/heads/x\n");
  ASSERT_EQ(symlink(other.c_str(), (g + "/packed-refs").c_str()), 0);
  FilesRefs refs;
  EXPECT_FALSE(ReadFilesRefs(g, 20, &refs).ok());
  ASSERT_EQ(unlink((g + "/packed-refs").c_str()), 0);
  ASSERT_TRUE(ReadFilesRefs(g, 20, &refs).ok());  // no packed-refs: no refs
  EXPECT_EQ(refs.size(), 0u);
}

TEST(FilesRead, LooseRefContents) {
  RefRecord r;
  EXPECT_EQ(ParseLooseRef("ref:   refs/heads/main \n", 20, &r), LooseKind::kSymref);
  EXPECT_EQ(r.target, "refs/heads/main");
  EXPECT_EQ(ParseLooseRef(std::string(40, 'c') + "\n", 20, &r), LooseKind::kId);
  EXPECT_EQ(ParseLooseRef(std::string(40, 'c') + " trailing\n", 20, &r), LooseKind::kId);
  EXPECT_EQ(ParseLooseRef(std::string(40, 'c') + "x\n", 20, &r), LooseKind::kBroken);
  EXPECT_EQ(ParseLooseRef(std::string(40, 'c') + "\n", 32, &r), LooseKind::kBroken);
  EXPECT_EQ(ParseLooseRef("garbage", 20, &r), LooseKind::kBroken);
}

TEST(FilesRead, ReflogLinesAsGitParsesThem) {
  const std::string z(40, '0'), a(40, 'a');
  std::vector<LogRecord> logs;
  ParseFilesReflog(z + " " + a + " N  <m@x> 1700000000 -0130\tmsg\n" +   // kept
                       z + " " + a + " N <m@x> 0 +0000\tzero\n" +        // zero time: skipped
                       "junk\n" +                                        // skipped
                       z + " " + a + " N <m@x> 1700000001 +0200\n" +     // no message
                       z + " " + a + " N <m@x> 1700000002 +0000\tlast",  // no newline: skipped
                   20, &logs);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].name, "N");
  EXPECT_EQ(logs[0].email, "m@x");
  EXPECT_EQ(logs[0].tz_offset, -130);
  EXPECT_EQ(logs[0].message, "msg\n");
  EXPECT_EQ(logs[1].message, "\n");  // git keeps the newline as the message
  EXPECT_EQ(FormatFilesReflogLine(logs[0], 20), z + " " + a + " N <m@x> 1700000000 -0130\tmsg\n\n");
}

RefRecord Symref(const std::string& name, const std::string& target) {
  RefRecord r;
  r.refname = name;
  r.value_type = RefValueType::kSymref;
  r.target = target;
  return r;
}

RefRecord Val(const std::string& name) {
  RefRecord r;
  r.refname = name;
  r.value_type = RefValueType::kVal1;
  r.value = testutil::TestId(7, 20);
  return r;
}

// Packed refs share one file: only the loose ones matter to the path checks.
void AddLoose(FilesLayout* layout, const RefRecord& r) {
  if (IsLooseInFiles(r)) layout->loose.push_back(r);
}

TEST(FilesWriteSafety, NamesThatAreNotRefNamesNeverBecomePaths) {
  FilesLayout layout;
  for (const char* n : {"refs/heads/../../../../tmp/evil", "/etc/passwd", "refs/heads/a\nb",
                        "refs//x", "evil", "refs/heads/x.lock", "refs/heads/.hidden", "HEAD"}) {
    layout.loose.push_back(Symref(n, "refs/heads/main"));
  }
  layout.reflogs.push_back({"../escape", {}});
  std::vector<std::string> bad = Names(CheckFilesLayoutNames(layout, false));
  EXPECT_EQ(bad, (std::vector<std::string>{
                     "refs/heads/../../../../tmp/evil", "/etc/passwd", "refs/heads/a\nb", "refs//x",
                     "evil", "refs/heads/x.lock", "refs/heads/.hidden", "../escape"}));
  TempDir dir("migrate");
  EXPECT_FALSE(WriteFilesLayout(dir.path(), layout, FilesWriteOptions{}).ok());
}

TEST(FilesWriteSafety, CaseCollisionsReportedOnlyWhereTheFileSystemFolds) {
  FilesLayout layout;
  for (const RefRecord& r : std::vector<RefRecord>{
           Symref("refs/heads/Foo", "refs/heads/main"), Symref("refs/heads/foo", "refs/heads/main"),
           Val("refs/heads/PACKED"), Val("refs/heads/packed")})
    AddLoose(&layout, r);  // one file: no collision
  layout.reflogs.push_back({"refs/heads/Bar/x", {}});
  layout.reflogs.push_back({"refs/heads/bar", {}});
  EXPECT_TRUE(CheckFilesLayoutNames(layout, false).empty());
  EXPECT_EQ(Names(CheckFilesLayoutNames(layout, true)),
            (std::vector<std::string>{"refs/heads/foo", "refs/heads/bar"}));
}

TEST(FilesWriteSafety, DirectoryFileConflictsReported) {
  FilesLayout layout;
  for (const RefRecord& r : std::vector<RefRecord>{Symref("refs/heads/a", "refs/heads/main"),
                                                   Symref("refs/heads/a/b", "refs/heads/main")})
    AddLoose(&layout, r);
  EXPECT_EQ(Names(CheckFilesLayoutNames(layout, false)),
            std::vector<std::string>{"refs/heads/a/b"});
}

TEST(FilesWriteSafety, NeverWritesThroughASymbolicLink) {
  TempDir dir("migrate");
  const std::string out = dir.Subdir("new"), outside = dir.Subdir("outside");
  ASSERT_EQ(symlink(outside.c_str(), (out + "/logs").c_str()), 0);
  FilesLayout layout;
  for (const RefRecord& r :
       std::vector<RefRecord>{Symref("HEAD", "refs/heads/main"), Val("refs/heads/main")})
    AddLoose(&layout, r);
  LogRecord e;
  e.value_type = LogValueType::kUpdate;
  e.time = 1;
  layout.reflogs.push_back({"HEAD", {e}});
  EXPECT_FALSE(WriteFilesLayout(out, layout, FilesWriteOptions{}).ok());
  EXPECT_TRUE(testutil::ListDirSorted(outside).empty());
  // Nor over an existing file.
  TempDir dir2("migrate");
  testutil::WriteFileOrDie(dir2.path() + "/HEAD", "keep\n");
  EXPECT_FALSE(WriteFilesLayout(dir2.path(), layout, FilesWriteOptions{}).ok());
  EXPECT_EQ(testutil::ReadFileOr(dir2.path() + "/HEAD"), "keep\n");
}

// A reftable repository made by hand, with whatever names a careless tool might write.
std::string MakeReftableRepo(const TempDir& dir, const std::vector<RefRecord>& refs) {
  const std::string g = dir.Subdir("repo.git");
  testutil::WriteFileOrDie(g + "/config",
                           "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
                           "[extensions]\n\trefstorage = reftable\n");
  testutil::WriteFileOrDie(g + "/HEAD", "ref: refs/heads/.invalid\n");
  mkdir((g + "/refs").c_str(), 0777);
  mkdir((g + "/objects").c_str(), 0777);
  testutil::WriteFileOrDie(g + "/refs/heads", "this repository uses the reftable format\n");
  mkdir((g + "/reftable").c_str(), 0777);
  std::string bytes;
  StringSink sink(&bytes);
  TableWriter w(WriteOptions{}, &sink);
  EXPECT_TRUE(w.SetLimits(1, 1).ok());
  std::vector<RefRecord> sorted = refs;
  std::sort(sorted.begin(), sorted.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  for (RefRecord r : sorted) {
    r.update_index = 1;
    EXPECT_TRUE(w.AddRef(r).ok()) << r.refname;
  }
  EXPECT_TRUE(w.Finish().ok());
  const std::string table = "0x000000000001-0x000000000001-01234567.ref";
  testutil::WriteFileOrDie(g + "/reftable/" + table, bytes);
  testutil::WriteFileOrDie(g + "/reftable/tables.list", table + "\n");
  return g;
}

TEST(Migrate, RefusesUnsafeNamesAndLeavesTheRepositoryAlone) {
  TempDir dir("migrate");
  const std::string g =
      MakeReftableRepo(dir, {Symref("HEAD", "refs/heads/main"), Val("refs/heads/main"),
                             Symref("refs/heads/../../../evil", "refs/heads/main"), Val("evil"),
                             Symref("refs/heads/s", "refs/heads/bad..target")});
  const std::string config = testutil::ReadFileOr(g + "/config");
  MigrateOptions options;
  options.target = RefStorageFormat::kFiles;
  MigrateResult result;
  Status s = MigrateRefStorage(g, options, &result);
  ASSERT_FALSE(s.ok());
  std::vector<std::string> bad = Names(result.not_migrated);
  std::sort(bad.begin(), bad.end());
  EXPECT_EQ(bad, (std::vector<std::string>{"evil", "refs/heads/../../../evil", "refs/heads/s"}));
  EXPECT_EQ(testutil::ReadFileOr(g + "/config"), config);
  EXPECT_EQ(testutil::ListDirSorted(g),
            (std::vector<std::string>{"HEAD", "config", "objects", "refs", "reftable"}));
  EXPECT_EQ(testutil::ListDirSorted(dir.path()), std::vector<std::string>{"repo.git"});

  options.skip_unmigratable = true;
  result = MigrateResult();
  ASSERT_TRUE(MigrateRefStorage(g, options, &result).ok()) << s.ToString();
  EXPECT_EQ(result.refs, 2u);
  EXPECT_EQ(result.not_migrated.size(), 3u);
  EXPECT_EQ(testutil::ReadFileOr(g + "/HEAD"), "ref: refs/heads/main\n");
  EXPECT_EQ(testutil::ReadFileOr(g + "/packed-refs"),
            "# pack-refs with: peeled fully-peeled sorted \n" + HexId(testutil::TestId(7, 20), 20) +
                " refs/heads/main\n");
  EXPECT_EQ(testutil::ReadFileOr(g + "/config"),
            "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
  EXPECT_EQ(testutil::ListDirSorted(dir.path()), std::vector<std::string>{"repo.git"});
  EXPECT_FALSE(testutil::FileExists(g + "/evil"));
}

// An existence marker (what expiring every entry leaves in a reftable reflog) is no entry to
// git's readers: migrating to files writes no line for it, and no file for a reflog that has
// nothing else, as git's migration does.
TEST(Migrate, ReflogExistenceMarkersAreNotEntries) {
  TempDir dir("migrate");
  const std::string g = MakeReftableRepo(
      dir, {Symref("HEAD", "refs/heads/main"), Val("refs/heads/main"), Val("refs/heads/m")});
  {
    StackOptions o;
    o.durability = Durability::kNone;
    auto store = GitRefStore::OpenRepo(g, o);  // its own stack: --stack would not write there
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (const char* name : {"refs/heads/main", "refs/heads/m"}) {
      Transaction tx = (*store)->main_stack().NewTransaction();
      LogRecord l;
      l.refname = name;
      l.value_type = LogValueType::kUpdate;
      l.new_id = testutil::TestId(7, 20);
      l.name = "C";
      l.email = "c@x";
      l.time = 1000;
      l.message = "entry\n";
      tx.AddLogRecord(l);
      ASSERT_TRUE(tx.Commit().ok());
    }
    auto all = [](const LogRecord&) -> Result<bool> { return true; };
    ASSERT_TRUE(ExpireReflog(**store, "refs/heads/m", {}, {}, all).ok());
    bool exists = false;
    ASSERT_TRUE((*store)->ReflogExists("refs/heads/m", &exists).ok());
    ASSERT_TRUE(exists) << "the marker is there";
  }
  MigrateOptions options;
  options.target = RefStorageFormat::kFiles;
  MigrateResult result;
  ASSERT_TRUE(MigrateRefStorage(g, options, &result).ok());
  EXPECT_TRUE(testutil::FileExists(g + "/logs/refs/heads/main"));
  EXPECT_FALSE(testutil::FileExists(g + "/logs/refs/heads/m"))
      << testutil::ReadFileOr(g + "/logs/refs/heads/m");
}

TEST(Migrate, CaseCollisionsFailOnAFoldingFileSystem) {
  TempDir dir("migrate");
  const std::string g =
      MakeReftableRepo(dir, {Symref("HEAD", "refs/heads/main"), Val("refs/heads/main"),
                             Symref("refs/heads/Topic", "refs/heads/main"),
                             Symref("refs/heads/topic", "refs/heads/main")});
  MigrateOptions options;
  options.target = RefStorageFormat::kFiles;
  options.case_insensitive = true;
  MigrateResult result;
  EXPECT_FALSE(MigrateRefStorage(g, options, &result).ok());
  EXPECT_EQ(Names(result.not_migrated), std::vector<std::string>{"refs/heads/topic"});
  EXPECT_NE(result.not_migrated[0].reason.find("case-insensitive"), std::string::npos);
  EXPECT_TRUE(testutil::FileExists(g + "/reftable/tables.list"));
  options.case_insensitive = false;
  result = MigrateResult();
  EXPECT_TRUE(MigrateRefStorage(g, options, &result).ok());
  EXPECT_EQ(testutil::ReadFileOr(g + "/refs/heads/topic"), "ref: refs/heads/main\n");
  EXPECT_EQ(testutil::ReadFileOr(g + "/refs/heads/Topic"), "ref: refs/heads/main\n");
}

TEST(Migrate, RefusesWorktreesAndTheSameFormatWithGitsWords) {
  TempDir dir("migrate");
  const std::string g = MakeReftableRepo(dir, {Symref("HEAD", "refs/heads/main")});
  MigrateOptions options;
  options.target = RefStorageFormat::kReftable;
  MigrateResult result;
  EXPECT_EQ(MigrateRefStorage(g, options, &result).message(),
            "repository already uses 'reftable' format");
  testutil::WriteFileOrDie(dir.Subdir("repo.git/worktrees/wt") + "/gitdir", "/somewhere/.git\n");
  options.target = RefStorageFormat::kFiles;
  EXPECT_EQ(MigrateRefStorage(g, options, &result).message(),
            "migrating repositories with worktrees is not supported yet");
}

}  // namespace
}  // namespace reftab

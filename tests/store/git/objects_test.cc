// store/git/objects/objects.h on repositories made by the real git, SHA-1 and SHA-256 (each
// test runs for both): loose objects, packs with offset and reference deltas, annotated and
// nested tags, merges, missing objects, abbreviations and commit walks, each checked against
// what git itself says. Skipped (or failed under REFTAB_REQUIRE_GIT) without a git that makes
// reftable repositories.
#include "store/git/objects/objects.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testutil/fast_import.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

std::string Data(const std::string& s) { return testutil::FastImportData(s); }

std::string Commit(const std::string& branch, int mark, std::vector<int> parents, int time) {
  return testutil::FastImportCommit(branch, mark, std::move(parents), time);
}

// The parameter is the hash size: 20 (SHA-1) or 32 (SHA-256).
class GitObjectsTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    std::string why;
    auto git = testing::FindReftableGit(&why);
    if (!git) REFTAB_SKIP_WITHOUT_GIT(why);
    git_ = *git;
    hs_ = GetParam();
    repo_ = tmp_.Subdir("repo.git");
    Git({"init", "-q", "--bare", "--ref-format=reftable",
         std::string("--object-format=") + (hs_ == 32 ? "sha256" : "sha1"), repo_});
    objects_ = repo_ + "/objects";
    GitObjects probe(objects_, hs_);
    ASSERT_TRUE(probe.available()) << probe.reason();
  }

  ObjectId IdOf(const std::string& hex) const {
    ObjectId id{};
    EXPECT_TRUE(ParseHexId(hex, hs_, &id)) << hex;
    return id;
  }
  std::string Hex(const ObjectId& id) const { return HexId(id, hs_); }
  size_t HexLen() const { return 2 * hs_; }

  // Runs git in the repository; its standard output (fails the test on a non-zero exit).
  std::string Git(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), git_);
    testing::ProcessOptions opts;
    opts.cwd = repo_.empty() ? tmp_.path() : repo_;
    opts.input = input;
    opts.env = {{"GIT_COMMITTER_NAME", "C"},
                {"GIT_COMMITTER_EMAIL", "c@x"},
                {"GIT_COMMITTER_DATE", "1700000100 +0100"},
                {"GIT_AUTHOR_NAME", "A"},
                {"GIT_AUTHOR_EMAIL", "a@x"},
                {"GIT_AUTHOR_DATE", "1700000100 +0100"}};
    testing::ProcessResult r = testing::RunProcess(args, opts);
    EXPECT_EQ(r.exit_code, 0) << args[1] << ": " << r.err;
    return r.out;
  }
  std::string Rev(const std::string& rev) { return Git({"rev-parse", rev}).substr(0, HexLen()); }

  // main: 1-2-3-4, side: 2-5-6, merge 7 = 4+6 on main; tags: v1 (annotated, on 3), v1-outer
  // (a tag of v1), vblob (on a blob); a tag claiming the wrong type; a tag of a missing object.
  void MakeHistory() {
    std::string s = Commit("main", 1, {}, 1) + Commit("main", 2, {1}, 2) +
                    Commit("main", 3, {2}, 3) + Commit("side", 5, {2}, 4) +
                    Commit("main", 4, {3}, 5) + Commit("side", 6, {5}, 6) +
                    Commit("main", 7, {4, 6}, 7);
    Git({"fast-import", "--quiet"}, s);
    Git({"tag", "-a", "-m", "annotated", "v1", "main~1~1"});
    Git({"-c", "advice.nestedTag=false", "tag", "-a", "-m", "outer", "v1-outer", "v1"});
    Git({"tag", "-a", "-m", "of a blob", "vblob", "main:f"});
    liar_ = Git({"hash-object", "-w", "--literally", "-t", "tag", "--stdin"},
                "object " + Rev("main") + "\ntype tree\ntag liar\n\nwrong type\n")
                .substr(0, HexLen());
    dangling_ = Git({"hash-object", "-w", "--literally", "-t", "tag", "--stdin"},
                    "object " + std::string(HexLen(), '1') + "\ntype commit\ntag d\n\nx\n")
                    .substr(0, HexLen());
  }
  // Every object into one pack, or every object loose (also those no ref reaches).
  void Pack() {
    Git({"pack-objects", "-q", "objects/pack/pack"}, ObjectList());
    Git({"prune-packed"});
    ASSERT_EQ(Git({"count-objects"}).substr(0, 10), "0 objects,");
  }
  void Unpack() {
    std::string pack = Git({"pack-objects", "-q", "--stdout"}, ObjectList());
    std::filesystem::remove_all(objects_ + "/pack");
    std::filesystem::create_directory(objects_ + "/pack");
    Git({"unpack-objects", "-q"}, pack);
    ASSERT_EQ(std::filesystem::is_empty(objects_ + "/pack"), true);
  }
  // The first pack index of the database.
  std::string PackIndex() {
    for (const auto& e : std::filesystem::directory_iterator(objects_ + "/pack")) {
      if (e.path().extension() == ".idx") return e.path().string();
    }
    return "";
  }
  std::string ObjectList() {
    return Git({"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"});
  }

  // Every object git has: id -> (type, content).
  std::map<std::string, std::pair<std::string, std::string>> AllObjects() {
    std::string out = Git({"cat-file", "--batch-all-objects", "--batch"});
    std::map<std::string, std::pair<std::string, std::string>> all;
    for (size_t pos = 0; pos < out.size();) {
      size_t nl = out.find('\n', pos);
      std::istringstream head(out.substr(pos, nl - pos));
      std::string id, type;
      size_t size = 0;
      head >> id >> type >> size;
      all[id] = {type, out.substr(nl + 1, size)};
      pos = nl + 1 + size + 1;
    }
    return all;
  }

  void ExpectSameObjectsAsGit() {
    auto all = AllObjects();
    ASSERT_GT(all.size(), 20u);
    GitObjects db(objects_, hs_);
    GitObjects fresh(objects_, hs_);  // Has first, before any TypeOf has kept an answer
    for (const auto& [hex, object] : all) {
      GitObjectType type = GitObjectType::kNone;
      uint64_t size = 0;
      std::string content;
      bool found = false;
      ASSERT_TRUE(fresh.Has(IdOf(hex), &found).ok());
      EXPECT_TRUE(found) << hex;
      ASSERT_TRUE(db.Size(IdOf(hex), &type, &size).ok());
      EXPECT_EQ(GitObjectTypeName(type), object.first) << hex;
      EXPECT_EQ(size, object.second.size()) << hex;
      ASSERT_TRUE(db.Read(IdOf(hex), &type, &content).ok());
      EXPECT_EQ(GitObjectTypeName(type), object.first) << hex;
      EXPECT_EQ(content, object.second) << hex;
    }
  }

  void ExpectPeeling() {
    GitObjects db(objects_, hs_);
    ObjectId peeled{};
    bool ok = false;
    for (const char* tag : {"v1", "v1-outer"}) {
      ASSERT_TRUE(db.Peel(IdOf(Rev(tag)), &peeled, &ok).ok());
      EXPECT_TRUE(ok) << tag;
      EXPECT_EQ(Hex(peeled), Rev(std::string(tag) + "^{}")) << tag;
    }
    ASSERT_TRUE(db.Peel(IdOf(Rev("vblob")), &peeled, &ok).ok());
    EXPECT_TRUE(ok);
    EXPECT_EQ(Hex(peeled), Rev("main:f"));
    ASSERT_TRUE(db.Peel(IdOf(Rev("main")), &peeled, &ok).ok());  // not a tag: itself
    EXPECT_TRUE(ok);
    EXPECT_EQ(Hex(peeled), Rev("main"));
    for (const std::string& bad : {liar_, dangling_, std::string(HexLen(), 'e')}) {
      ASSERT_TRUE(db.Peel(IdOf(bad), &peeled, &ok).ok());
      EXPECT_FALSE(ok) << bad;
    }
  }

  TempDir tmp_{"git-objects"};
  std::string git_, repo_, objects_, liar_, dangling_;
  size_t hs_ = 20;
};

TEST_P(GitObjectsTest, ReadsLooseObjectsAsGitDoes) {
  MakeHistory();
  Unpack();
  ExpectSameObjectsAsGit();
  ExpectPeeling();
}

TEST_P(GitObjectsTest, ReadsPackedObjectsAsGitDoes) {
  MakeHistory();
  Pack();
  ExpectSameObjectsAsGit();
  ExpectPeeling();
}

TEST_P(GitObjectsTest, MissingObjects) {
  MakeHistory();
  GitObjects db(objects_, hs_);
  ObjectId missing = IdOf(std::string(HexLen(), 'e'));
  GitObjectType type = GitObjectType::kCommit;
  uint64_t size = 7;
  std::string content = "x";
  ASSERT_TRUE(db.TypeOf(missing, &type).ok());
  EXPECT_EQ(type, GitObjectType::kNone);
  ASSERT_TRUE(db.Size(missing, &type, &size).ok());
  EXPECT_EQ(size, 0u);
  ASSERT_TRUE(db.Read(missing, &type, &content).ok());
  EXPECT_EQ(type, GitObjectType::kNone);
  EXPECT_EQ(content, "");
  for (bool packed : {false, true}) {
    if (packed) Pack();
    GitObjects fresh(objects_, hs_);
    bool found = true;
    ASSERT_TRUE(fresh.Has(missing, &found).ok());
    EXPECT_FALSE(found) << (packed ? "packed" : "loose");
    found = false;
    ASSERT_TRUE(fresh.Has(IdOf(Rev("main")), &found).ok());
    EXPECT_TRUE(found) << (packed ? "packed" : "loose");
  }
}

TEST_P(GitObjectsTest, AncestryAndAheadBehindAsGit) {
  MakeHistory();
  Pack();
  GitObjects db(objects_, hs_);
  std::vector<std::string> commits;
  for (const char* rev : {"main", "main~1", "main~2", "main~3", "main~4", "side", "side~1"}) {
    commits.push_back(Rev(rev));
  }
  testing::ProcessOptions in_repo;
  in_repo.cwd = repo_;
  for (const std::string& a : commits) {
    for (const std::string& b : commits) {
      bool is = false;
      ASSERT_TRUE(db.IsAncestor(IdOf(a), IdOf(b), &is).ok());
      int git_is =
          testing::RunProcess({git_, "merge-base", "--is-ancestor", a, b}, in_repo).exit_code;
      EXPECT_EQ(is, git_is == 0) << a << " " << b;
      std::string counts = Git({"rev-list", "--left-right", "--count", a + "..." + b});
      for (GitWalkOrder order : {GitWalkOrder::kCommitDate, GitWalkOrder::kGeneration}) {
        size_t ahead = 0, behind = 0;
        ASSERT_TRUE(db.AheadBehind(IdOf(a), IdOf(b), &ahead, &behind, order).ok());
        EXPECT_EQ(std::to_string(ahead) + "\t" + std::to_string(behind) + "\n", counts)
            << a << " " << b;
      }
    }
  }
  size_t ahead = 0, behind = 0;
  EXPECT_EQ(db.AheadBehind(IdOf(Rev("v1")), IdOf(Rev("main")), &ahead, &behind).code(),
            Code::kInvalidArgument);  // a tag is not a commit
}

// Where each object is stored, as git's %(objectsize:disk) and %(deltabase) say: loose files,
// then one pack whose similar blobs are deltas (offset deltas, and reference deltas too).
TEST_P(GitObjectsTest, StorageAsGit) {
  std::string s;
  for (int i = 1; i <= 20; ++i) {
    std::string text;
    for (int line = 0; line < 200; ++line) text += std::to_string(line == i ? -1 : line) + "\n";
    s += Commit("main", i, i > 1 ? std::vector<int>{i - 1} : std::vector<int>{}, i);
    s += "M 100644 inline big\n" + Data(text) + "\n";
  }
  Git({"fast-import", "--quiet"}, s);
  for (const char* how : {"loose", "ofs-delta", "ref-delta"}) {
    Unpack();  // every round starts from loose objects only
    if (std::string(how) != "loose") {
      std::vector<std::string> args{"pack-objects", "-q", "--window=10"};
      if (std::string(how) == "ofs-delta") args.push_back("--delta-base-offset");
      args.push_back("objects/pack/pack");
      Git(args, ObjectList());
      Git({"prune-packed"});
    }
    std::string expected = Git({"cat-file", "--batch-all-objects",
                                "--batch-check=%(objectname) %(objectsize:disk) %(deltabase)"});
    GitObjects db(objects_, hs_);
    std::string got;
    size_t deltas = 0;
    std::istringstream lines(expected);
    for (std::string line; std::getline(lines, line);) {
      uint64_t disk = 0;
      ObjectId base{};
      bool found = false;
      ASSERT_TRUE(db.Storage(IdOf(line.substr(0, HexLen())), &disk, &base, &found).ok());
      EXPECT_TRUE(found);
      got += line.substr(0, HexLen()) + " " + std::to_string(disk) + " " + Hex(base) + "\n";
      deltas += !IsZeroId(base, hs_);
    }
    ASSERT_GT(expected.size(), 0u) << how;
    EXPECT_EQ(got, expected) << how;
    EXPECT_EQ(deltas > 0, std::string(how) != "loose") << how;
  }
  GitObjects db(objects_, hs_);
  uint64_t disk = 1;
  ObjectId base{};
  bool found = true;
  ASSERT_TRUE(db.Storage(IdOf(std::string(HexLen(), 'e')), &disk, &base, &found).ok());
  EXPECT_FALSE(found);
}

// Abbreviations against git's, on enough blobs that four hex digits often collide.
TEST_P(GitObjectsTest, AbbreviatesAsGit) {
  std::string s = "commit refs/heads/main\ncommitter C <c@x> 1700000000 +0000\n" + Data("m\n");
  for (int i = 0; i < 3000; ++i) {
    s += "M 100644 inline f" + std::to_string(i) + "\n" + Data(std::to_string(i) + "\n") + "\n";
  }
  Git({"fast-import", "--quiet"}, s + "\n");
  for (bool loose : {false, true}) {  // fast-import writes a pack
    if (loose) Unpack();
    GitObjects db(objects_, hs_);
    std::istringstream full(Git({"ls-tree", "main"})),
        short4(Git({"ls-tree", "--abbrev=4", "main"}));
    std::string a, b;
    size_t longer = 0;
    while (std::getline(full, a) && std::getline(short4, b)) {
      std::string hex = a.substr(12, HexLen()), want = b.substr(12, b.find('\t') - 12);
      std::string got;
      ASSERT_TRUE(db.Abbreviate(IdOf(hex), 4, &got).ok());
      EXPECT_EQ(got, want) << hex;
      longer += want.size() > 4;
    }
    EXPECT_GT(longer, 10u);  // the test does meet collisions
    // An id the database lacks is made long enough to name nothing: one nibble off an
    // existing one needs every digit.
    std::string hex = full.str().substr(12, HexLen()), got;
    hex.back() = hex.back() == '0' ? '1' : '0';
    ASSERT_TRUE(db.Abbreviate(IdOf(hex), 4, &got).ok());
    EXPECT_EQ(got, hex);
    ASSERT_TRUE(db.Abbreviate(IdOf(hex), 50, &got).ok());
    EXPECT_EQ(got, hex);
    ASSERT_TRUE(db.Abbreviate(IdOf(hex), 0, &got).ok());  // 0: the whole id, as in git
    EXPECT_EQ(got, hex);
    // Missing ids at either end of a fan-out bucket, abbreviated as git's rev-parse --short
    // abbreviates a whole hex id it does not check.
    for (const char* first : {"00", "3a", "7f", "c4", "ff"}) {
      for (char fill : {'0', 'f'}) {
        const std::string missing = first + std::string(HexLen() - 2, fill);
        ASSERT_TRUE(db.Abbreviate(IdOf(missing), 4, &got).ok());
        EXPECT_EQ(got + "\n", Git({"rev-parse", "--short=4", missing})) << missing;
      }
    }
  }
}

// git's automatic abbreviation grows with the packed object count (loose ones do not count).
TEST_P(GitObjectsTest, DefaultAbbrevLengthAsGit) {
  GitObjects db(objects_, hs_);
  size_t len = 0;
  ASSERT_TRUE(db.DefaultAbbrevLength(&len).ok());
  EXPECT_EQ(len, 7u);
  std::string s;
  for (int i = 0; i < 17000; ++i) s += "blob\n" + Data(std::to_string(i) + "\n") + "\n";
  s += "commit refs/heads/main\ncommitter C <c@x> 1700000000 +0000\n" + Data("m\n") + "\n";
  Git({"fast-import", "--quiet"}, s);  // one pack of 17001 objects
  const size_t git_len = Git({"rev-parse", "--short", "main"}).size() - 1;
  EXPECT_EQ(git_len, 8u);
  ASSERT_TRUE(db.DefaultAbbrevLength(&len).ok());
  EXPECT_EQ(len, git_len);
  Git({"multi-pack-index", "write"});  // counted once, through the multi-pack index
  ASSERT_TRUE(db.DefaultAbbrevLength(&len).ok());
  EXPECT_EQ(len, 8u);
  // A database that borrows these objects (objects/info/alternates) counts and reads them.
  std::string borrower = tmp_.Subdir("borrower");
  tmp_.Subdir("borrower/info");
  testutil::WriteFileOrDie(borrower + "/info/alternates", "# comment\n../repo.git/objects\n");
  GitObjects other(borrower, hs_);
  ASSERT_TRUE(other.DefaultAbbrevLength(&len).ok());
  EXPECT_EQ(len, 8u);
  GitObjectType type = GitObjectType::kNone;
  ASSERT_TRUE(other.TypeOf(IdOf(Rev("main")), &type).ok());
  EXPECT_EQ(type, GitObjectType::kCommit);
}

// A pack big enough that its fan-out buckets hold dozens of ids, where the index lookup
// interpolates (store/git/objects/pack.cc): every object is found, and ids one bit away
// from a present one (first, middle and last byte) are not.
TEST_P(GitObjectsTest, FindsEveryObjectOfABigPackAndNoNeighbour) {
  std::string s;
  for (int i = 0; i < 17000; ++i) s += "blob\n" + Data("blob " + std::to_string(i) + "\n") + "\n";
  Git({"fast-import", "--quiet"}, s);  // one pack of 17000 blobs
  std::istringstream ids(ObjectList());
  GitObjects db(objects_, hs_);
  size_t count = 0;
  for (std::string hex; std::getline(ids, hex);) {
    ObjectId id = IdOf(hex);
    GitObjectType type = GitObjectType::kNone;
    ASSERT_TRUE(db.TypeOf(id, &type).ok());
    ASSERT_EQ(type, GitObjectType::kBlob) << hex;
    for (size_t byte : {size_t(1), size_t(9), hs_ - 1}) {
      ObjectId near = id;
      near[byte] ^= 1;
      ASSERT_TRUE(db.TypeOf(near, &type).ok());
      EXPECT_EQ(type, GitObjectType::kNone) << hex << " with byte " << byte << " changed";
      bool found = true;
      ASSERT_TRUE(db.Has(near, &found).ok());
      EXPECT_FALSE(found) << hex << " with byte " << byte << " changed";
    }
    ++count;
  }
  EXPECT_EQ(count, 17000u);
}

// A history whose file grows by a line per commit, packed the ways git packs: `repack -adf`
// (offset deltas, chains as deep as git makes them) and pack-objects --no-delta-base-offset
// (reference deltas). Every object reads as git reads it, and git did write deltas.
TEST_P(GitObjectsTest, ReadsDeltasAsGitDoes) {
  std::string s, file;
  for (int i = 1; i <= 40; ++i) {
    for (int line = 0; line < 20; ++line) file += "line " + std::to_string(i * 100 + line) + "\n";
    const std::string mark = std::to_string(i);
    s += "commit refs/heads/grow\nmark :" + mark + "\n";
    s += "committer C <c@x> " + std::to_string(1700000000 + i) + " +0000\n";
    s += Data("c" + mark + "\n");
    if (i > 1) s += "from :" + std::to_string(i - 1) + "\n";
    s += "M 100644 inline f\n" + Data(file) + "\n";
  }
  Git({"fast-import", "--quiet"}, s);
  Git({"tag", "-a", "-m", "annotated", "vgrow", "grow~3"});
  MakeHistory();  // merges and tags on other branches
  Git({"repack", "-adfq", "--depth=50", "--window=50"});
  std::string verify = Git({"verify-pack", "-v", PackIndex()});
  EXPECT_NE(verify.find("chain length = 2"), std::string::npos) << verify;
  ExpectSameObjectsAsGit();
  ExpectPeeling();
  // Reference deltas name their base by id.
  std::string pack =
      Git({"pack-objects", "-q", "--stdout", "--no-delta-base-offset"}, ObjectList());
  std::filesystem::remove_all(objects_ + "/pack");
  std::filesystem::create_directory(objects_ + "/pack");
  Git({"index-pack", "--stdin", "objects/pack/pack-refdelta.pack"}, pack);
  EXPECT_NE(Git({"verify-pack", "-v", PackIndex()}).find("chain length = 2"), std::string::npos);
  ExpectSameObjectsAsGit();
  ExpectPeeling();
}

// A missing objects directory: what needs the database fails saying why, in one line;
// existence and types find nothing.
TEST_P(GitObjectsTest, SaysWhyAMissingDatabaseIsUnavailable) {
  GitObjects missing(tmp_.path() + "/no-such-dir", hs_);
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.reason().find("no-such-dir"), std::string::npos) << missing.reason();
  EXPECT_EQ(missing.reason().find('\n'), std::string::npos);
  GitObjectType type = GitObjectType::kCommit;
  std::string content;
  Status s = missing.Read(ObjectId{}, &type, &content);
  EXPECT_EQ(s.code(), Code::kIoError);
  EXPECT_EQ(s.message(), missing.reason());
  type = GitObjectType::kCommit;
  ASSERT_TRUE(missing.TypeOf(ObjectId{}, &type).ok());
  EXPECT_EQ(type, GitObjectType::kNone);
}

INSTANTIATE_TEST_SUITE_P(HashFormats, GitObjectsTest, ::testing::Values(size_t(20), size_t(32)),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return info.param == 20 ? std::string("sha1") : std::string("sha256");
                         });

}  // namespace
}  // namespace reftab

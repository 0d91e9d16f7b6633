// Hostile and damaged object databases (store/git/objects/pack.h, loose.h): packs built by
// hand with reference-delta loops, self-referencing offset deltas, huge sizes and bad deltas;
// then packs and loose objects written by the real git, truncated and with bits flipped at
// random (a fixed seed). Every lookup answers or fails with Corruption or IoError naming the
// file (and, in a pack, the offset): no crash, no hang, for both hash sizes.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "store/file.h"
#include "store/git/objects/objects.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

std::string Be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

std::string Deflate(const std::string& s) {
  uLongf len = compressBound(s.size());
  std::string out(len, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &len,
                      reinterpret_cast<const Bytef*>(s.data()), s.size(), 6),
            Z_OK);
  out.resize(len);
  return out;
}

// A pack entry's header: type and (inflated) size.
std::string EntryHeader(int type, uint64_t size) {
  std::string h(1, char((type << 4) | (size & 0x0f)));
  for (size = size >> 4; size; size >>= 7) {
    h.back() = char(h.back() | 0x80);
    h += char(size & 0x7f);
  }
  return h;
}

// A delta's size header: base size, result size.
std::string DeltaSizesBytes(uint64_t base, uint64_t result) {
  std::string s;
  for (uint64_t v : {base, result}) {
    do {
      s += char((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    } while (v);
  }
  return s;
}

// Writes `entries` (id, raw entry bytes) as a pack and its version-2 index under `dir`/pack;
// offsets[i] receives where entry i starts. Checksums are zeros: they are not read.
struct HandPack {
  size_t hs;
  std::vector<std::pair<ObjectId, std::string>> entries;
  std::vector<uint64_t> offsets;

  void Write(const std::string& objects) {
    std::filesystem::create_directories(objects + "/pack");
    std::string pack = "PACK" + Be32(2) + Be32(uint32_t(entries.size()));
    offsets.clear();
    for (const auto& [id, bytes] : entries) {
      offsets.push_back(pack.size());
      pack += bytes;
    }
    pack += std::string(hs, '\0');
    std::vector<size_t> order(entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return entries[a].first < entries[b].first; });
    std::string idx = "\377tOc" + Be32(2);
    for (int b = 0; b < 256; ++b) {
      idx += Be32(uint32_t(std::count_if(entries.begin(), entries.end(),
                                         [&](const auto& e) { return e.first[0] <= b; })));
    }
    for (size_t i : order) idx.append(reinterpret_cast<const char*>(entries[i].first.data()), hs);
    for (size_t i = 0; i < order.size(); ++i) idx += Be32(0);  // CRCs
    for (size_t i : order) idx += Be32(uint32_t(offsets[i]));
    idx += std::string(2 * hs, '\0');
    testutil::WriteFileOrDie(objects + "/pack/pack-hand.pack", pack);
    testutil::WriteFileOrDie(objects + "/pack/pack-hand.idx", idx);
  }
};

ObjectId IdWith(uint8_t first, uint8_t last) {
  ObjectId id{};
  id[0] = first;
  id[19] = last;
  return id;
}

class HandPackTest : public ::testing::TestWithParam<size_t> {
 protected:
  // Reads `id` through a fresh database; the status.
  Status ReadOne(const ObjectId& id, std::string* content, GitObjectType* type) {
    GitObjects db(objects_, GetParam());
    return db.Read(id, type, content);
  }
  void ExpectCorruptAt(const Status& s, const std::string& offset) {
    EXPECT_EQ(s.code(), Code::kCorruption) << s.message();
    EXPECT_NE(s.message().find("pack-hand.pack: object at offset " + offset), std::string::npos)
        << s.message();
  }

  TempDir tmp_{"git-pack-hostile"};
  std::string objects_ = tmp_.Subdir("objects");
  HandPack pack_{GetParam(), {}, {}};
};

TEST_P(HandPackTest, ReadsWholeObjectsAndDeltas) {
  const std::string base = "hello, hostile world\n";
  // Copy the first 7 bytes of the base, then insert "there\n".
  const std::string delta = DeltaSizesBytes(base.size(), 13) + "\x90\x07" + "\x06there\n";
  const std::string whole = EntryHeader(3, base.size()) + Deflate(base);
  ASSERT_LT(whole.size(), 128u);  // the offset back to it fits one byte
  pack_.entries.push_back({IdWith(1, 1), whole});
  pack_.entries.push_back(
      {IdWith(2, 2), EntryHeader(6, delta.size()) + char(whole.size()) + Deflate(delta)});
  pack_.Write(objects_);
  std::string content;
  GitObjectType type = GitObjectType::kNone;
  ASSERT_TRUE(ReadOne(IdWith(1, 1), &content, &type).ok());
  EXPECT_EQ(content, base);
  Status s = ReadOne(IdWith(2, 2), &content, &type);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(type, GitObjectType::kBlob);
  EXPECT_EQ(content, "hello, there\n");
  GitObjects db(objects_, GetParam());
  uint64_t size = 0;
  ASSERT_TRUE(db.Size(IdWith(2, 2), &type, &size).ok());
  EXPECT_EQ(size, 13u);
}

TEST_P(HandPackTest, ReferenceDeltaLoopIsAnError) {
  const std::string delta = DeltaSizesBytes(1, 1) + "\x01x";
  auto ref = [&](const ObjectId& base) {
    return EntryHeader(7, delta.size()) +
           std::string(reinterpret_cast<const char*>(base.data()), GetParam()) + Deflate(delta);
  };
  pack_.entries.push_back({IdWith(1, 1), ref(IdWith(2, 2))});
  pack_.entries.push_back({IdWith(2, 2), ref(IdWith(1, 1))});
  pack_.Write(objects_);
  std::string content;
  GitObjectType type = GitObjectType::kNone;
  Status s = ReadOne(IdWith(1, 1), &content, &type);
  ExpectCorruptAt(s, "12");
  EXPECT_NE(s.message().find("delta chain too long"), std::string::npos) << s.message();
  GitObjects db(objects_, GetParam());
  EXPECT_EQ(db.TypeOf(IdWith(2, 2), &type).code(), Code::kCorruption);
}

TEST_P(HandPackTest, OffsetDeltaOntoItselfIsAnError) {
  const std::string delta = DeltaSizesBytes(1, 1) + "\x01x";
  pack_.entries.push_back({IdWith(1, 1), EntryHeader(6, delta.size()) + '\0' + Deflate(delta)});
  pack_.Write(objects_);
  std::string content;
  GitObjectType type = GitObjectType::kNone;
  ExpectCorruptAt(ReadOne(IdWith(1, 1), &content, &type), "12");
}

TEST_P(HandPackTest, HugeSizesAreErrors) {
  const std::string small = "tiny";
  const std::string huge = EntryHeader(3, uint64_t(1) << 40) + Deflate(small);
  const std::string whole = EntryHeader(3, small.size()) + Deflate(small);
  // A delta of `whole` (just before it) announcing a result of 2^40 bytes.
  const std::string delta = DeltaSizesBytes(small.size(), uint64_t(1) << 40) + "\x04tiny";
  ASSERT_LT(whole.size(), 128u);
  pack_.entries.push_back({IdWith(1, 1), huge});
  pack_.entries.push_back({IdWith(2, 2), whole});
  pack_.entries.push_back(
      {IdWith(3, 3), EntryHeader(6, delta.size()) + char(whole.size()) + Deflate(delta)});
  pack_.Write(objects_);
  std::string content;
  GitObjectType type = GitObjectType::kNone;
  Status s = ReadOne(IdWith(1, 1), &content, &type);
  ExpectCorruptAt(s, "12");
  EXPECT_NE(s.message().find("too large"), std::string::npos) << s.message();
  s = ReadOne(IdWith(3, 3), &content, &type);
  ExpectCorruptAt(s, std::to_string(pack_.offsets[2]));
  EXPECT_NE(s.message().find("too large"), std::string::npos) << s.message();
}

TEST_P(HandPackTest, DeltaAgainstTheWrongBaseIsAnError) {
  const std::string base = "base";
  const std::string delta = DeltaSizesBytes(99, 4) + "\x80";  // claims a 99-byte base
  const std::string whole = EntryHeader(3, base.size()) + Deflate(base);
  ASSERT_LT(whole.size(), 128u);
  pack_.entries.push_back({IdWith(1, 1), whole});
  pack_.entries.push_back(
      {IdWith(2, 2), EntryHeader(6, delta.size()) + char(whole.size()) + Deflate(delta)});
  pack_.Write(objects_);
  std::string content;
  GitObjectType type = GitObjectType::kNone;
  ExpectCorruptAt(ReadOne(IdWith(2, 2), &content, &type), std::to_string(pack_.offsets[1]));
}

INSTANTIATE_TEST_SUITE_P(HashSizes, HandPackTest, ::testing::Values(size_t(20), size_t(32)));

// Packs and loose objects of the real git, damaged at random.
class DamagedDatabaseTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    std::string why;
    auto git = testing::FindReftableGit(&why);
    if (!git) REFTAB_SKIP_WITHOUT_GIT(why);
    git_ = *git;
    repo_ = tmp_.Subdir("repo.git");
    Git({"init", "-q", "--bare",
         std::string("--object-format=") + (GetParam() == 32 ? "sha256" : "sha1"), repo_});
    std::string s, file;
    for (int i = 1; i <= 12; ++i) {
      file += "line " + std::to_string(i) + " of a file that grows\n";
      s += "commit refs/heads/main\ncommitter C <c@x> 1700000000 +0000\ndata 3\nc" +
           std::to_string(i % 10) + "\n";
      s += "M 100644 inline f\ndata " + std::to_string(file.size()) + "\n" + file + "\n";
    }
    Git({"fast-import", "--quiet"}, s);
    Git({"tag", "-a", "-m", "annotated", "v1", "main~2"});
    Git({"repack", "-adfq"});
    std::istringstream ids(Git({"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}));
    for (std::string hex; std::getline(ids, hex);) {
      ObjectId id{};
      ASSERT_TRUE(ParseHexId(hex, GetParam(), &id));
      ids_.push_back(id);
    }
    ASSERT_GT(ids_.size(), 30u);
  }

  std::string Git(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), git_);
    testing::ProcessOptions opts;
    opts.cwd = repo_;
    opts.input = input;
    opts.env = {{"GIT_COMMITTER_NAME", "C"},
                {"GIT_COMMITTER_EMAIL", "c@x"},
                {"GIT_COMMITTER_DATE", "1700000100 +0100"}};
    testing::ProcessResult r = testing::RunProcess(args, opts);
    EXPECT_EQ(r.exit_code, 0) << args[1] << ": " << r.err;
    return r.out;
  }

  // Asks everything of every object in `objects`; each answer is a value or an error that
  // names a file of the database.
  void AskEverything(const std::string& objects, const std::string& what) {
    GitObjects db(objects, GetParam());
    for (const ObjectId& id : ids_) {
      GitObjectType type = GitObjectType::kNone;
      uint64_t size = 0;
      std::string content, hex;
      ObjectId peeled{};
      bool ok = false;
      for (Status s :
           {db.TypeOf(id, &type), db.Size(id, &type, &size), db.Read(id, &type, &content),
            db.Peel(id, &peeled, &ok), db.Abbreviate(id, 4, &hex)}) {
        if (s.ok()) continue;
        ++errors_;
        EXPECT_TRUE(s.code() == Code::kCorruption || s.code() == Code::kIoError) << what;
        EXPECT_NE(s.message().find(objects), std::string::npos) << what << ": " << s.message();
      }
    }
  }

  TempDir tmp_{"git-damaged"};
  std::string git_, repo_;
  std::vector<ObjectId> ids_;
  size_t errors_ = 0;  // errors met: the damage did reach the reader
};

TEST_P(DamagedDatabaseTest, TruncatedAndFlippedPacks) {
  std::string pack_name, idx_name;
  for (const auto& e : std::filesystem::directory_iterator(repo_ + "/objects/pack")) {
    if (e.path().extension() == ".pack") pack_name = e.path().filename();
    if (e.path().extension() == ".idx") idx_name = e.path().filename();
  }
  ASSERT_FALSE(pack_name.empty());
  auto read = [](const std::string& p) { return *PosixFileSystem()->ReadFile(p); };
  const std::string pack = read(repo_ + "/objects/pack/" + pack_name);
  const std::string idx = read(repo_ + "/objects/pack/" + idx_name);
  std::mt19937 rng(GetParam());
  for (int round = 0; round < 150; ++round) {
    std::string p = pack, i = idx;
    std::string& victim = round % 3 == 2 ? i : p;
    if (round % 2 == 0) {
      victim.resize(rng() % victim.size());
    } else {
      for (int flips = 1 + rng() % 3; flips > 0; --flips) {
        victim[rng() % victim.size()] ^= char(1 << (rng() % 8));
      }
    }
    const std::string objects = tmp_.Subdir("round" + std::to_string(round));
    std::filesystem::create_directory(objects + "/pack");
    testutil::WriteFileOrDie(objects + "/pack/" + pack_name, p);
    testutil::WriteFileOrDie(objects + "/pack/" + idx_name, i);
    AskEverything(objects, "round " + std::to_string(round));
  }
  EXPECT_GT(errors_, 0u);
}

TEST_P(DamagedDatabaseTest, TruncatedAndFlippedLooseObjects) {
  const std::string pack = Git({"pack-objects", "-q", "--stdout", "--all"});
  std::filesystem::remove_all(repo_ + "/objects/pack");
  Git({"unpack-objects", "-q"}, pack);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(repo_ + "/objects")) {
    if (e.is_regular_file() && e.path().parent_path().filename().string().size() == 2) {
      files.push_back(e.path());
    }
  }
  ASSERT_GT(files.size(), 30u);
  std::mt19937 rng(GetParam() + 1);
  for (int round = 0; round < 30; ++round) {
    const std::string objects = tmp_.Subdir("round" + std::to_string(round));
    for (const auto& f : files) {
      std::string data = *PosixFileSystem()->ReadFile(f.string());
      if (round % 2 == 0) {
        data.resize(rng() % data.size());
      } else {
        data[rng() % data.size()] ^= char(1 << (rng() % 8));
      }
      const std::string dir = objects + "/" + f.parent_path().filename().string();
      std::filesystem::create_directories(dir);
      testutil::WriteFileOrDie(dir + "/" + f.filename().string(), data);
    }
    AskEverything(objects, "round " + std::to_string(round));
  }
  EXPECT_GT(errors_, 0u);
}

INSTANTIATE_TEST_SUITE_P(HashSizes, DamagedDatabaseTest, ::testing::Values(size_t(20), size_t(32)));

}  // namespace
}  // namespace reftab

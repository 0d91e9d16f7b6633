// GitRepo syncs tables and tables.list exactly when git would sync refs: when core.fsync
// names a component that includes them (reference, committed, added, all, or a prefix of
// one, as git matches names), and not by default, since git's default leaves refs out.
// A caller's Durability::kFull, reftab's own stronger mode, is kept.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/git/repo.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

// The durability GitRepo::Open gives a repository whose core.fsync is `fsync` (unset if
// nullopt), for a caller asking for `asked`.
Durability DurabilityFor(std::optional<std::string> fsync, Durability asked) {
  testutil::TempDir tmp("git-fsync");
  const std::string g = tmp.Subdir("repo.git");
  tmp.Subdir("repo.git/reftable");
  std::string config = "[core]\n\trepositoryformatversion = 1\n\tbare = true\n";
  if (fsync) config += "\tfsync = " + *fsync + "\n";
  config += "[extensions]\n\trefstorage = reftable\n";
  testutil::WriteFileOrDie(g + "/config", config);
  testutil::WriteFileOrDie(g + "/HEAD", "ref: refs/heads/.invalid\n");
  StackOptions base;
  base.durability = asked;
  auto repo = GitRepo::Open(g, base);
  EXPECT_TRUE(repo.ok()) << repo.status().ToString();
  return repo.ok() ? (*repo)->main_stack().options().durability : Durability::kFull;
}

TEST(GitFsyncTest, RefsAreSyncedExactlyWhenCoreFsyncSaysSo) {
  struct Case {
    std::optional<std::string> fsync;
    Durability want;
  };
  const Case cases[] = {
      {std::nullopt, Durability::kNone},  // git's default: objects and pack data, not refs
      {"reference", Durability::kGit},
      {"committed", Durability::kGit},
      {"added", Durability::kGit},
      {"all", Durability::kGit},
      {"ref", Durability::kGit},  // a prefix of "reference"
      {"objects,index", Durability::kNone},
      {"pack, reference", Durability::kGit},
      {"-reference", Durability::kNone},
      {"all,-reference", Durability::kGit},  // additions win over removals, as in git
      {"none", Durability::kNone},
      {"none,reference", Durability::kGit},
      {"", Durability::kNone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fsync.value_or("(unset)"));
    EXPECT_EQ(DurabilityFor(c.fsync, Durability::kGit), c.want);
    EXPECT_EQ(DurabilityFor(c.fsync, Durability::kNone), c.want) << "the config decides";
    EXPECT_EQ(DurabilityFor(c.fsync, Durability::kFull), Durability::kFull);
  }
}

}  // namespace
}  // namespace reftab

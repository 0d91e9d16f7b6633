// The "did you mean" of an unknown command (cli/similar_commands.h): git's weighted edit
// distance and its floor, with the suggestions git 2.55 prints for the same typos among
// the commands both tools have.
#include "cli/similar_commands.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace reftab::cli {
namespace {

using Names = std::vector<std::string>;

TEST(SuggestionDistanceTest, WeighsEachEditAsGitDoes) {
  EXPECT_EQ(SuggestionDistance("reflog", "reflog"), 0);
  EXPECT_EQ(SuggestionDistance("reflgo", "reflog"), 0);   // a swap is free
  EXPECT_EQ(SuggestionDistance("reflg", "reflog"), 1);    // one character missing
  EXPECT_EQ(SuggestionDistance("refloog", "reflog"), 3);  // one character too many
  EXPECT_EQ(SuggestionDistance("reflug", "reflog"), 2);   // one character wrong
  EXPECT_EQ(SuggestionDistance("", "dump"), 4);           // all inserted
  EXPECT_EQ(SuggestionDistance("dump", ""), 12);          // all deleted
  EXPECT_EQ(SuggestionDistance("show-refs", "show-ref"), 3);
}

TEST(SimilarCommandsTest, SuggestsTheClosestWithinTheFloor) {
  const std::vector<std::string_view> cmds = {"dump",   "demo",       "for-each-ref", "help",
                                              "reflog", "refs",       "rev-parse",    "show-ref",
                                              "stats",  "update-ref", "verify"};
  EXPECT_EQ(SimilarCommands("show-refs", cmds), Names{"show-ref"});
  EXPECT_EQ(SimilarCommands("for-each", cmds), Names{"for-each-ref"});  // 4 inserted
  EXPECT_EQ(SimilarCommands("reflg", cmds), Names{"reflog"});
  EXPECT_EQ(SimilarCommands("d", cmds), (Names{"demo", "dump"}));  // a tie, in name order
  EXPECT_EQ(SimilarCommands("xyzzy", cmds), Names{});              // nothing close enough
  // for-each-ref is 9 insertions away; reflog 5 edits (2 inserted, 1 inserted, 1 changed).
  EXPECT_EQ(SimilarCommands("for", cmds), Names{"reflog"});
  EXPECT_EQ(SimilarCommands("x", {}), Names{});
}

}  // namespace
}  // namespace reftab::cli

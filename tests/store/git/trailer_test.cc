// store/git/trailer.h: which paragraph is the trailer block and what each option prints. The
// expected texts were checked against git 2.55's %(trailers...) of for-each-ref.
#include "store/git/trailer.h"

#include <gtest/gtest.h>

#include <string>

namespace reftab {
namespace {

const std::string kMessage =
    "subject\n"
    "\n"
    "body\n"
    "\n"
    "Signed-off-by: A <a@example.com>\n"
    "Reviewed-by: R\n"
    "  folded\n"
    "Acked-by: C\n";

GitTrailerOptions Options(std::string_view arg) {
  GitTrailerOptions o;
  std::optional<std::string> invalid;
  EXPECT_TRUE(ParseTrailerOptions(arg, &o, &invalid)) << arg;
  return o;
}

std::string Format(std::string_view message, std::string_view arg,
                   const GitTrailerConfig& config = {}) {
  return FormatTrailers(message, Options(arg), config);
}

TEST(GitTrailerTest, BlockUnchangedWithoutOptions) {
  EXPECT_EQ(Format(kMessage, ""),
            "Signed-off-by: A <a@example.com>\nReviewed-by: R\n  folded\nAcked-by: C\n");
}

TEST(GitTrailerTest, UnfoldKeyAndValueOptions) {
  EXPECT_EQ(Format(kMessage, "unfold"),
            "Signed-off-by: A <a@example.com>\nReviewed-by: R folded\nAcked-by: C\n");
  EXPECT_EQ(Format(kMessage, "key=reviewed-by:,valueonly,unfold"), "R folded\n");
  EXPECT_EQ(Format(kMessage, "keyonly,separator=%x2C"), "Signed-off-by,Reviewed-by,Acked-by");
  EXPECT_EQ(Format(kMessage, "key=Acked-by,key_value_separator=%n"), "Acked-by\nC\n");
}

TEST(GitTrailerTest, NoBlockWhenTheLastParagraphIsProse) {
  EXPECT_EQ(Format("subject\n\nKey: value\nnot a trailer\n", ""), "");
  EXPECT_EQ(Format("only a subject: with a colon\n", ""), "");
}

TEST(GitTrailerTest, GitGeneratedTrailerAllowsProse) {
  // One recognised trailer among a quarter or more of trailers makes the block.
  std::string m = "s\n\nSigned-off-by: A\nprose\nmore prose\nKey: v\n";
  EXPECT_EQ(Format(m, "only"), "Signed-off-by: A\nKey: v\n");
  EXPECT_EQ(Format(m, ""), "Signed-off-by: A\nprose\nmore prose\nKey: v\n");
}

TEST(GitTrailerTest, ConfiguredSeparatorsAndKeys) {
  GitConfig config;
  config.Add({"trailer.separators", std::string(":#"), "", 0, ConfigScope::kLocal});
  config.Add({"trailer.sob.key", std::string("Signed-off-by"), "", 0, ConfigScope::kLocal});
  GitTrailerConfig c = ReadTrailerConfig(config);
  EXPECT_EQ(c.separators, ":#");
  ASSERT_EQ(c.items.size(), 1u);
  // "Bug #12" is token "Bug", value "12", printed with the first separator.
  EXPECT_EQ(Format("s\n\nBug #12\nsob: A\n", "only", c), "Bug: 12\nSigned-off-by: A\n");
}

TEST(GitTrailerTest, CommentsAndScissorsEndTheMessage) {
  std::string m = "s\n\nKey: v\n# a comment\n";
  EXPECT_EQ(Format(m, ""), "Key: v\n");
  std::string cut =
      "s\n\nKey: v\n# ------------------------ >8 ------------------------\nOther: x\n";
  EXPECT_EQ(Format(cut, "only"), "Key: v\n");
}

TEST(GitTrailerTest, OptionErrorsNameWhatGitNames) {
  GitTrailerOptions o;
  std::optional<std::string> invalid;
  EXPECT_FALSE(ParseTrailerOptions("key", &o, &invalid));
  EXPECT_FALSE(invalid.has_value());  // "expected %(trailers:key=<value>)"
  EXPECT_FALSE(ParseTrailerOptions("unfold,bogus=1,only", &o, &invalid));
  EXPECT_EQ(invalid, "bogus=1");
  // A bad boolean is consumed before the next option is tried, as in git.
  EXPECT_FALSE(ParseTrailerOptions("only=maybe", &o, &invalid));
  EXPECT_EQ(invalid, "");
  GitTrailerOptions p;
  EXPECT_TRUE(ParseTrailerOptions("only=maybe,unfold", &p, &invalid));
  EXPECT_TRUE(p.unfold);
}

}  // namespace
}  // namespace reftab

// cli/git_options.h: git's parse-options rules (what tests/cli/git_compare_refs.sh checks
// against git byte for byte, here without a git): bundles, values, negation, abbreviations,
// operands anywhere, "--", and the exit statuses of errors and -h.
#include "cli/git_options.h"

#include <gtest/gtest.h>

namespace reftab::cli {
namespace {

struct Parsed {
  bool quiet = false, verify = false, verbose = false;
  std::optional<std::string> message;
  std::optional<std::string> hash;
  bool hash_seen = false;
  Args operands;
};

std::optional<int> Parse(const Args& args, Parsed* p) {
  GitUsage u;
  u.lines = {"test [-q] [--verify] [-m <msg>] [--hash[=<n>]]"};
  u.options = {FlagOption('q', "quiet", "quiet", &p->quiet),
               FlagOption(0, "verify", "verify", &p->verify),
               FlagOption(0, "verbose", "verbose", &p->verbose)};
  GitOption m;
  m.short_name = 'm';
  m.arg = GitOption::Arg::kRequired;
  m.arg_help = "msg";
  m.set = [p](bool, std::optional<std::string_view> v) {
    p->message = std::string(*v);
    return std::string();
  };
  u.options.push_back(m);
  GitOption h;
  h.short_name = 's';
  h.long_name = "hash";
  h.arg = GitOption::Arg::kOptional;
  h.arg_help = "n";
  h.help = "hash";
  h.set = [p](bool, std::optional<std::string_view> v) {
    p->hash_seen = true;
    if (v) p->hash = std::string(*v);
    return std::string();
  };
  u.options.push_back(h);
  return ParseGitOptions(args, u, &p->operands);
}

TEST(GitOptionsTest, BundlesValuesAndOperandsAnywhere) {
  Parsed p;
  EXPECT_FALSE(Parse({"a", "-qmhello", "b", "--verify"}, &p));
  EXPECT_TRUE(p.quiet);
  EXPECT_TRUE(p.verify);
  EXPECT_EQ(p.message, "hello");
  EXPECT_EQ(p.operands, (Args{"a", "b"}));
  Parsed q;
  EXPECT_FALSE(Parse({"-m", "x y", "--hash=7", "--", "--verify"}, &q));
  EXPECT_EQ(q.message, "x y");
  EXPECT_EQ(q.hash, "7");
  EXPECT_FALSE(q.verify);
  EXPECT_EQ(q.operands, (Args{"--verify"}));
}

TEST(GitOptionsTest, OptionalValuesAttachOnly) {
  Parsed p;
  EXPECT_FALSE(Parse({"--hash", "7"}, &p));
  EXPECT_TRUE(p.hash_seen);
  EXPECT_FALSE(p.hash);
  EXPECT_EQ(p.operands, (Args{"7"}));
  Parsed q;
  EXPECT_FALSE(Parse({"-s12"}, &q));
  EXPECT_EQ(q.hash, "12");
}

TEST(GitOptionsTest, NegationAndUniqueAbbreviations) {
  Parsed p;
  EXPECT_FALSE(Parse({"-q", "--no-quiet", "--verif", "--qu"}, &p));
  EXPECT_TRUE(p.verify);
  EXPECT_TRUE(p.quiet);
  Parsed q;
  EXPECT_EQ(Parse({"--ver"}, &q), 129);  // --verify or --verbose
  EXPECT_EQ(Parse({"--bogus"}, &q), 129);
  EXPECT_EQ(Parse({"-x"}, &q), 129);
  EXPECT_EQ(Parse({"-m"}, &q), 129);         // requires a value
  EXPECT_EQ(Parse({"--quiet=1"}, &q), 129);  // takes no value
  EXPECT_EQ(Parse({"-verify"}, &q), 129);    // "did you mean `--verify`"
}

TEST(GitOptionsTest, HelpAloneExitsZero) {
  Parsed p;
  testing::internal::CaptureStdout();
  EXPECT_EQ(Parse({"-h"}, &p), 0);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("usage: test [-q]", 0), 0u) << out;
  EXPECT_NE(out.find("    -q, --[no-]quiet      quiet\n"), std::string::npos) << out;
  EXPECT_NE(out.find("    -s, --[no-]hash[=<n>] hash\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace reftab::cli

// cli/git_options.h: git's parse-options rules (what tests/cli/git_compare_refs.sh checks
// against git byte for byte, here without a git): bundles, values, negation, abbreviations,
// operands anywhere, "--", and the exit statuses of errors and -h.
#include "cli/git_options.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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

// The kinds for-each-ref needs: integers (git's OPT_INTEGER), values after '=' only, and a
// value defaulting when it is the last argument; with git's messages on stderr.
struct Kinds {
  int64_t count = -1;
  bool shell = false;
  std::vector<std::string> contains;
  Args operands;
};

GitUsage KindsUsage(Kinds* k) {
  GitUsage u;
  u.lines = {"test"};
  u.options = {FlagOption('s', "shell", "shell", &k->shell),
               IntegerOption(0, "count", "n", "count", &k->count)};
  GitOption color;
  color.long_name = "color";
  color.arg = GitOption::Arg::kOptional;
  color.set = [](bool, std::optional<std::string_view>) { return std::string(); };
  u.options.push_back(color);
  GitOption contains;
  contains.long_name = "contains";
  contains.arg = GitOption::Arg::kLastArgDefault;
  contains.arg_help = "commit";
  contains.negatable = false;
  contains.set = [k](bool, std::optional<std::string_view> v) {
    k->contains.emplace_back(v.value_or("HEAD"));
    return std::string();
  };
  u.options.push_back(contains);
  return u;
}

// The first line git's parser writes on stderr for `args`, and its status.
std::pair<std::optional<int>, std::string> KindsError(const Args& args) {
  Kinds k;
  testing::internal::CaptureStderr();
  std::optional<int> rc = ParseGitOptions(args, KindsUsage(&k), &k.operands);
  std::string err = testing::internal::GetCapturedStderr();
  return {rc, err.substr(0, err.find('\n'))};
}

TEST(GitOptionsTest, IntegersOptionalAndLastArgDefault) {
  Kinds k;
  EXPECT_FALSE(ParseGitOptions({"--cou=2k", "x", "-s", "--contains", "v", "--", "-y"},
                               KindsUsage(&k), &k.operands));
  EXPECT_EQ(k.count, 2048);
  EXPECT_TRUE(k.shell);
  EXPECT_EQ(k.contains, (std::vector<std::string>{"v"}));
  EXPECT_EQ(k.operands, (Args{"x", "-y"}));
  Kinds last;
  EXPECT_FALSE(ParseGitOptions({"--no-count", "--contains"}, KindsUsage(&last), &last.operands));
  EXPECT_EQ(last.count, 0);
  EXPECT_EQ(last.contains, (std::vector<std::string>{"HEAD"}));
}

TEST(GitOptionsTest, GitMessagesForTheKinds) {
  using R = std::pair<std::optional<int>, std::string>;
  EXPECT_EQ(KindsError({"--co"}),
            R(129, "error: ambiguous option: co (could be --color or --contains)"));
  EXPECT_EQ(KindsError({"--count"}), R(129, "error: option `count' requires a value"));
  EXPECT_EQ(KindsError({"--count="}), R(129, "error: option `count' expects a numerical value"));
  EXPECT_EQ(KindsError({"--count=1x"}),
            R(129, "error: option `count' expects an integer value with an optional k/m/g suffix"));
  EXPECT_EQ(KindsError({"--count=3g"}),
            R(129, "error: value 3g for option `count' not in range [-2147483648,2147483647]"));
  EXPECT_EQ(KindsError({"--shell=1"}), R(129, "error: option `shell' takes no value"));
  EXPECT_EQ(KindsError({"-x"}), R(129, "error: unknown switch `x'"));
  EXPECT_EQ(KindsError({"-count"}), R(129, "error: did you mean `--count` (with two dashes)?"));
  EXPECT_EQ(KindsError({"--no-shell", "--no-contains"}),
            R(129, "error: unknown option `no-contains'"));
}

TEST(GitOptionsTest, GroupsAreBlankLines) {
  Kinds k;
  GitUsage u = KindsUsage(&k);
  u.options.insert(u.options.begin() + 1, GroupOption());
  testing::internal::CaptureStdout();
  PrintGitUsage(u, stdout);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("    -s, --[no-]shell      shell\n\n    --[no-]count <n>      count\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    --contains <commit>"), std::string::npos) << out;
}

}  // namespace
}  // namespace reftab::cli

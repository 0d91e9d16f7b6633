// git's ref-name rules (store/git/refs/refname.h) over a table of names, one column per flag set;
// and, when a reftable-capable git is available, the same table checked by `git check-ref-format`.
#include "store/git/refs/refname.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testutil/process.h"

namespace reftab {
namespace {

using namespace std::string_literals;

// `expect` lists the checks the name passes: 'S' strict, 'O' with --allow-onelevel, 'P' with
// --refspec-pattern, 'B' with both, 's' IsSafeRefname.
struct NameCase {
  std::string name;
  std::string expect;
};

const std::vector<NameCase>& Cases() {
  static const std::vector<NameCase> cases = {
      // Well formed.
      {"refs/heads/main", "SOPBs"},
      {"refs/heads/feature/x", "SOPBs"},
      {"refs/tags/v1.0", "SOPBs"},
      {"refs/tags/v1.0.1-rc", "SOPBs"},
      {"heads/main", "SOPB"},
      {"a/b", "SOPB"},
      {"refs/heads/a.b", "SOPBs"},
      {"refs/heads/a-b_c+d=e,f", "SOPBs"},
      {"refs/heads/@", "SOPBs"},
      {"refs/heads/a@b", "SOPBs"},
      {"refs/heads/@}", "SOPBs"},
      {"refs/heads/{x}", "SOPBs"},
      {"refs/heads/a{@", "SOPBs"},
      {"refs/heads/!#$%&'()", "SOPBs"},
      {"refs/heads/\"quoted\"", "SOPBs"},
      {"refs/heads/<>|", "SOPBs"},
      {"refs/heads/x.loc", "SOPBs"},
      {"refs/heads/x.lockx", "SOPBs"},
      {"refs/heads/x.lock/y", "s"},
      {"refs/heads/lock", "SOPBs"},
      {"refs/heads/.locked", "s"},
      {"refs/heads/\xc3\xa9t\xc3\xa9", "SOPBs"},
      {"refs/heads/\xe6\x97\xa5\xe6\x9c\xac", "SOPBs"},
      {"refs/heads/\xf0\x9f\x98\x80", "SOPBs"},
      {"refs/heads/\x80\xff", "SOPBs"},
      {"refs/heads/" + std::string(200, 'a'), "SOPBs"},
      {"refs/heads/" + std::string(1000, 'x') + "/" + std::string(1000, 'y'), "SOPBs"},
      {"refs/a", "SOPBs"},
      {"refs/x/y/z/w/v/u", "SOPBs"},
      {"refs/heads/-dash", "SOPBs"},
      {"refs/heads/a-", "SOPBs"},
      {"refs/heads/_", "SOPBs"},
      {"refs/heads/a.b.c", "SOPBs"},
      {"refs/notes/commits", "SOPBs"},
      {"refs/remotes/origin/HEAD", "SOPBs"},
      // One level.
      {"HEAD", "OBs"},
      {"ORIG_HEAD", "OBs"},
      {"FETCH_HEAD", "OBs"},
      {"MERGE_HEAD", "OBs"},
      {"main", "OB"},
      {"refs", "OB"},
      {"x", "OB"},
      {"A-B", "OB"},
      {"A_B", "OBs"},
      {"HEAD2", "OB"},
      {"head", "OB"},
      {"Head", "OB"},
      {"AUTO_MERGE", "OBs"},
      {"\xc3\xa9", "OB"},
      {"a.b", "OB"},
      {"_", "OBs"},
      {"refs/", ""},  // nothing after refs/
      // '@' and "@{".
      {"@", ""},
      {"refs/heads/@{", "s"},
      {"refs/heads/a@{b", "s"},
      {"refs/heads/@{u}", "s"},
      {"@{", ""},
      {"@{-1}", ""},
      {"@@", "OB"},
      {"refs/@", "SOPBs"},
      {"@/x", "SOPB"},
      // "..".
      {"refs/heads/a..b", "s"},
      {"refs/heads/..", ""},
      {"refs/heads/...", "s"},
      {"..", ""},
      {"refs/../x", ""},
      {"refs/heads/../evil", ""},
      {"refs/heads/../../x", ""},
      {"../../x", ""},
      {"HEAD/../x", ""},
      {"refs/heads/a/../b", ""},
      {"a..", ""},
      // Components starting with '.'.
      {"refs/heads/.hidden", "s"},
      {".refs/heads/x", ""},
      {"refs/.x/y", "s"},
      {".", ""},
      {"refs/heads/.", ""},
      {"refs/./heads/x", ""},
      {"./x", ""},
      {"refs/heads/x/.", ""},
      // ".lock".
      {"refs/heads/x.lock", "s"},
      {"refs/heads/.lock", "s"},
      {"refs/heads/x.lock.lock", "s"},
      {"refs/x.lock/y", "s"},
      {"x.lock", ""},
      {"refs/heads/x.LOCK", "SOPBs"},
      {"refs/heads/lock.", "s"},
      // Trailing '.'.
      {"refs/heads/x.", "s"},
      {"refs/heads/x./y", "SOPBs"},
      {"x.", ""},
      {"refs/heads/a.b.", "s"},
      // Empty components, leading and trailing '/'.
      {"", ""},
      {"/", ""},
      {"//", ""},
      {"/refs/heads/x", ""},
      {"refs/heads/x/", ""},
      {"refs//heads/x", ""},
      {"refs/heads//x", ""},
      {"refs/heads/x//", ""},
      {"refs///x", ""},
      // Forbidden characters.
      {"refs/heads/sp ace", "s"},
      {"refs/heads/ lead", "s"},
      {"refs/heads/trail ", "s"},
      {"refs/heads/tab\tx", "s"},
      {"refs/heads/nl\nx", "s"},
      {"refs/heads/cr\rx", "s"},
      {"refs/heads/bell\ax", "s"},
      {"refs/heads/esc\x1b", "s"},
      {"refs/heads/\x01", "s"},
      {"refs/heads/\x1f", "s"},
      {"refs/heads/del\x7f", "s"},
      {"refs/heads/tilde~1", "s"},
      {"refs/heads/caret^", "s"},
      {"refs/heads/col:on", "s"},
      {"refs/heads/q?", "s"},
      {"refs/heads/br[acket", "s"},
      {"refs/heads/br]acket", "SOPBs"},
      {"refs/heads/back\\slash", "s"},
      {"refs/heads/~", "s"},
      {"refs/heads/^{}", "s"},
      {"refs/heads/a:b:c", "s"},
      {"HEAD~1", ""},
      {"HEAD^", ""},
      {"main:x", ""},
      {"sp ace", ""},
      // '*' and --refspec-pattern.
      {"refs/heads/*", "PBs"},
      {"refs/heads/*/x", "PBs"},
      {"refs/*/x", "PBs"},
      {"refs/heads/a*b", "PBs"},
      {"refs/heads/**", "s"},
      {"refs/heads/*/*", "s"},
      {"refs/*/heads/*", "s"},
      {"*", "B"},
      {"*/x", "PB"},
      {"refs/heads/*.lock", "s"},
      {"refs/heads/*..x", "s"},
      {"refs/heads/.*", "s"},
      {"refs/heads/*.", "s"},
      // Dangerous outside refs/.
      {"lower", "OB"},
      {"HEAD/x", "SOPB"},
      {"HEAD/../HEAD", ""},
      {"FOO_BAR", "OBs"},
      {"FOO-BAR", "OB"},
      {"FOO1", "OB"},
      {"Refs/heads/x", "SOPB"},
      {"REFS/HEADS/X", "SOPB"},
      {"worktrees/x/HEAD", "SOPB"},
      {"main-worktree/HEAD", "SOPB"},
      {"refsx/y", "SOPB"},
      // Safe but invalid under refs/, and refs/ edge cases.
      {"refs/heads/x/..y", "s"},
      {"refs/heads/..y", "s"},
      {"refs/heads/y..", "s"},
      {"refs/heads/a.lock/b", "s"},
      {"refs/stash", "SOPBs"},
      {"refs/bisect/bad", "SOPBs"},
      {"refs/worktree/x", "SOPBs"},
  };
  return cases;
}

struct Column {
  char letter;
  unsigned flags;
  std::vector<std::string> git_args;
};

const std::vector<Column>& Columns() {
  static const std::vector<Column> columns = {
      {'S', kRefnameStrict, {}},
      {'O', kRefnameAllowOneLevel, {"--allow-onelevel"}},
      {'P', kRefnameRefspecPattern, {"--refspec-pattern"}},
      {'B',
       kRefnameAllowOneLevel | kRefnameRefspecPattern,
       {"--allow-onelevel", "--refspec-pattern"}},
  };
  return columns;
}

std::string Printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s.substr(0, 60)) {
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(char(c));
    }
  }
  return out;
}

TEST(RefnameTest, TableIsBroad) { EXPECT_GE(Cases().size(), 150u); }

TEST(RefnameTest, CheckRefnameFormatMatchesTable) {
  for (const NameCase& c : Cases()) {
    for (const Column& col : Columns()) {
      bool want = c.expect.find(col.letter) != std::string::npos;
      EXPECT_EQ(IsValidRefname(c.name, col.flags), want)
          << "'" << Printable(c.name) << "' column " << col.letter << ": "
          << RefnameProblemText(CheckRefnameFormat(c.name, col.flags));
    }
  }
}

// The quick look never passes a name the full check refuses, and passes the plain ones;
// names of every length around its 16-byte blocks, with a bad byte or a double slash at
// every position.
TEST(RefnameTest, PlainlyValidOnlyWhenValid) {
  for (const NameCase& c : Cases()) {
    if (PlainlyValidRefname(c.name)) {
      EXPECT_TRUE(IsValidRefname(c.name, kRefnameAllowOneLevel)) << "'" << Printable(c.name) << "'";
    }
  }
  for (size_t n = 1; n <= 50; ++n) {
    std::string name(n, 'a');
    for (size_t k = 4; k < n; k += 5) name[k] = '/';
    if (name.back() == '/') name.back() = 'b';
    EXPECT_TRUE(PlainlyValidRefname(name)) << name;
    for (size_t i = 0; i < n; ++i) {
      for (char bad :
           {'\0', '\001', ' ', '.', '~', '^', ':', '?', '[', '\\', '*', '{', '\x7f', '\xff', '/'}) {
        std::string b = name;
        if (bad == '/' && (i == 0 || b[i - 1] != '/')) {
          if (i == 0) {
            b[0] = '/';
          } else {
            b[i - 1] = '/';
            b[i] = '/';
          }
        } else {
          b[i] = bad;
        }
        if (PlainlyValidRefname(b)) {
          EXPECT_TRUE(IsValidRefname(b, kRefnameAllowOneLevel)) << Printable(b);
        }
        if (bad != '/' && bad != '.') {
          EXPECT_FALSE(PlainlyValidRefname(b)) << Printable(b);
        }
      }
    }
  }
  EXPECT_FALSE(PlainlyValidRefname("@"));
  EXPECT_FALSE(PlainlyValidRefname(""));
  EXPECT_FALSE(PlainlyValidRefname("refs/heads/a//b/cdefghijklmnop"));
  EXPECT_FALSE(PlainlyValidRefname("refs/heads/abcd/"));
}

// Every byte value at every position of names around the quick look's blocks (16 and 32
// bytes): it passes exactly the bytes outside its set (whichever instructions the CPU has).
TEST(RefnameTest, PlainlyValidTakesEveryPlainByte) {
  auto looked_at = [](unsigned char c) {
    return c < 0x21 || c > 0x7a || (c >= 0x5b && c <= 0x5e) || (c >= 0x3a && c <= 0x3f) ||
           c == '*' || c == '.';
  };
  for (size_t n : {1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 70}) {
    for (size_t i = 0; i < n; ++i) {
      std::string name(n, 'x');
      for (int c = 0; c < 256; ++c) {
        name[i] = char(c);
        bool plain = !looked_at(uint8_t(c)) && !(c == '/' && (i == 0 || i == n - 1)) &&
                     !(n == 1 && c == '@');
        EXPECT_EQ(PlainlyValidRefname(name), plain) << n << " " << i << " " << c;
      }
    }
  }
}

TEST(RefnameTest, StoredNamesAsGitReadsThem) {
  EXPECT_EQ(StoredRefname("refs/heads/a\0evil"s), "refs/heads/a");
  EXPECT_EQ(StoredRefname("refs/heads/a"), "refs/heads/a");
  EXPECT_EQ(JudgeListedRefname("refs/heads/a"), ListedRefname::kGood);
  EXPECT_EQ(JudgeListedRefname("refs/heads/a..b"), ListedRefname::kBadName);
  EXPECT_EQ(JudgeListedRefname("refs/heads/../x"), ListedRefname::kDangerous);
  EXPECT_EQ(EscapedRefname("refs/heads/caf\xc3\xa9"), "refs/heads/caf\xc3\xa9");
  EXPECT_EQ(EscapedRefname("refs/heads/a\0b\001\xff\\"s), "refs/heads/a\\0b\\001\\377\\\\");
  EXPECT_TRUE(IsUtf8("caf\xc3\xa9"));
  EXPECT_FALSE(IsUtf8("bad\xff"));
  EXPECT_FALSE(IsUtf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(IsUtf8("\xed\xa0\x80"));  // a surrogate
}

TEST(RefnameTest, IsSafeRefnameMatchesTable) {
  for (const NameCase& c : Cases()) {
    bool want = c.expect.find('s') != std::string::npos;
    EXPECT_EQ(IsSafeRefname(c.name), want) << "'" << Printable(c.name) << "'";
  }
}

TEST(RefnameTest, ProblemsNameTheRule) {
  EXPECT_EQ(CheckRefnameFormat("@"), RefnameProblem::kIsAt);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/a..b"), RefnameProblem::kDoubleDot);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/a@{b"), RefnameProblem::kAtBrace);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/x.lock"), RefnameProblem::kComponentEndsWithLock);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/.x"), RefnameProblem::kComponentStartsWithDot);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/x."), RefnameProblem::kEndsWithDot);
  EXPECT_EQ(CheckRefnameFormat("refs//x"), RefnameProblem::kEmptyComponent);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/sp ace"), RefnameProblem::kBadCharacter);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/*"), RefnameProblem::kAsterisk);
  EXPECT_EQ(CheckRefnameFormat("HEAD"), RefnameProblem::kOneLevel);
  EXPECT_EQ(CheckRefnameFormat("refs/heads/nul\0x"s), RefnameProblem::kBadCharacter);
  EXPECT_FALSE(IsSafeRefname("refs/heads/nul\0x"s));
}

TEST(RefnameTest, NormalizeCollapsesSlashes) {
  EXPECT_EQ(NormalizeRefname("refs//heads///x"), "refs/heads/x");
  EXPECT_EQ(NormalizeRefname("/refs/heads/x"), "refs/heads/x");
  EXPECT_EQ(NormalizeRefname("refs/heads/x/"), std::nullopt);
  EXPECT_EQ(NormalizeRefname("//HEAD", kRefnameAllowOneLevel), "HEAD");
  EXPECT_EQ(NormalizeRefname("refs/heads/a..b"), std::nullopt);
}

TEST(RefnameTest, RootRefsAndPseudoRefs) {
  EXPECT_TRUE(IsRootRef("HEAD"));
  EXPECT_TRUE(IsRootRef("ORIG_HEAD"));
  EXPECT_TRUE(IsRootRef("CHERRY_PICK_HEAD"));
  EXPECT_TRUE(IsRootRef("X-Y_HEAD"));
  EXPECT_TRUE(IsRootRef("AUTO_MERGE"));
  EXPECT_TRUE(IsRootRef("BISECT_EXPECTED_REV"));
  EXPECT_TRUE(IsRootRef("NOTES_MERGE_PARTIAL"));
  EXPECT_TRUE(IsRootRef("NOTES_MERGE_REF"));
  EXPECT_TRUE(IsRootRef("MERGE_AUTOSTASH"));
  EXPECT_FALSE(IsRootRef("FETCH_HEAD"));
  EXPECT_FALSE(IsRootRef("MERGE_HEAD"));
  EXPECT_FALSE(IsRootRef("FOO"));
  EXPECT_FALSE(IsRootRef("head"));
  EXPECT_FALSE(IsRootRef("refs/heads/x"));
  EXPECT_TRUE(IsPseudoRef("FETCH_HEAD"));
  EXPECT_TRUE(IsPseudoRef("MERGE_HEAD"));
  EXPECT_FALSE(IsPseudoRef("HEAD"));
  EXPECT_TRUE(IsRootRefSyntax("FOO-BAR_BAZ"));
  EXPECT_FALSE(IsRootRefSyntax("FOO1"));
  EXPECT_TRUE(IsListedRef("refs/x"));
  EXPECT_TRUE(IsListedRef("HEAD"));
  EXPECT_FALSE(IsListedRef("FOO"));
}

TEST(RefnameTest, TransactionRefusals) {
  EXPECT_EQ(RefnameRefusal("refs/heads/x", true), std::nullopt);
  EXPECT_EQ(RefnameRefusal("HEAD", true), std::nullopt);
  EXPECT_EQ(RefnameRefusal("main", true), std::nullopt);  // one level is allowed
  EXPECT_EQ(RefnameRefusal("FETCH_HEAD", true), "refusing to update pseudoref 'FETCH_HEAD'");
  EXPECT_EQ(RefnameRefusal("MERGE_HEAD", false), "refusing to update pseudoref 'MERGE_HEAD'");
  EXPECT_EQ(RefnameRefusal("refs/heads/a..b", true),
            "refusing to update ref with bad name 'refs/heads/a..b'");
  EXPECT_EQ(RefnameRefusal("refs/heads/a..b", false), std::nullopt);  // safe: may be deleted
  EXPECT_EQ(RefnameRefusal("refs/heads/../evil", false),
            "refusing to update ref with bad name 'refs/heads/../evil'");
  EXPECT_EQ(RefnameRefusal("main", false), "refusing to update ref with bad name 'main'");
}

// The same table, judged by the real `git check-ref-format`.
TEST(RefnameTest, AgreesWithGitCheckRefFormat) {
  std::string why;
  auto git = testing::FindReftableGit(&why);
  if (!git) REFTAB_SKIP_WITHOUT_GIT(why);
  int compared = 0, identical = 0;
  for (const NameCase& c : Cases()) {
    // git takes a leading '-' for an option, and argv cannot hold a NUL.
    if (!c.name.empty() && c.name[0] == '-') continue;
    for (const Column& col : Columns()) {
      std::vector<std::string> argv = {*git, "check-ref-format"};
      argv.insert(argv.end(), col.git_args.begin(), col.git_args.end());
      argv.push_back(c.name);
      testing::ProcessResult r = testing::RunProcess(argv);
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
      bool ours = IsValidRefname(c.name, col.flags);
      ++compared;
      if (ours == (r.exit_code == 0)) {
        ++identical;
      } else {
        ADD_FAILURE() << "'" << Printable(c.name) << "' column " << col.letter << ": git says "
                      << (r.exit_code == 0 ? "valid" : "invalid");
      }
    }
    // --normalize, strict.
    testing::ProcessResult n =
        testing::RunProcess({*git, "check-ref-format", "--normalize", c.name});
    auto ours = NormalizeRefname(c.name);
    ++compared;
    if ((n.exit_code == 0) == ours.has_value() && (!ours || n.out == *ours + "\n")) {
      ++identical;
    } else {
      ADD_FAILURE() << "--normalize '" << Printable(c.name) << "': git says " << n.exit_code << " "
                    << n.out;
    }
  }
  std::printf("check-ref-format: %d compared, %d identical\n", compared, identical);
}

}  // namespace
}  // namespace reftab

// The for-each-ref format language without a repository: parsing (atoms, arguments, git's
// messages), rendering (%(if)/%(align) nesting, quoting), colours, dates and version order.
#include "cli/ref_format.h"

#include <gtest/gtest.h>

#include <map>

#include "cli/git_color.h"
#include "cli/ref_quote.h"
#include "cli/ref_sort.h"

namespace reftab::cli {
namespace {

// Renders `text` with each atom's value given by name.
std::string Render(const std::string& text, const std::map<std::string, std::string>& values,
                   QuoteStyle quote = QuoteStyle::kNone, std::string* error = nullptr) {
  RefFormat f;
  f.quote = quote;
  FormatError e = ParseRefFormat(text, &f);
  EXPECT_TRUE(e.ok()) << e.message;
  std::vector<AtomValue> v(f.atoms.size());
  for (size_t i = 0; i < f.atoms.size(); ++i) {
    auto it = values.find(f.atoms[i].name);
    if (it != values.end()) v[i].s = it->second;
  }
  std::string out, err;
  if (!RenderRef(f, v, &out, &err)) {
    if (error) *error = err;
    return "<error>";
  }
  return out;
}

std::string ParseError(const std::string& text) {
  RefFormat f;
  FormatError e = ParseRefFormat(text, &f);
  return e.message;
}

TEST(RefFormatParse, AtomsAndArguments) {
  RefFormat f;
  ASSERT_TRUE(
      ParseRefFormat("%(refname:lstrip=-2) %(*objectname:short=3) %(refname:lstrip=-2)", &f).ok());
  ASSERT_EQ(f.atoms.size(), 2u);  // one per distinct spelling
  EXPECT_EQ(f.atoms[0].refname, RefnameOption::kLstrip);
  EXPECT_EQ(f.atoms[0].strip, -2);
  EXPECT_TRUE(f.atoms[1].deref);
  EXPECT_EQ(f.atoms[1].oid_length, 4u);  // git's minimum abbreviation
  EXPECT_EQ(f.pieces.size(), 5u);
}

TEST(RefFormatParse, GitMessages) {
  EXPECT_EQ(ParseError("%(bogus)"), "unknown field name: bogus");
  EXPECT_EQ(ParseError("%()"), "malformed field name: ");
  EXPECT_EQ(ParseError("%(refname:x)"), "unrecognized %(refname) argument: x");
  EXPECT_EQ(ParseError("%(refname:lstrip=a)"), "Integer value expected refname:lstrip=a");
  EXPECT_EQ(ParseError("%(objectname:short=0)"),
            "positive value expected '0' in %(objectname:short=0)");
  EXPECT_EQ(ParseError("%(objecttype:x)"), "%(objecttype) does not take arguments");
  EXPECT_EQ(ParseError("%(align)"), "expected format: %(align:<width>,<position>)");
  EXPECT_EQ(ParseError("%(align:left)"), "positive width expected with the %(align) atom");
  EXPECT_EQ(ParseError("%(rest)"), "this command reject atom %(rest)");
  EXPECT_EQ(ParseError("%(color:nosuch)"), "unrecognized color: %(color:nosuch)");
  RefFormat f;
  FormatError e = ParseRefFormat("x %(refname", &f);
  EXPECT_EQ(e.kind, FormatError::kUsage);
  EXPECT_EQ(e.message, "malformed format string %(refname");
}

TEST(RefFormatParse, Literals) {
  EXPECT_EQ(Render("%%(refname) %41%4a%zz %", {}), "%(refname) AJ%zz %");
}

TEST(RefFormatRender, IfThenElse) {
  std::string f = "%(if)%(symref)%(then)S%(else)N%(end)";
  EXPECT_EQ(Render(f, {{"symref", "x"}}), "S");
  EXPECT_EQ(Render(f, {{"symref", "  "}}), "N");  // blank counts as empty
  EXPECT_EQ(Render("%(if:equals=a)%(refname)%(then)yes%(end)", {{"refname", "a"}}), "yes");
  EXPECT_EQ(Render("%(if:notequals=a)%(refname)%(then)yes%(end)", {{"refname", "a"}}), "");
  std::string error;
  EXPECT_EQ(Render("%(if)%(then)", {}, QuoteStyle::kNone, &error), "<error>");
  EXPECT_EQ(error, "format: %(end) atom missing");
  EXPECT_EQ(Render("%(else)", {}, QuoteStyle::kNone, &error), "<error>");
  EXPECT_EQ(error, "format: %(else) atom used without a %(if) atom");
  EXPECT_EQ(Render("%(if)%(end)", {}, QuoteStyle::kNone, &error), "<error>");
  EXPECT_EQ(error, "format: %(if) atom used without a %(then) atom");
}

TEST(RefFormatRender, AlignAndQuoting) {
  EXPECT_EQ(Render("%(align:6,right)%(refname)%(end)|", {{"refname", "ab"}}), "    ab|");
  EXPECT_EQ(Render("%(align:5,middle)%(refname)%(end)|", {{"refname", "ab"}}), " ab  |");
  EXPECT_EQ(Render("%(align:2)%(refname)%(end)|", {{"refname", "abc"}}), "abc|");
  EXPECT_EQ(Render("%(align:4)%(refname)%(end)|", {{"refname", "\xc3\xa9"}}), "\xc3\xa9   |");
  // A value straight in the output is quoted; a block is quoted whole when it ends.
  EXPECT_EQ(Render("%(refname) x", {{"refname", "it's"}}, QuoteStyle::kShell), "'it'\\''s' x");
  EXPECT_EQ(Render("%(align:4)%(refname)%(end)", {{"refname", "a"}}, QuoteStyle::kPython),
            "'a   '");
}

TEST(RefQuote, Styles) {
  std::string out;
  AppendQuoted(QuoteStyle::kShell, "a'b!c", &out);
  EXPECT_EQ(out, "'a'\\''b'\\!'c'");
  out.clear();
  AppendQuoted(QuoteStyle::kPerl, "a'\\b", &out);
  EXPECT_EQ(out, "'a\\'\\\\b'");
  out.clear();
  AppendQuoted(QuoteStyle::kPython, "a\nb'", &out);
  EXPECT_EQ(out, "'a\\nb\\''");
  out.clear();
  AppendQuoted(QuoteStyle::kTcl, "$[x]\t\"", &out);
  EXPECT_EQ(out, "\"\\$\\[x\\]\\t\\\"\"");
}

TEST(GitColor, Specs) {
  std::string e;
  ASSERT_TRUE(ParseGitColor("bold red", &e));
  EXPECT_EQ(e, "\033[1;31m");
  ASSERT_TRUE(ParseGitColor("reset", &e));
  EXPECT_EQ(e, "\033[m");
  ASSERT_TRUE(ParseGitColor("#ff0000 blue ul", &e));
  EXPECT_EQ(e, "\033[4;38;2;255;0;0;44m");
  ASSERT_TRUE(ParseGitColor("208 no-bold", &e));
  EXPECT_EQ(e, "\033[22;38;5;208m");
  ASSERT_TRUE(ParseGitColor("  ", &e));
  EXPECT_EQ(e, "");
  EXPECT_FALSE(ParseGitColor("red green blue", &e));
  EXPECT_FALSE(ParseGitColor("nosuch", &e));
}

TEST(RefSort, VersionOrder) {
  EXPECT_LT(VersionCompare("v1.9", "v1.10"), 0);
  EXPECT_GT(VersionCompare("v1.10", "v1.2"), 0);
  EXPECT_EQ(VersionCompare("v1", "v1"), 0);
  EXPECT_LT(VersionCompare("a", "b"), 0);
  EXPECT_LT(VersionCompare("1.01", "1.1"), 0);
}

TEST(RefSort, LastKeyFirst) {
  RefFormat f;
  std::vector<SortKey> keys;
  FormatError e;
  ASSERT_TRUE(ParseSortKeys({"refname", "-objecttype"}, false, &f, &keys, &e));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_TRUE(keys[0].reverse);
  EXPECT_EQ(f.atoms[size_t(keys[0].atom)].kind, AtomKind::kObjecttype);
  EXPECT_FALSE(IsNameOrder(f, keys));
  EXPECT_FALSE(ParseSortKeys({"bogus"}, false, &f, &keys, &e));
  EXPECT_EQ(e.message, "unknown field name: bogus");
}

}  // namespace
}  // namespace reftab::cli

// git's C-style unquoting for update-ref --stdin's text form (cli/c_quote.h).
#include "cli/c_quote.h"

#include <gtest/gtest.h>

#include <string>

namespace reftab::cli {
namespace {

std::string Unquote(std::string_view in, size_t* used = nullptr) {
  std::string out = "kept:";
  size_t n = 0;
  if (!UnquoteCStyle(in, &n, &out)) return "<bad>" + out;
  if (used) *used = n;
  return out;
}

TEST(CQuoteTest, PlainAndEscapes) {
  size_t used = 0;
  EXPECT_EQ(Unquote("\"refs/heads/q\" rest", &used), "kept:refs/heads/q");
  EXPECT_EQ(used, 14u);
  EXPECT_EQ(Unquote(R"("a\tb\nc\\d\"e")"), "kept:a\tb\nc\\d\"e");
  EXPECT_EQ(Unquote(R"("\a\b\f\r\v")"), "kept:\a\b\f\r\v");
  EXPECT_EQ(Unquote(R"("\303\251")"), "kept:\xc3\xa9");
  EXPECT_EQ(Unquote(R"("\001")"), std::string("kept:\x01"));
}

TEST(CQuoteTest, RejectsWhatGitRejects) {
  EXPECT_EQ(Unquote("\"unterminated"), "<bad>kept:");
  EXPECT_EQ(Unquote(R"("bad \z escape")"), "<bad>kept:");
  EXPECT_EQ(Unquote(R"("\400")"), "<bad>kept:");  // first octal digit above 3
  EXPECT_EQ(Unquote(R"("\12")"), "<bad>kept:");   // three digits needed
  EXPECT_EQ(Unquote("no quote"), "<bad>kept:");
  EXPECT_EQ(Unquote(std::string_view("\"a\0b\"", 5)), "<bad>kept:");  // git stops at NUL
}

}  // namespace
}  // namespace reftab::cli

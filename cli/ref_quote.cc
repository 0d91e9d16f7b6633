#include "cli/ref_quote.h"

#include "store/git/quote.h"

namespace reftab::cli {
namespace {

std::string_view UpToNul(std::string_view s) { return s.substr(0, s.find('\0')); }

void Perl(std::string_view s, std::string* out) {
  out->push_back('\'');
  for (char c : s) {
    if (c == '\'' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('\'');
}

void Python(std::string_view s, std::string* out) {
  out->push_back('\'');
  for (char c : UpToNul(s)) {
    if (c == '\n') {
      out->append("\\n");
      continue;
    }
    if (c == '\'' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('\'');
}

void Tcl(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : UpToNul(s)) {
    switch (c) {
      case '[':
      case ']':
      case '{':
      case '}':
      case '$':
      case '\\':
      case '"':
        out->push_back('\\');
        out->push_back(c);
        break;
      case '\f': out->append("\\f"); break;
      case '\r': out->append("\\r"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\v': out->append("\\v"); break;
      default: out->push_back(c);
    }
  }
  out->push_back('"');
}

}  // namespace

void AppendQuoted(QuoteStyle style, std::string_view value, std::string* out) {
  switch (style) {
    case QuoteStyle::kNone: out->append(value); break;
    case QuoteStyle::kShell: AppendShellQuoted(UpToNul(value), out); break;
    case QuoteStyle::kPerl: Perl(value, out); break;
    case QuoteStyle::kPython: Python(value, out); break;
    case QuoteStyle::kTcl: Tcl(value, out); break;
  }
}

}  // namespace reftab::cli

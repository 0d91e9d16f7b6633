#include "cli/c_quote.h"

namespace reftab::cli {
namespace {

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

// Decodes the escape at in[*i] (just after the backslash); advances *i past it.
bool Unescape(std::string_view in, size_t* i, std::string* out) {
  if (*i >= in.size()) return false;
  char c = in[(*i)++];
  switch (c) {
    case 'a': out->push_back('\a'); return true;
    case 'b': out->push_back('\b'); return true;
    case 'f': out->push_back('\f'); return true;
    case 'n': out->push_back('\n'); return true;
    case 'r': out->push_back('\r'); return true;
    case 't': out->push_back('\t'); return true;
    case 'v': out->push_back('\v'); return true;
    case '\\':
    case '"': out->push_back(c); return true;
    default: break;
  }
  if (c < '0' || c > '3' || *i + 2 > in.size() || !IsOctal(in[*i]) || !IsOctal(in[*i + 1])) {
    return false;
  }
  int value = ((c - '0') << 6) | ((in[*i] - '0') << 3) | (in[*i + 1] - '0');
  *i += 2;
  out->push_back(char(value));
  return true;
}

}  // namespace

bool UnquoteCStyle(std::string_view in, size_t* consumed, std::string* out) {
  if (in.empty() || in[0] != '"') return false;
  const size_t start = out->size();
  size_t i = 1;
  while (i < in.size()) {
    char c = in[i++];
    if (c == '"') {
      *consumed = i;
      return true;
    }
    if (c == '\0') break;  // the input ends here for git, which reads C strings
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (!Unescape(in, &i, out)) break;
  }
  out->resize(start);
  return false;
}

}  // namespace reftab::cli

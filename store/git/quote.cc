#include "store/git/quote.h"

namespace reftab {

void AppendShellQuoted(std::string_view text, std::string* out) {
  out->push_back('\'');
  for (char c : text) {
    if (c == '\'' || c == '!') {
      out->append("'\\");
      out->push_back(c);
      out->push_back('\'');
    } else {
      out->push_back(c);
    }
  }
  out->push_back('\'');
}

}  // namespace reftab

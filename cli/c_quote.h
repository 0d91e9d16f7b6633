// git's C-style quoting of path-like arguments ("refs/heads/a\tb", octal escapes), as the
// text form of `update-ref --stdin` accepts it.
#ifndef REFTAB_CLI_C_QUOTE_H_
#define REFTAB_CLI_C_QUOTE_H_

#include <string>
#include <string_view>

namespace reftab::cli {

// `in` starts with '"'. On success appends the unquoted bytes to *out, sets *consumed to the
// length through the closing quote and returns true; false for a missing closing quote or
// an escape git does not know (\a \b \f \n \r \t \v \\ \" and three octal digits, the first
// 0-3).
bool UnquoteCStyle(std::string_view in, size_t* consumed, std::string* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_C_QUOTE_H_

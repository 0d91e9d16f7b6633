// git's quoting of for-each-ref values for --shell, --perl, --python and --tcl (quote.c's
// rules): each value becomes one literal of that language. Values are C strings in git, so
// quoting stops at a NUL byte, as git's does (Perl's keeps NULs).
#ifndef REFTAB_CLI_REF_QUOTE_H_
#define REFTAB_CLI_REF_QUOTE_H_

#include <string>
#include <string_view>

#include "cli/ref_format.h"

namespace reftab::cli {

void AppendQuoted(QuoteStyle style, std::string_view value, std::string* out);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REF_QUOTE_H_

// Public API: git's shell quoting (its sq_quote_buf): the whole text in single quotes, with
// each ' and ! stepping out of them ('\'' and '\!'), so that a POSIX shell reads it back as
// one word and an interactive one expands no history. git writes command-line settings into
// GIT_CONFIG_PARAMETERS this way and for-each-ref --shell quotes values this way.
#ifndef REFTAB_STORE_GIT_QUOTE_H_
#define REFTAB_STORE_GIT_QUOTE_H_

#include <string>
#include <string_view>

#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// Appends `text`, quoted as above, to *out.
void AppendShellQuoted(std::string_view text, std::string* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_QUOTE_H_

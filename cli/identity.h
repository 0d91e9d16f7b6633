// Who the CLI writes reflog entries as, and how it cleans reflog messages — the way git
// does (GIT_COMMITTER_* environment, then user.* config; copy_reflog_msg).
#ifndef REFTAB_CLI_IDENTITY_H_
#define REFTAB_CLI_IDENTITY_H_

#include <string>
#include <string_view>

#include "store/git_repo.h"
#include "store/transaction.h"

namespace reftab::cli {

// The committer identity and time for a reflog entry. `config` may be null.
LogInfo CommitterIdentity(const GitConfig* config);
// git's reflog message cleanup: whitespace runs become one space, ends trimmed; a non-empty
// result gets the single trailing newline git's writer stores. At most `max_len` bytes are
// kept before the newline (git keeps block_size / 2).
std::string CleanReflogMessage(std::string_view msg, size_t max_len);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_IDENTITY_H_

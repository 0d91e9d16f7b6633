// Public API: who a reflog entry is written as, and how its message is cleaned — the way git
// does it for ref updates (GIT_COMMITTER_* environment, then committer.* and user.* config,
// then EMAIL and the system's account; whitespace runs collapsed in messages).
#ifndef REFTAB_STORE_GIT_IDENTITY_H_
#define REFTAB_STORE_GIT_IDENTITY_H_

#include <string>
#include <string_view>

#include "format/visibility.h"
#include "store/git/repo.h"
#include "store/transaction.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// The committer identity and time for a reflog entry (message left empty). `config` may be
// null (a bare stack has no config).
LogInfo CommitterIdentity(const GitConfig* config);
// git's reflog message cleanup: whitespace runs become one space, ends trimmed; the result
// gets the single trailing newline git's writer stores (an empty message is "\n"). At most
// `max_len` bytes are kept before the newline (git keeps block_size / 2).
std::string CleanReflogMessage(std::string_view msg, size_t max_len);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_IDENTITY_H_

// Internal to the config layer (store/git/config/*.cc): the parser's entry callback, shared by
// GitConfig::ParseText and the loader that follows includes while it parses.
#ifndef REFTAB_STORE_GIT_CONFIG_CONFIG_INTERNAL_H_
#define REFTAB_STORE_GIT_CONFIG_CONFIG_INTERNAL_H_

#include <functional>
#include <string>
#include <string_view>

#include "store/git/config/config.h"

namespace reftab {

// Receives each entry as it is parsed. A non-OK status stops everything (git dies there);
// setting *rejected makes the parser report the entry's line as a bad config line (git's
// callback returning -1).
using ConfigEntryHandler = std::function<Status(ConfigEntry entry, bool* rejected)>;

// Parses one source. `file` names it in messages ("" for none).
Status ParseConfigSource(std::string_view text, const std::string& file, ConfigScope scope,
                         const ConfigEntryHandler& on_entry);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_CONFIG_CONFIG_INTERNAL_H_

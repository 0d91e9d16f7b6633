// Editing one git config file's text the way `git config set` / `git config unset` edit it,
// for the few plain keys reftab changes ("section.key", no subsection): a replaced value is
// rewritten in place as git writes it ("\tkey = value"), a new key goes at the end of the
// last block of its section (or a new section at the end of the file), and unsetting the
// last key of a section drops the section header too, as git 2.55 does. Pure functions over
// the text: the caller reads and writes the file (under config.lock).
#ifndef REFTAB_STORE_GIT_CONFIG_CONFIG_EDIT_H_
#define REFTAB_STORE_GIT_CONFIG_CONFIG_EDIT_H_

#include <string>
#include <string_view>

namespace reftab {

// `key` is "section.name", lower case. Values are written as given (no quoting: reftab only
// writes words and numbers).
std::string SetConfigValue(std::string_view text, std::string_view key, std::string_view value);
std::string UnsetConfigValue(std::string_view text, std::string_view key);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_CONFIG_CONFIG_EDIT_H_

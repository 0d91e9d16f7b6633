// "Did you mean": the known command names closest to a mistyped one, as git suggests them
// for `git <typo>` (a weighted edit distance and a floor beyond which nothing is suggested).
#ifndef REFTAB_CLI_SIMILAR_COMMANDS_H_
#define REFTAB_CLI_SIMILAR_COMMANDS_H_

#include <string>
#include <string_view>
#include <vector>

namespace reftab::cli {

// The weighted edit distance from `typed` to `candidate` that git uses for suggestions:
// swapping two adjacent characters costs 0, substituting one 2, inserting one (a character
// `typed` lacks) 1, deleting one (a character `typed` has in excess) 3.
int SuggestionDistance(std::string_view typed, std::string_view candidate);

// The commands git would suggest for `typed`: those at the smallest distance if it is close
// enough (git's empirical floor), else none; in name order.
std::vector<std::string> SimilarCommands(std::string_view typed,
                                         const std::vector<std::string_view>& commands);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_SIMILAR_COMMANDS_H_

#include "cli/similar_commands.h"

#include <algorithm>
#include <utility>

namespace reftab::cli {
namespace {

constexpr int kSwap = 0, kSubstitute = 2, kInsert = 1, kDelete = 3;
// Scores (distance + 1) below this are worth suggesting: git's empirical floor.
constexpr int kSimilarityFloor = 7;

}  // namespace

int SuggestionDistance(std::string_view typed, std::string_view candidate) {
  // cost[i][j]: turning typed[0, i) into candidate[0, j); three rows are enough, as a swap
  // looks back two.
  const size_t n = candidate.size();
  std::vector<int> before(n + 1), prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = int(j) * kInsert;
  for (size_t i = 1; i <= typed.size(); ++i) {
    cur[0] = int(i) * kDelete;
    for (size_t j = 1; j <= n; ++j) {
      int best = prev[j - 1] + (typed[i - 1] == candidate[j - 1] ? 0 : kSubstitute);
      if (i > 1 && j > 1 && typed[i - 1] == candidate[j - 2] && typed[i - 2] == candidate[j - 1]) {
        best = std::min(best, before[j - 2] + kSwap);
      }
      best = std::min(best, prev[j] + kDelete);
      best = std::min(best, cur[j - 1] + kInsert);
      cur[j] = best;
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::vector<std::string> SimilarCommands(std::string_view typed,
                                         const std::vector<std::string_view>& commands) {
  // (score, name), best first. git scores a prefix of one of its everyday commands (add,
  // commit, ...) best of all; none of reftab's commands is one, so none gets that bonus.
  std::vector<std::pair<int, std::string_view>> scored;
  for (std::string_view c : commands) scored.emplace_back(SuggestionDistance(typed, c) + 1, c);
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> similar;
  for (const auto& [score, name] : scored) {
    if (score != scored.front().first || score >= kSimilarityFloor) break;
    similar.emplace_back(name);
  }
  return similar;
}

}  // namespace reftab::cli

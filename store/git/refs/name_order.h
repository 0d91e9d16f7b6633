// Indices of queued entries put in the order of their names, for a ref transaction that may
// queue a million names: a --stdin list is most often a few sorted sequences interleaved
// (branches, tags and remote branches, each in order), which are kept apart as they come
// (a comparison with the last name of each) and merged at the end in linear time; input of
// any other shape is sorted. Not installed: a part of GitRefTransaction.
#ifndef REFTAB_STORE_GIT_REFS_NAME_ORDER_H_
#define REFTAB_STORE_GIT_REFS_NAME_ORDER_H_

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace reftab {

class NameOrder {
 public:
  // Adds entry `index`, named `name`. The bytes `name` views must stay where they are, and
  // unchanged, until Take().
  void Add(std::string_view name, uint32_t index);
  size_t size() const { return size_; }
  // Every entry added, in name order (equal names next to each other, in no set order);
  // `name_of(index)` gives the name of an entry as added. Leaves the builder empty.
  template <class NameOf>
  std::vector<uint32_t> Take(const NameOf& name_of);

 private:
  // More sequences than this and a name is compared with too many last names: sort instead.
  static constexpr size_t kMaxRuns = 8;
  struct Run {
    std::vector<uint32_t> items;
    std::string_view last;
  };
  std::vector<Run> runs_;
  bool unsorted_ = false;  // runs_[0] holds every entry, not in name order
  size_t size_ = 0;
};

inline void NameOrder::Add(std::string_view name, uint32_t index) {
  ++size_;
  if (unsorted_) {
    runs_[0].items.push_back(index);
    return;
  }
  // The run whose last name is the greatest not above this one: the runs stay as few as
  // the interleaved sequences.
  Run* best = nullptr;
  for (Run& run : runs_) {
    if (run.last <= name && (!best || best->last < run.last)) best = &run;
  }
  if (!best) {
    if (runs_.size() == kMaxRuns) {
      for (size_t r = 1; r < runs_.size(); ++r) {
        runs_[0].items.insert(runs_[0].items.end(), runs_[r].items.begin(), runs_[r].items.end());
      }
      runs_.resize(1);
      unsorted_ = true;
      runs_[0].items.push_back(index);
      return;
    }
    best = &runs_.emplace_back();
  }
  best->items.push_back(index);
  best->last = name;
}

template <class NameOf>
std::vector<uint32_t> NameOrder::Take(const NameOf& name_of) {
  auto less = [&](uint32_t a, uint32_t b) { return name_of(a) < name_of(b); };
  std::vector<std::vector<uint32_t>> level;
  level.reserve(runs_.size());
  for (Run& run : runs_) level.push_back(std::move(run.items));
  if (unsorted_) std::stable_sort(level[0].begin(), level[0].end(), less);
  runs_.clear();
  unsorted_ = false;
  size_ = 0;
  // Merged two by two, earlier runs first, so that equal names keep the order they came in.
  while (level.size() > 1) {
    std::vector<std::vector<uint32_t>> next;
    for (size_t r = 0; r < level.size(); r += 2) {
      if (r + 1 == level.size()) {
        next.push_back(std::move(level[r]));
        break;
      }
      std::vector<uint32_t> merged(level[r].size() + level[r + 1].size());
      std::merge(level[r].begin(), level[r].end(), level[r + 1].begin(), level[r + 1].end(),
                 merged.begin(), less);
      level[r] = {};
      level[r + 1] = {};
      next.push_back(std::move(merged));
    }
    level = std::move(next);
  }
  return level.empty() ? std::vector<uint32_t>() : std::move(level[0]);
}

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_NAME_ORDER_H_

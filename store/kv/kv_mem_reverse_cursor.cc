#include "store/kv/kv_mem_reverse_cursor.h"

namespace reftab {

KvMemReverseCursor::KvMemReverseCursor(std::shared_ptr<const KvMemLayers> layers)
    : layers_(std::move(layers)) {
  pos_.reserve(layers_->size());
  for (const auto& layer : *layers_) pos_.push_back(layer->map.end());
}

void KvMemReverseCursor::SeekToLast() {
  for (size_t i = 0; i < pos_.size(); ++i) {
    const KvMemMap& m = (*layers_)[i]->map;
    pos_[i] = m.empty() ? m.end() : std::prev(m.end());
  }
  PickCurrent();
}

void KvMemReverseCursor::SeekBefore(std::string_view key, bool inclusive) {
  for (size_t i = 0; i < pos_.size(); ++i) {
    const KvMemMap& m = (*layers_)[i]->map;
    auto above = inclusive ? m.upper_bound(key) : m.lower_bound(key);  // the first not before
    pos_[i] = above == m.begin() ? m.end() : std::prev(above);
  }
  PickCurrent();
}

void KvMemReverseCursor::StepBack(size_t layer) {
  const KvMemMap& m = (*layers_)[layer]->map;
  pos_[layer] = pos_[layer] == m.begin() ? m.end() : std::prev(pos_[layer]);
}

void KvMemReverseCursor::Prev() {
  if (!Valid()) return;
  // As KvMemCursor::Next, mirrored: the older layers' entries of the same key go first, the
  // current one last, as its key is what they are compared with.
  const std::string_view k = pos_[current_]->first;
  for (size_t i = 0; i < pos_.size(); ++i) {
    if (i != current_ && pos_[i] != (*layers_)[i]->map.end() && pos_[i]->first == k) StepBack(i);
  }
  StepBack(current_);
  PickCurrent();
}

// The greatest key among the layers' positions; the newest layer on a tie.
void KvMemReverseCursor::PickCurrent() {
  current_ = kNone;
  for (size_t i = pos_.size(); i-- > 0;) {
    if (pos_[i] == (*layers_)[i]->map.end()) continue;
    if (current_ == kNone || pos_[i]->first > pos_[current_]->first) current_ = i;
  }
}

}  // namespace reftab

#include "store/reverse_merge_cursor.h"

#include <utility>

namespace reftab {

RefReverseMergeCursor::RefReverseMergeCursor(const std::vector<const TableReader*>& tables) {
  children_.reserve(tables.size());
  for (const TableReader* t : tables) children_.emplace_back(t);
  heap_.reserve(tables.size());
}

Status RefReverseMergeCursor::SeekToLast() {
  return Reposition([](TableRefReverseCursor& c) { return c.SeekToLast(); });
}

Status RefReverseMergeCursor::SeekBefore(std::string_view want, bool inclusive) {
  return Reposition([&](TableRefReverseCursor& c) { return c.SeekBefore(want, inclusive); });
}

template <class F>
Status RefReverseMergeCursor::Reposition(F&& seek) {
  status_ = Status::Ok();
  heap_.clear();
  top_ = nullptr;
  single_ = false;
  for (uint32_t i = 0; i < children_.size(); ++i) {
    Status s = seek(children_[i]);
    if (!s.ok()) {
      status_ = std::move(s);
      heap_.clear();
      return status_;
    }
    if (children_[i].Valid()) heap_.push_back(i);
  }
  Rebuild();
  Settle();
  return status_;
}

bool RefReverseMergeCursor::Above(uint32_t a, uint32_t b) const {
  const int c = children_[a].key().compare(children_[b].key());
  return c > 0 || (c == 0 && a > b);
}

void RefReverseMergeCursor::SiftDown(size_t i) {
  const size_t n = heap_.size();
  for (;;) {
    size_t best = i;
    const size_t l = 2 * i + 1, r = l + 1;
    if (l < n && Above(heap_[l], heap_[best])) best = l;
    if (r < n && Above(heap_[r], heap_[best])) best = r;
    if (best == i) return;
    std::swap(heap_[i], heap_[best]);
    i = best;
  }
}

void RefReverseMergeCursor::PopTop() {
  heap_[0] = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDown(0);
}

void RefReverseMergeCursor::Rebuild() {
  for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  UpdateTop();
}

void RefReverseMergeCursor::UpdateTop() {
  top_ = heap_.empty() ? nullptr : &children_[heap_[0]];
  single_ = heap_.size() == 1;
}

void RefReverseMergeCursor::Failed(const TableRefReverseCursor& c) {
  if (status_.ok()) status_ = c.status();
  heap_.clear();
  UpdateTop();
}

void RefReverseMergeCursor::StepTopName() {
  if (single_) {
    top_->Prev();
    if (!top_->Valid()) {
      if (!top_->status().ok()) return Failed(*top_);
      heap_.clear();
      UpdateTop();
    }
    return;
  }
  // The top cursor moves first (its name is copied: the others are compared with it), then
  // every cursor still on that name, which is an older table's, shadowed.
  name_.assign(top_->key().data(), top_->key().size());
  for (bool first = true; !heap_.empty(); first = false) {
    TableRefReverseCursor& c = children_[heap_[0]];
    if (!first && c.key() != std::string_view(name_)) break;
    c.Prev();
    if (c.Valid()) {
      SiftDown(0);
    } else if (!c.status().ok()) {
      return Failed(c);
    } else {
      PopTop();
    }
  }
  UpdateTop();
}

void RefReverseMergeCursor::Settle() {
  while (top_ != nullptr && suppress_deletions_ && top_->value_type() == 0) StepTopName();
}

void RefReverseMergeCursor::SettleSingle() {
  for (;;) {
    TableRefReverseCursor& c = *top_;
    if (!c.Valid()) {
      if (!c.status().ok()) return Failed(c);
      heap_.clear();
      UpdateTop();
      return;
    }
    if (!suppress_deletions_ || c.value_type() != 0) return;
    c.Prev();
  }
}

void RefReverseMergeCursor::PrevMerged() {
  StepTopName();
  Settle();
}

}  // namespace reftab

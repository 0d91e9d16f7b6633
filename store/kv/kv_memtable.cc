#include "store/kv/kv_memtable.h"

namespace reftab {

namespace {

// What a map entry costs beyond its bytes (node, string headers), roughly: enough that a
// memtable of tiny entries is bounded too.
constexpr size_t kEntryOverhead = 64;

}  // namespace

KvMemLookup LookupKvMemLayers(const KvMemLayers& layers, std::string_view key, std::string* value) {
  for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer) {
    auto it = (*layer)->find(key);
    if (it == (*layer)->end()) continue;
    if (!it->second) return KvMemLookup::kDeleted;
    value->assign(*it->second);
    return KvMemLookup::kValue;
  }
  return KvMemLookup::kAbsent;
}

void KvMemtable::Set(std::string_view key, std::optional<std::string_view> value) {
  bytes_ += key.size() + (value ? value->size() : 0) + kEntryOverhead;
  auto it = writable_.lower_bound(key);  // one descent, for the insert's hint too
  if (it == writable_.end() || it->first != key) {
    writable_.emplace_hint(it, std::string(key),
                           value ? std::optional<std::string>(*value) : std::nullopt);
  } else if (value && it->second) {
    it->second->assign(*value);  // an overwrite reuses the old value's buffer
  } else if (value) {
    it->second.emplace(*value);
  } else {
    it->second.reset();
  }
}

void KvMemtable::Put(std::string_view key, std::string_view value) { Set(key, value); }
void KvMemtable::Delete(std::string_view key) { Set(key, std::nullopt); }

KvMemLookup KvMemtable::Get(std::string_view key, std::string* value) const {
  auto it = writable_.find(key);
  if (it != writable_.end()) {
    if (!it->second) return KvMemLookup::kDeleted;
    value->assign(*it->second);
    return KvMemLookup::kValue;
  }
  return LookupKvMemLayers(*frozen_, key, value);
}

std::shared_ptr<const KvMemLayers> KvMemtable::Freeze() {
  if (writable_.empty()) return frozen_;
  KvMemLayers layers = *frozen_;
  layers.push_back(std::make_shared<const KvMemMap>(std::move(writable_)));
  writable_.clear();
  while (layers.size() >= 2 && layers[layers.size() - 2]->size() <= 2 * layers.back()->size()) {
    auto merged = std::make_shared<KvMemMap>(*layers[layers.size() - 2]);
    for (const auto& [k, v] : *layers.back()) merged->insert_or_assign(k, v);
    layers.pop_back();
    layers.back() = std::move(merged);
  }
  frozen_ = std::make_shared<const KvMemLayers>(std::move(layers));
  return frozen_;
}

void KvMemtable::Clear() {
  writable_.clear();
  frozen_ = std::make_shared<const KvMemLayers>();
  bytes_ = 0;
}

KvMemCursor::KvMemCursor(std::shared_ptr<const KvMemLayers> layers) : layers_(std::move(layers)) {
  pos_.reserve(layers_->size());
  for (const auto& layer : *layers_) pos_.push_back(layer->end());
}

void KvMemCursor::Seek(std::string_view key) {
  for (size_t i = 0; i < pos_.size(); ++i) pos_[i] = (*layers_)[i]->lower_bound(key);
  PickCurrent();
}

void KvMemCursor::Next() {
  if (!Valid()) return;
  // The older layers' entries of the same key are hidden by the current one; the current
  // layer moves last, as its entry is what they are compared with.
  const std::string& k = pos_[current_]->first;
  for (size_t i = 0; i < pos_.size(); ++i) {
    if (i != current_ && pos_[i] != (*layers_)[i]->end() && pos_[i]->first == k) ++pos_[i];
  }
  ++pos_[current_];
  PickCurrent();
}

// The smallest key among the layers' positions; the newest layer on a tie.
void KvMemCursor::PickCurrent() {
  current_ = kNone;
  for (size_t i = pos_.size(); i-- > 0;) {
    if (pos_[i] == (*layers_)[i]->end()) continue;
    if (current_ == kNone || pos_[i]->first < pos_[current_]->first) current_ = i;
  }
}

}  // namespace reftab

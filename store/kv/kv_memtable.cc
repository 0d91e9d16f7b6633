#include "store/kv/kv_memtable.h"

#define XXH_INLINE_ALL  // header-only, as in kv_log_format.cc
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "store/huge_pages.h"

namespace reftab {

namespace {

// What a map entry costs beyond its bytes (node, string headers), roughly: enough that a
// memtable of tiny entries is bounded too.
constexpr size_t kEntryOverhead = 64;

}  // namespace

KvMemPool::~KvMemPool() {
  for (void* chunk : chunks_) UnmapHugePages(chunk, kHugePageBytes);
}

char* KvMemPool::ChunkLocked() {
  if (!free_chunks_.empty()) {  // given back whole: touched already
    char* chunk = free_chunks_.back();
    free_chunks_.pop_back();
    return chunk;
  }
  if ((chunks_.size() + 1) * kHugePageBytes > limit_bytes_) return nullptr;
  void* chunk = MapHugePages(kHugePageBytes);
  if (chunk != nullptr) chunks_.push_back(chunk);
  return static_cast<char*>(chunk);
}

KvMemPool::Block KvMemPool::Take() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
      if (char* chunk = ChunkLocked()) {
        for (size_t at = kHugePageBytes; at != 0; at -= kKvArenaBlock) {
          free_.push_back(chunk + at - kKvArenaBlock);
        }
      }
    }
    if (!free_.empty()) {
      char* block = free_.back();
      free_.pop_back();
      return Block{block, true};
    }
  }
  return Block{new char[kKvArenaBlock], false};
}

void KvMemPool::Give(Block block) {
  if (!block.pooled) {
    delete[] block.data;
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(block.data);
}

char* KvMemPool::TakeChunk() {
  std::lock_guard<std::mutex> lock(mu_);
  return ChunkLocked();
}

void KvMemPool::GiveChunk(char* chunk) {
  std::lock_guard<std::mutex> lock(mu_);
  free_chunks_.push_back(chunk);
}

size_t KvMemPool::chunk_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return chunks_.size() * kHugePageBytes;
}

KvArena::~KvArena() {
  for (const KvMemPool::Block& block : blocks_) pool_->Give(block);
  for (char* chunk : chunks_) pool_->GiveChunk(chunk);
  for (char* chunk : own_chunks_) UnmapHugePages(chunk, kHugePageBytes);
}

char* KvArena::Reserve(size_t bytes, size_t alignment) {
  size_t pad = size_t(-reinterpret_cast<uintptr_t>(at_)) & (alignment - 1);
  if (left_ < pad + bytes) {
    blocks_.push_back(pool_->Take());
    at_ = blocks_.back().data;
    left_ = kBlock;
    pad = 0;  // a block is aligned for any type
  }
  char* p = at_ + pad;
  at_ = p + bytes;
  left_ -= pad + bytes;
  return p;
}

std::string_view KvArena::Copy(std::string_view bytes) {
  if (bytes.empty()) return std::string_view();
  char* dst = static_cast<char*>(do_allocate(bytes.size(), 1));
  std::memcpy(dst, bytes.data(), bytes.size());
  return std::string_view(dst, bytes.size());
}

char* KvArena::ReserveInChunk(size_t bytes) {
  if (chunk_left_ < bytes) {
    char* chunk = pool_->TakeChunk();
    if (chunk != nullptr) {
      chunks_.push_back(chunk);
    } else {
      // Past the pool's limit (a batch larger than the memtable, say): a chunk of the
      // arena's own, still one fault for 2 MiB where malloc's memory takes one per 4 KiB
      // page. A batch of 1,000 values of 100 KiB spent a sixth of its time copying
      // them into malloc's fresh pages.
      chunk = static_cast<char*>(MapHugePages(kHugePageBytes));
      if (chunk == nullptr) return nullptr;
      own_chunks_.push_back(chunk);
    }
    chunk_at_ = chunk;
    chunk_left_ = kHugePageBytes;
  }
  char* p = chunk_at_;
  chunk_at_ += bytes;
  chunk_left_ -= bytes;
  return p;
}

void* KvArena::do_allocate(size_t bytes, size_t alignment) {
  if (bytes > kBlock / 4 || alignment > alignof(std::max_align_t)) {
    // A large entry (or a node of an unusual alignment, which the maps do not make): served
    // apart, so that the current block is not cut short; in a chunk of the pool if it takes
    // at most a quarter of one (copies only: their bytes need no alignment).
    if (alignment == 1 && bytes <= kHugePageBytes / 4) {
      if (char* p = ReserveInChunk(bytes)) return p;
    }
    large_.push_back(std::make_unique_for_overwrite<char[]>(bytes + alignment));
    auto at = reinterpret_cast<uintptr_t>(large_.back().get());
    return reinterpret_cast<void*>((at + alignment - 1) & ~uintptr_t(alignment - 1));
  }
  return Reserve(bytes, alignment);
}

void KvMemHash::Build(const KvMemMap& map) {
  size_t count = 2;
  while (count < 2 * map.size()) count *= 2;
  slots_.assign(count, 0);
  entries_.clear();
  entries_.reserve(map.size());
  mask_ = count - 1;
  for (const auto& entry : map) {
    const uint64_t h = XXH3_64bits(entry.first.data(), entry.first.size());
    size_t i = size_t(h) & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    entries_.push_back(&entry);
    slots_[i] = (h >> 32 << 32) | uint64_t(entries_.size());
  }
}

const KvMemMap::value_type* KvMemHash::Find(std::string_view key) const {
  if (entries_.empty()) return nullptr;
  const uint64_t h = XXH3_64bits(key.data(), key.size());
  const uint64_t tag = h >> 32 << 32;
  for (size_t i = size_t(h) & mask_;; i = (i + 1) & mask_) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return nullptr;
    if ((slot & ~uint64_t(0xffffffff)) == tag) {
      const KvMemMap::value_type* e = entries_[uint32_t(slot) - 1];
      if (e->first == key) return e;
    }
  }
}

KvMemLookup LookupKvMemLayers(const KvMemLayers& layers, std::string_view key, std::string* value) {
  for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer) {
    const KvMemMap::value_type* e = (*layer)->Find(key);
    if (e == nullptr) continue;
    if (!e->second) return KvMemLookup::kDeleted;
    value->assign(*e->second);
    return KvMemLookup::kValue;
  }
  return KvMemLookup::kAbsent;
}

KvMemtable::KvMemtable(std::shared_ptr<KvMemPool> pool)
    : pool_(pool ? std::move(pool) : std::make_shared<KvMemPool>(0)),
      arena_(std::make_shared<KvArena>(pool_)),
      writable_(std::make_unique<KvMemLayer>(arena_)) {}

void KvMemtable::Set(std::string_view key, std::optional<std::string_view> value, bool borrowed) {
  const size_t size = key.size() + (value ? value->size() : 0);
  bytes_ += size + kEntryOverhead;
  ++writes_;
  largest_ = std::max(largest_, size);
  std::optional<std::string_view> stored;
  if (value) stored = borrowed ? *value : arena_->Copy(*value);
  // Keys written in ascending order (a sequential fill, a sorted batch) go after the last
  // one without a descent; otherwise one descent, for the insert's hint too.
  KvMemMap& map = writable_->map;
  auto it = map.end();
  if (!map.empty() && std::prev(it)->first >= key) it = map.lower_bound(key);
  if (it == map.end() || it->first != key) {
    map.emplace_hint(it, borrowed ? key : arena_->Copy(key), stored);
  } else {
    it->second = stored;  // the old value's bytes stay in the arena (counted in bytes_)
  }
}

void KvMemtable::Put(std::string_view key, std::string_view value) { Set(key, value, false); }
void KvMemtable::Delete(std::string_view key) { Set(key, std::nullopt, false); }
void KvMemtable::PutBorrowed(std::string_view key, std::string_view value) {
  Set(key, value, true);
}
void KvMemtable::DeleteBorrowed(std::string_view key) { Set(key, std::nullopt, true); }

KvMemLookup KvMemtable::Get(std::string_view key, std::string* value) const {
  auto it = writable_->map.find(key);
  if (it != writable_->map.end()) {
    if (!it->second) return KvMemLookup::kDeleted;
    value->assign(*it->second);
    return KvMemLookup::kValue;
  }
  return LookupKvMemLayers(*frozen_, key, value);
}

std::shared_ptr<const KvMemLayers> KvMemtable::Freeze() {
  if (writable_->map.empty()) return frozen_;
  KvMemLayers layers = *frozen_;
  std::shared_ptr<KvMemLayer> top = std::move(writable_);
  top->arenas.push_back(arena_);  // later writes add to it; the views stay valid
  writable_ = std::make_unique<KvMemLayer>(arena_);
  // The new layer joins the one below while that one is not more than twice its size.
  while (!layers.empty() && layers.back()->map.size() <= 2 * top->map.size()) {
    const KvMemLayer& older = *layers.back();
    auto merged = std::make_shared<KvMemLayer>(std::make_shared<KvArena>(pool_));  // own nodes
    merged->map = older.map;
    merged->arenas = older.arenas;
    for (const auto& [k, v] : top->map) merged->map.insert_or_assign(k, v);
    for (const auto& a : top->arenas) {
      if (std::find(merged->arenas.begin(), merged->arenas.end(), a) == merged->arenas.end()) {
        merged->arenas.push_back(a);
      }
    }
    layers.pop_back();
    top = std::move(merged);
  }
  layers.push_back(std::move(top));
  frozen_ = std::make_shared<const KvMemLayers>(std::move(layers));
  return frozen_;
}

void KvMemtable::Clear() {
  arena_ = std::make_shared<KvArena>(pool_);
  writable_ = std::make_unique<KvMemLayer>(arena_);
  frozen_ = std::make_shared<const KvMemLayers>();
  bytes_ = 0;
  writes_ = 0;
  largest_ = 0;
}

KvMemCursor::KvMemCursor(std::shared_ptr<const KvMemLayers> layers) : layers_(std::move(layers)) {
  pos_.reserve(layers_->size());
  for (const auto& layer : *layers_) pos_.push_back(layer->map.end());
}

void KvMemCursor::Seek(std::string_view key) {
  for (size_t i = 0; i < pos_.size(); ++i) pos_[i] = (*layers_)[i]->map.lower_bound(key);
  PickCurrent();
}

void KvMemCursor::Next() {
  if (!Valid()) return;
  // The older layers' entries of the same key are hidden by the current one; the current
  // layer moves last, as its entry is what they are compared with.
  const std::string_view k = pos_[current_]->first;
  for (size_t i = 0; i < pos_.size(); ++i) {
    if (i != current_ && pos_[i] != (*layers_)[i]->map.end() && pos_[i]->first == k) ++pos_[i];
  }
  ++pos_[current_];
  PickCurrent();
}

// The smallest key among the layers' positions; the newest layer on a tie.
void KvMemCursor::PickCurrent() {
  current_ = kNone;
  for (size_t i = pos_.size(); i-- > 0;) {
    if (pos_[i] == (*layers_)[i]->map.end()) continue;
    if (current_ == kNone || pos_[i]->first < pos_[current_]->first) current_ = i;
  }
}

}  // namespace reftab

// Public API (a part of GitRefTransaction, store/git/refs/ref_transaction.h): a vector whose
// elements never move: they live in chunks of a fixed count, so a reference
// to one (or a view of a string in one) stays valid as the vector grows, and growing copies
// nothing, as std::deque; but an index is a shift and a mask, where libstdc++'s deque (512
// bytes a block, four elements of a hundred-odd bytes) divides, and a chunk is one
// allocation for many elements. For GitRefTransaction's queued updates, up to a million.
#ifndef REFTAB_STORE_GIT_REFS_STABLE_VECTOR_H_
#define REFTAB_STORE_GIT_REFS_STABLE_VECTOR_H_

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace reftab {

template <class T, size_t kChunkBits = 10>
class StableVector {
 public:
  static constexpr size_t kChunk = size_t{1} << kChunkBits;

  // A vector moved from is empty.
  StableVector() = default;
  StableVector(StableVector&& o) noexcept
      : chunks_(std::move(o.chunks_)), size_(std::exchange(o.size_, 0)) {}
  StableVector& operator=(StableVector&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~StableVector() { clear(); }

  size_t size() const { return size_; }
  // Element i, for i < size().
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return Slot(i); }
  const T& operator[](size_t i) const { return Slot(i); }
  T& back() { return Slot(size_ - 1); }

  // Appends `value`, moved in, and returns it where it stays.
  T& push_back(T&& value) {
    // Left uninitialised (make_unique would zero the chunk, only to construct over it).
    if (size_ == chunks_.size() * kChunk) {
      chunks_.push_back(std::unique_ptr<Storage[]>(new Storage[kChunk]));
    }
    T* slot = new (&chunks_[size_ >> kChunkBits][size_ & (kChunk - 1)]) T(std::move(value));
    ++size_;
    return *slot;
  }

  // Destroys every element and frees the chunks.
  void clear() {
    for (size_t i = size_; i > 0; --i) Slot(i - 1).~T();
    size_ = 0;
    chunks_.clear();
  }

 private:
  struct Storage {
    alignas(T) unsigned char bytes[sizeof(T)];
  };
  T& Slot(size_t i) const {
    return *std::launder(reinterpret_cast<T*>(chunks_[i >> kChunkBits][i & (kChunk - 1)].bytes));
  }
  std::vector<std::unique_ptr<Storage[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_STABLE_VECTOR_H_

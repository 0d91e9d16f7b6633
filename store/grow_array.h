// Internal, not installed: a growable array of trivially copyable values kept with realloc.
// A big array grows by remapping its pages (no copy), and a page is touched only once a value
// is written to it: a std::vector's doubling copies every value and its new capacity is
// written to when resized, page faults that showed as a compaction's system time.
#ifndef REFTAB_STORE_GROW_ARRAY_H_
#define REFTAB_STORE_GROW_ARRAY_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "format/bytes.h"

namespace reftab {

template <class T>
class GrowArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  GrowArray() = default;
  ~GrowArray() { std::free(data_); }
  GrowArray(const GrowArray&) = delete;
  GrowArray& operator=(const GrowArray&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  // False, with nothing added, if memory runs out.
  REFTAB_FORCE_INLINE bool push_back(const T& v) {
    if (size_ == cap_ && !Grow(size_ + 1)) return false;
    data_[size_++] = v;
    return true;
  }
  // Room for `n` more values past size(), written through the pointer returned, then
  // Commit(n) or fewer; null if memory runs out.
  REFTAB_FORCE_INLINE T* Reserve(size_t n) {
    if (cap_ - size_ < n && !Grow(size_ + n)) return nullptr;
    return data_ + size_;
  }
  void Commit(size_t n) { size_ += n; }
  // Frees the memory.
  void Release() {
    std::free(data_);
    data_ = nullptr;
    size_ = cap_ = 0;
  }

 private:
  [[gnu::noinline]] bool Grow(size_t at_least) {
    size_t cap = cap_ ? 2 * cap_ : 4096 / sizeof(T) + 1;
    if (cap < at_least) cap = at_least;
    if (cap > SIZE_MAX / sizeof(T)) return false;
    void* p = std::realloc(data_, cap * sizeof(T));
    if (p == nullptr) return false;
    data_ = static_cast<T*>(p);
    cap_ = cap;
    return true;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GROW_ARRAY_H_

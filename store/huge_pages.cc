#include "store/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

namespace reftab {

void* MapHugePages(size_t bytes) {
  // Map one huge page more than asked for and unmap what lies outside the aligned range.
  const size_t len = bytes + kHugePageBytes;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (start + kHugePageBytes - 1) & ~uintptr_t(kHugePageBytes - 1);
  if (aligned > start) munmap(p, aligned - start);
  const uintptr_t tail = aligned + bytes, end = start + len;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
#ifdef MADV_HUGEPAGE
  (void)madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

void UnmapHugePages(void* p, size_t bytes) { munmap(p, bytes); }

void ReserveHugePages(std::string* s, size_t more) {
  const size_t need = s->size() + more;
  if (need <= s->capacity() || need < kHugePageBytes) return;
  std::string fresh;
  fresh.reserve(std::max(need, 2 * s->capacity()));
#ifdef MADV_HUGEPAGE
  const auto start = reinterpret_cast<uintptr_t>(fresh.data());
  const uintptr_t first = (start + kHugePageBytes - 1) & ~uintptr_t(kHugePageBytes - 1);
  const uintptr_t end = (start + fresh.capacity()) & ~uintptr_t(kHugePageBytes - 1);
  if (end > first) (void)madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#endif
  fresh.append(*s);
  s->swap(fresh);
}

}  // namespace reftab

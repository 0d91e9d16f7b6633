#include "store/huge_pages.h"

#include <sys/mman.h>

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

}  // namespace reftab

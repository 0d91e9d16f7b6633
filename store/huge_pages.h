// Internal: memory the kernel may back with 2 MiB pages (transparent huge pages), for
// large arrays touched at random or written once in a hurry. With 4 KiB pages nearly every
// random probe of a large array also misses the TLB, and every page written for the first
// time is a fault of its own (12-15 us each on the VM of perf/RESULTS.md).
#ifndef REFTAB_STORE_HUGE_PAGES_H_
#define REFTAB_STORE_HUGE_PAGES_H_

#include <cstddef>
#include <string>

namespace reftab {

inline constexpr size_t kHugePageBytes = size_t(2) << 20;

// `bytes` (a multiple of kHugePageBytes) of zeroed memory at a kHugePageBytes boundary,
// advised as huge pages (a hint: without them the memory works the same). Null if the
// mapping fails. Give it back with UnmapHugePages(p, bytes).
void* MapHugePages(size_t bytes);
void UnmapHugePages(void* p, size_t bytes);

// Makes room in *s for `more` bytes past its size. A string that would outgrow
// kHugePageBytes moves to a buffer at least twice its capacity whose whole huge pages are
// advised as such before anything is copied in: written for the first time, 2 MiB then
// cost one fault instead of 512. Smaller strings grow as std::string grows them.
void ReserveHugePages(std::string* s, size_t more);

}  // namespace reftab

#endif  // REFTAB_STORE_HUGE_PAGES_H_

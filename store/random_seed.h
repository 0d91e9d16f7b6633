// Internal: 32 random bits for the suffixes of new file names and retry jitter.
#ifndef REFTAB_STORE_RANDOM_SEED_H_
#define REFTAB_STORE_RANDOM_SEED_H_

#include <cstdint>

namespace reftab {

// From getrandom(2), falling back to the clock and process id when the kernel has none.
// Not std::random_device: constructing one executes CPUID to probe for RDRAND, and in a
// virtual machine CPUID traps to the hypervisor (23 us per construction on a Firecracker VM,
// a tenth of a whole `show-ref --verify` beyond process start), where getrandom takes 0.3 us.
uint32_t RandomSeed();

}  // namespace reftab

#endif  // REFTAB_STORE_RANDOM_SEED_H_

#include "store/random_seed.h"

#include <sys/random.h>
#include <unistd.h>

#include <chrono>

namespace reftab {

uint32_t RandomSeed() {
  uint32_t seed = 0;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == ssize_t(sizeof seed)) return seed;
  // No entropy yet (early boot) or no getrandom: names need only differ between writers,
  // which the clock and the process id already make likely; the lock file settles the rest.
  const uint64_t now = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return uint32_t(now ^ (now >> 32) ^ (uint64_t(::getpid()) * 0x9e3779b9u));
}

}  // namespace reftab

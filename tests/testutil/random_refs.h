// Seeded random record sets for model-based tests.
#ifndef REFTAB_TESTS_TESTUTIL_RANDOM_REFS_H_
#define REFTAB_TESTS_TESTUTIL_RANDOM_REFS_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "format/record.h"
#include "store/table_reader.h"
#include "store/table_writer.h"

namespace reftab::testutil {

// A plausible ref name: refs/heads/..., refs/tags/..., with shared prefixes and some odd
// bytes, so prefix compression and restarts get exercised.
std::string RandomRefName(std::mt19937_64& rng);
ObjectId RandomId(std::mt19937_64& rng, size_t hash_size);
// A random ref record of any value type with update_index in [min, max].
RefRecord RandomRef(std::mt19937_64& rng, const std::string& name, size_t hash_size,
                    uint64_t min_update_index, uint64_t max_update_index);
LogRecord RandomLog(std::mt19937_64& rng, const std::string& name, uint64_t update_index,
                    size_t hash_size);

// `n` distinct random names mapped to records, sorted (the model for a table).
std::map<std::string, RefRecord> RandomRefSet(std::mt19937_64& rng, size_t n, size_t hash_size,
                                              uint64_t min_update_index, uint64_t max_update_index);

// Writes refs (sorted) and logs (sorted) into an in-memory table.
std::string WriteTableToString(const WriteOptions& opts, uint64_t min_update_index,
                               uint64_t max_update_index, const std::vector<RefRecord>& refs,
                               const std::vector<LogRecord>& logs);

bool SameRef(const RefRecord& a, const RefRecord& b, size_t hash_size);
bool SameLog(const LogRecord& a, const LogRecord& b, size_t hash_size);

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_RANDOM_REFS_H_

// Public API: the two record kinds a reftable stores.
//
// Records own their buffers. Readers fill a caller-provided record in place, reusing its
// strings' capacity, so iterating a table allocates nothing per record once the buffers have
// grown to the longest name seen.
#ifndef REFTAB_FORMAT_RECORD_H_
#define REFTAB_FORMAT_RECORD_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/constants.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// An object id. Only the first HashSize(hash) bytes are meaningful.
using ObjectId = std::array<uint8_t, kMaxHashSize>;

// Whether the first `hash_size` bytes of `id` are zero: git's null id, which stands for "no
// object" (a ref that does not exist yet, or no longer) wherever an id is expected.
// A hash of an id for unordered containers: its first bytes, as ids are uniformly random.
struct ObjectIdHash {
  size_t operator()(const ObjectId& id) const {
    size_t h = 0;
    for (size_t i = 0; i < sizeof(h); ++i) h = h << 8 | id[i];
    return h;
  }
};

inline bool IsZeroId(const ObjectId& id, size_t hash_size) {
  for (size_t i = 0; i < hash_size; ++i) {
    if (id[i] != 0) return false;
  }
  return true;
}

enum class RefValueType : uint8_t {
  kDeletion = 0,  // tombstone: hides the name in older tables
  kVal1 = 1,      // one object id
  kVal2 = 2,      // object id + peeled object id (annotated tags)
  kSymref = 3,    // symbolic ref: `target` holds the referent's name
};

struct RefRecord {
  std::string refname;
  uint64_t update_index = 0;  // absolute (the table stores a delta from its minimum)
  RefValueType value_type = RefValueType::kDeletion;
  ObjectId value{};    // kVal1, kVal2
  ObjectId peeled{};   // kVal2
  std::string target;  // kSymref

  bool is_deletion() const { return value_type == RefValueType::kDeletion; }
};

enum class LogValueType : uint8_t {
  kDeletion = 0,  // hides the log entry (refname, update_index) in older tables
  kUpdate = 1,
};

struct LogRecord {
  std::string refname;
  uint64_t update_index = 0;
  LogValueType value_type = LogValueType::kDeletion;
  ObjectId old_id{};
  ObjectId new_id{};
  std::string name;   // committer name
  std::string email;  // without the surrounding < >
  uint64_t time = 0;  // seconds since the epoch
  // git's convention: the decimal digits of "+HHMM" as a signed integer (+0530 -> 530,
  // -0800 -> -800). JGit stores minutes. Kept raw; never converted.
  int16_t tz_offset = 0;
  std::string message;

  bool is_deletion() const { return value_type == LogValueType::kDeletion; }
};

// Hex helpers for object ids (lowercase).
std::string HexId(const ObjectId& id, size_t hash_size);
// Appends the 2 * `hash_size` hex digits of `id` to `out` in place: for listings and dumps
// that print an id per ref into one buffer, with no string of its own per id.
void AppendHexId(const ObjectId& id, size_t hash_size, std::string* out);
// The value of one hex digit, either case (as git reads them); -1 for any other byte.
int HexDigitValue(char c);
// Parses exactly 2*hash_size hex digits, either case (as git reads them), into `out`; returns
// false on bad input (then `out` holds nothing meaningful).
bool ParseHexId(std::string_view hex, size_t hash_size, ObjectId* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_FORMAT_RECORD_H_

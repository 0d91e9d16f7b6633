// An object id in lowercase hex, appended to an output buffer in place: HexId
// (format/record.h) returns a string of its own, a heap allocation per id (40 or 64
// characters do not fit a short string), which listings and dumps of many refs would pay
// per id.
#ifndef REFTAB_CLI_HEX_ID_H_
#define REFTAB_CLI_HEX_ID_H_

#include <cstddef>
#include <string>

#include "format/record.h"

namespace reftab::cli {

inline void AppendHexId(const ObjectId& id, size_t hash_size, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const size_t at = out->size();
  out->resize(at + 2 * hash_size);
  char* p = out->data() + at;
  for (size_t i = 0; i < hash_size; ++i) {
    *p++ = kDigits[id[i] >> 4];
    *p++ = kDigits[id[i] & 15];
  }
}

}  // namespace reftab::cli

#endif  // REFTAB_CLI_HEX_ID_H_

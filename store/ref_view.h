// Internal, not installed (store/meson.build leaves it out of store_public_headers): a ref
// record read as a key/value pair whose value stays where the table holds it, for the key/value
// store's iterator (store/kv/kv_store.h). A ref block is never compressed, so a record's
// value lies whole in the table's bytes (mapped or read in whole by TableReader): handing
// out a view of it instead of a copy saves a copy of every value a scan passes (with 100 KiB
// values, 82% of a scan was that copy).
#ifndef REFTAB_STORE_REF_VIEW_H_
#define REFTAB_STORE_REF_VIEW_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "format/bytes.h"

namespace reftab {

// The cursors' ReadValue(RefView*) fills it (store/section_cursor.h,
// store/table_reverse_cursor.h). `value` is a view of the table's bytes: valid while the
// TableReader lives, whatever the cursor does next.
struct RefView {
  std::string refname;  // copied, except by ReadValueOnly (left as it was)
  // A symbolic ref's target; for an object id record (value types 1 and 2, a stack shared
  // with git's refs) the first id's bytes; empty for a deletion.
  std::string_view value;
  uint8_t value_type = 0;  // as stored: 0 deletion, 1 and 2 object ids, 3 symbolic ref
  bool is_deletion() const { return value_type == 0; }
};

// GetRefValueView's case in a scan of the key/value store, with raw pointers and one
// length check (the general decoder, through ByteReader and out of line, cost 36
// instructions a record): a value of type 3 at `v` (records end at `end`) with a one-byte
// update index delta and a length of one or two varint bytes (under 16,512). Sets *value
// and returns where the value ends; null for anything else, which GetRefValueView decodes
// (or rejects).
REFTAB_FORCE_INLINE const uint8_t* GetShortKvValue(uint8_t value_type, const uint8_t* v,
                                                   const uint8_t* end, std::string_view* value) {
  if (value_type != 3 || end - v < 3 || (v[0] & 0x80) != 0) return nullptr;
  size_t len = v[1];
  const uint8_t* s = v + 2;
  if (len & 0x80) {
    if (v[2] & 0x80) return nullptr;
    len = (((len & 0x7f) + 1) << 7) | v[2];
    ++s;
  }
  if (len > size_t(end - s)) return nullptr;
  *value = std::string_view(reinterpret_cast<const char*>(s), len);
  return s + len;
}

// Decodes the value of a ref record of `value_type` from `in` into `*value` (see RefView),
// leaving `in` after it; false if it is malformed (`in` then failed or the type unknown).
// The update index is skipped.
inline bool GetRefValueView(ByteReader& in, uint8_t value_type, size_t hash_size,
                            std::string_view* value) {
  in.GetVarint();  // the update index delta
  const uint8_t* p;
  switch (value_type) {
    case 0: *value = std::string_view(); return in.ok();
    case 1:
    case 2:
      p = in.GetBytes(value_type * hash_size);
      if (p == nullptr) return false;
      *value = std::string_view(reinterpret_cast<const char*>(p), hash_size);
      return in.ok();
    case 3: *value = in.GetLengthPrefixed(); return in.ok();
    default: return false;
  }
}

}  // namespace reftab

#endif  // REFTAB_STORE_REF_VIEW_H_

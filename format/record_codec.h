// Internal: value encodings of the four record kinds (FORMAT.md §7-§10). Keys and their
// prefix compression are handled by the block writer and block iterator; these functions
// encode and decode what follows the key.
//
// Encoders write through an Appender into space the caller reserved with the matching
// *MaxSize function. Decoders read through a ByteReader and return false on malformed data.
#ifndef REFTAB_FORMAT_RECORD_CODEC_H_
#define REFTAB_FORMAT_RECORD_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes.h"
#include "format/record.h"

namespace reftab::codec {

// ---- ref records: varint update_index_delta, then the value by type.
inline size_t RefValueMaxSize(const RefRecord& r, size_t hash_size) {
  return 2 * kMaxVarintLen + 2 * hash_size + r.target.size();
}
inline void PutRefValue(Appender& a, const RefRecord& r, uint64_t min_update_index,
                        size_t hash_size) {
  a.PutVarint(r.update_index - min_update_index);
  // kVal1 first: nearly every ref is one (a switch tested it after kVal2 and kSymref).
  // Constant sizes let the copy compile to a few moves instead of a memcpy call.
  if (r.value_type == RefValueType::kVal1) [[likely]] {
    if (hash_size == 20) {
      a.PutBytes(r.value.data(), 20);
    } else {
      a.PutBytes(r.value.data(), 32);
    }
    return;
  }
  switch (r.value_type) {
    case RefValueType::kDeletion: break;
    case RefValueType::kVal1: break;  // above
    case RefValueType::kVal2:
      a.PutBytes(r.value.data(), hash_size);
      a.PutBytes(r.peeled.data(), hash_size);
      break;
    case RefValueType::kSymref: a.PutLengthPrefixed(r.target); break;
  }
}
// Decodes a symref value (value type 3) as GetRefValue does, but without copying the
// target: sets r's update index and value type and returns a view of the target's bytes in
// `in`'s buffer, for a caller that copies them another way. in.ok() is false if malformed.
REFTAB_FORCE_INLINE std::string_view GetSymrefValue(ByteReader& in, uint64_t min_update_index,
                                                    RefRecord* r) {
  r->update_index = min_update_index + in.GetVarint();
  r->value_type = RefValueType::kSymref;
  return in.GetLengthPrefixed();
}
// Decodes the value of a ref record with `value_type` into `r` (all fields but refname).
REFTAB_FORCE_INLINE bool GetRefValue(ByteReader& in, uint8_t value_type, uint64_t min_update_index,
                                     size_t hash_size, RefRecord* r) {
  // Fast path, the common record of a scan: a one-byte update index delta and one SHA-1,
  // copied with a fixed-size move.
  if (value_type == 1 && hash_size == kSha1Size && in.remaining() > kSha1Size && *in.pos() < 0x80) {
    const uint8_t* p = in.GetBytes(1 + kSha1Size);
    r->update_index = min_update_index + p[0];
    r->value_type = RefValueType::kVal1;
    std::memcpy(r->value.data(), p + 1, kSha1Size);
    return true;
  }
  if (value_type == 3) {
    const std::string_view t = GetSymrefValue(in, min_update_index, r);
    r->target.assign(t.data(), t.size());
    return in.ok();
  }
  r->update_index = min_update_index + in.GetVarint();
  switch (value_type) {
    case 0: r->value_type = RefValueType::kDeletion; break;
    case 1: {
      r->value_type = RefValueType::kVal1;
      const uint8_t* p = in.GetBytes(hash_size);
      if (p) std::memcpy(r->value.data(), p, hash_size);
      break;
    }
    case 2: {
      r->value_type = RefValueType::kVal2;
      const uint8_t* p = in.GetBytes(2 * hash_size);
      if (p) {
        std::memcpy(r->value.data(), p, hash_size);
        std::memcpy(r->peeled.data(), p + hash_size, hash_size);
      }
      break;
    }
    default: return false;  // 3 above
  }
  return in.ok();
}
// Skips a ref value without decoding it; false on malformed data.
bool SkipRefValue(ByteReader& in, uint8_t value_type, size_t hash_size);

// ---- log records: key = refname || 0 || be64(~update_index).
inline constexpr size_t kLogKeySuffix = 9;
inline void PutLogKey(std::string* key, std::string_view refname, uint64_t update_index) {
  key->assign(refname.data(), refname.size());
  uint8_t suffix[kLogKeySuffix];
  suffix[0] = 0;
  be::Store64(suffix + 1, ~update_index);
  key->append(reinterpret_cast<const char*>(suffix), kLogKeySuffix);
}
// Splits a log key; false if it is not of that shape.
inline bool SplitLogKey(std::string_view key, std::string* refname, uint64_t* update_index) {
  if (key.size() <= kLogKeySuffix || key[key.size() - kLogKeySuffix] != 0) return false;
  refname->assign(key.data(), key.size() - kLogKeySuffix);
  *update_index = ~be::Load64(reinterpret_cast<const uint8_t*>(key.data()) + key.size() - 8);
  return true;
}
inline size_t LogValueMaxSize(const LogRecord& r, size_t hash_size) {
  return 2 * hash_size + 4 * kMaxVarintLen + 2 + r.name.size() + r.email.size() + r.message.size();
}
void PutLogValue(Appender& a, const LogRecord& r, size_t hash_size);
// The same with `message` in place of r.message (a writer's cleaned copy of it).
void PutLogValue(Appender& a, const LogRecord& r, std::string_view message, size_t hash_size);
// Decodes a log value (all fields but refname and update_index).
bool GetLogValue(ByteReader& in, uint8_t value_type, size_t hash_size, LogRecord* r);

// ---- obj records: key = id prefix; low 3 bits = count (0: varint count follows);
// then first block position and deltas.
struct ObjRecord {
  std::string id_prefix;
  std::vector<uint64_t> positions;  // ascending ref block offsets; empty = "scan all refs"
};
inline size_t ObjValueMaxSize(size_t count) { return (count + 1) * kMaxVarintLen; }
// The 3-bit value type an obj record with `count` positions uses.
inline uint8_t ObjValueType(size_t count) { return count >= 1 && count <= 7 ? uint8_t(count) : 0; }
void PutObjValue(Appender& a, const uint64_t* positions, size_t count);
bool GetObjValue(ByteReader& in, uint8_t value_type, std::vector<uint64_t>* positions);

// ---- index records: key = last key of the indexed block; value = its file offset.
inline size_t IndexValueMaxSize() { return kMaxVarintLen; }

}  // namespace reftab::codec

#endif  // REFTAB_FORMAT_RECORD_CODEC_H_

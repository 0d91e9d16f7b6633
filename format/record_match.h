// Internal: MatchRecordAt, inline, for the exact lookup through the hash index
// (store/table_reader.cc), whose path it is: as a call it cost a frame, a stack buffer's
// set-up and the path passed through memory (about 30 instructions of a lookup's 630).
#ifndef REFTAB_FORMAT_RECORD_MATCH_H_
#define REFTAB_FORMAT_RECORD_MATCH_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "format/record_codec.h"

namespace reftab {

// Skips a value in a hot loop: the common cases inline, the rest through SkipValue.
inline bool SkipValueAt(const uint8_t** p, const uint8_t* end, BlockType type, uint8_t value_type,
                        size_t hash_size) {
  if (type == BlockType::kIndex || type == BlockType::kRef) {
    uint64_t v;
    if (!GetVarintAt(p, end, &v)) return false;  // child offset / update index delta
    if (type == BlockType::kIndex) return true;
    size_t n = value_type == 1 ? hash_size : value_type == 2 ? 2 * hash_size : 0;
    if (value_type == 3) {
      if (!GetVarintAt(p, end, &v) || v > uint64_t(end - *p)) return false;
      n = size_t(v);
    } else if (value_type > 3) {
      return false;
    }
    if (n > size_t(end - *p)) return false;
    *p += n;
    return true;
  }
  ByteReader in(*p, end);
  bool ok = SkipValue(in, type, value_type, hash_size);
  *p = in.pos();
  return ok;
}

// One record of MatchRecordAt's walk, any encoding: copies its suffix into key[prefix, ...)
// (clipped to cap), sets *key_len to its key's length and steps *p over its value. False if
// it is malformed or shares more than max_prefix bytes with the key before it.
[[gnu::noinline]] inline bool StepRecord(const uint8_t** p, const uint8_t* e, uint8_t* key,
                                         size_t cap, size_t max_prefix, size_t* key_len,
                                         size_t hash_size) {
  uint64_t prefix, suffix_and_type;
  if (!GetVarintAt(p, e, &prefix) || !GetVarintAt(p, e, &suffix_and_type)) return false;
  const uint64_t suffix = suffix_and_type >> 3;
  if (prefix > max_prefix || suffix > uint64_t(e - *p)) return false;
  if (prefix < cap) {
    std::memcpy(key + prefix, *p, size_t(std::min<uint64_t>(suffix, cap - prefix)));
  }
  *p += suffix;
  *key_len = size_t(prefix + suffix);
  return SkipValueAt(p, e, BlockType::kRef, uint8_t(suffix_and_type & 7), hash_size);
}

// A record's key fields when its prefix takes one byte and its suffix_and_type one or two
// (every name under 128 bytes after a restart point, under 2048 bytes elsewhere), with at
// least 3 bytes of room. False for any other encoding, left to GetVarintAt.
struct RecordHead {
  size_t prefix;
  size_t suffix;
  uint8_t value_type;
  const uint8_t* s;  // the suffix
};
REFTAB_FORCE_INLINE bool ShortHead(const uint8_t* p, const uint8_t* e, RecordHead* h) {
  if (e - p < 3 || (p[0] & 0x80) != 0) return false;
  uint32_t st = p[1];
  const uint8_t* s = p + 2;
  if (st & 0x80) {
    if (p[2] & 0x80) return false;
    st = ((st & 0x7f) + 1) << 7 | p[2];
    ++s;
  }
  *h = {p[0], st >> 3, uint8_t(st & 7), s};
  return true;
}

// One record of MatchRecordAt's walk: copies its suffix to key[prefix, ...), sets *cur_len to
// its key's length and steps *p over its value. The common record (a short head, an id or
// none after a one-byte update index delta, 16 bytes of room past the suffix, a key that
// fits the buffer) is copied in 16-byte moves without bounds checks: the bytes moved past
// the suffix are beyond *cur_len and are overwritten before anything reads them, and a value
// running past the record the caller named ends the walk, which then reports it. A value of
// type 3 (a length and bytes) with a one-byte length takes the same path. A record
// sharing more than max_prefix bytes sets *bad. Anything else goes through StepRecord.
REFTAB_FORCE_INLINE bool WalkRecord(const uint8_t** p, const uint8_t* e, uint8_t* key, size_t cap,
                                    size_t max_prefix, size_t* cur_len, bool* bad,
                                    size_t hash_size) {
  RecordHead h;
  if (ShortHead(*p, e, &h) && h.prefix + h.suffix <= cap && size_t(e - h.s) >= h.suffix + 16 &&
      (h.s[h.suffix] & 0x80) == 0) {
    // The value after the one-byte delta: ids, or (type 3, the key/value store's values) a
    // length under 128 and its bytes. Both bytes read lie within the 16 bytes of room.
    size_t value_bytes;
    if (h.value_type <= 2) {
      value_bytes = h.value_type * hash_size;
    } else if (h.value_type == 3 && (h.s[h.suffix + 1] & 0x80) == 0) {
      value_bytes = size_t(1) + h.s[h.suffix + 1];
    } else {
      return StepRecord(p, e, key, cap, max_prefix, cur_len, hash_size);
    }
    *bad |= h.prefix > max_prefix;
    std::memcpy(key + h.prefix, h.s, 16);
    for (size_t i = 16; i < h.suffix; i += 16) std::memcpy(key + h.prefix + i, h.s + i, 16);
    *cur_len = h.prefix + h.suffix;
    *p = h.s + h.suffix + 1 + value_bytes;
    return true;
  }
  return StepRecord(p, e, key, cap, max_prefix, cur_len, hash_size);
}

// MatchRecordAt with a key buffer of cap + 16 bytes (cap >= want.size(), cap >= 128). Key
// bytes at positions cap and up are not kept: no comparison reads them, since `want` is
// shorter.
REFTAB_FORCE_INLINE BlockFind MatchRecordWith(uint8_t* key, size_t cap, const uint8_t* block,
                                              const RecordPath& path, std::string_view want,
                                              size_t hash_size) {
  BlockFind r;
  r.result = BlockFind::kCorrupt;
  if (path.start < path.first || path.start > path.checkpoint || path.checkpoint > path.record ||
      path.record >= path.end) {
    return r;
  }
  const uint8_t* p = block + path.start;
  const uint8_t* const rec = block + path.record;
  const uint8_t* const e = block + path.end;
  // key[0, cur_len) (clipped to cap) is the key of the record before p. A record sharing
  // more than that is corrupt; `bad` notes it without a branch.
  size_t cur_len = 0;
  bool bad = false;
  if (path.checkpoint > path.start) {
    // The restart key, then the checkpoint's: its first bytes and the checkpoint's suffix.
    // A checkpoint that is the record itself is compared as the walk's last record.
    if (!WalkRecord(&p, e, key, cap, 0, &cur_len, &bad, hash_size)) return r;
    p = block + path.checkpoint;
    if (p < rec && !WalkRecord(&p, e, key, cap, cur_len, &cur_len, &bad, hash_size)) return r;
  }
  while (p < rec) {
    if (!WalkRecord(&p, e, key, cap, cur_len, &cur_len, &bad, hash_size)) return r;
  }
  if (p != rec || bad) return r;  // the records step past the one the caller named
  RecordHead h;
  if (!ShortHead(p, e, &h)) {
    uint64_t prefix, suffix_and_type;
    if (!GetVarintAt(&p, e, &prefix) || !GetVarintAt(&p, e, &suffix_and_type)) return r;
    h = {size_t(prefix), size_t(suffix_and_type >> 3), uint8_t(suffix_and_type & 7), p};
  }
  if (h.prefix > cur_len || h.suffix > size_t(e - h.s)) return r;
  r.result = BlockFind::kEnd;
  if (h.prefix + h.suffix != want.size()) return r;
  // One comparison of the whole name: the suffix joins the key first when it can be moved
  // in 16-byte steps (prefix + suffix = want.size() <= cap).
  if (size_t(e - h.s) >= h.suffix + 16) {
    for (size_t i = 0; i < h.suffix; i += 16) std::memcpy(key + h.prefix + i, h.s + i, 16);
    if (std::memcmp(key, want.data(), want.size()) != 0) return r;
  } else if (std::memcmp(key, want.data(), h.prefix) != 0 ||
             std::memcmp(h.s, want.data() + h.prefix, h.suffix) != 0) {
    return r;
  }
  r.result = BlockFind::kEqual;
  r.value_type = h.value_type;
  r.value_pos = uint32_t(h.s + h.suffix - block);
  return r;
}

// MatchRecordAt for a name longer than its stack buffer: apart, so that the usual call does
// not pay this one's register saves.
[[gnu::noinline]] inline BlockFind MatchLongRecord(const uint8_t* block, const RecordPath& path,
                                                   std::string_view want, size_t hash_size) {
  std::unique_ptr<uint8_t[]> key(new uint8_t[want.size() + 16]);  // cap > 256 >= 128
  return MatchRecordWith(key.get(), want.size(), block, path, want, hash_size);
}

// Whether the ref record at path.record has the key `want`, for a caller that knows
// where the record is (store/ref_hash_index.h). The key is built from the restart key and the
// checkpoint's suffix (if the checkpoint is not the restart point), then the records after
// the checkpoint are stepped over with their key bytes copied, not compared, and `want` is
// compared once with the record's whole key. kEqual (value_type, value_pos set) if it
// matches, kEnd if the key there is another one, kCorrupt if the records do not lead to
// path.record within [first, end). Reads nothing at or past `end`; allocates only for names
// longer than 256 bytes.
REFTAB_FORCE_INLINE BlockFind MatchRecordAt(const uint8_t* block, const RecordPath& path,
                                            std::string_view want, size_t hash_size) {
  constexpr size_t kCap = 256;
  if (want.size() > kCap) return MatchLongRecord(block, path, want, hash_size);
  uint8_t key[kCap + 16];
  return MatchRecordWith(key, kCap, block, path, want, hash_size);
}

}  // namespace reftab

#endif  // REFTAB_FORMAT_RECORD_MATCH_H_

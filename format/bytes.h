// Internal: fixed-width big-endian helpers, the reftable varint, and the two cursors every
// codec is written against:
//   * Appender: a raw write cursor for encoders. The caller reserves the maximum encoded size
//     of a whole record once (Appender::Reserve on the owning buffer), then every Put* is an
//     unchecked store. This is the "check bounds once per record" technique.
//   * ByteReader: a bounded read cursor for decoders with a sticky error flag. Every Get*
//     checks the remaining length; once a read fails all later reads fail too, so decoders
//     check ok() once at the end of a record before using any decoded value.
#ifndef REFTAB_FORMAT_BYTES_H_
#define REFTAB_FORMAT_BYTES_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

// The per-record helpers of the hot loops (varints, key decoding, value decoding, the
// iterators' Next) are defined in headers so they inline into the caller's loop, also
// across the shared library boundary. perf/ builds a variant with -DREFTAB_ABLATE_NOINLINE
// that keeps them out of line, to measure what inlining is worth (perf/RESULTS.md).
// REFTAB_FORCE_INLINE is for the few steps the compiler's size limits would otherwise keep
// out of line in some loops (the call's register saves then cost more than the step), where
// callgrind showed it.
#ifdef REFTAB_ABLATE_NOINLINE
#define REFTAB_HOT_INLINE [[gnu::noinline]] inline
#define REFTAB_FORCE_INLINE [[gnu::noinline]] inline
#else
#define REFTAB_HOT_INLINE inline
#define REFTAB_FORCE_INLINE [[gnu::always_inline]] inline
#endif

namespace reftab {

namespace be {
inline uint16_t Load16(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }
inline uint32_t Load24(const uint8_t* p) {
  return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
}
inline uint32_t Load32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
inline uint64_t Load64(const uint8_t* p) { return (uint64_t(Load32(p)) << 32) | Load32(p + 4); }
inline void Store16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
inline void Store24(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 16);
  p[1] = uint8_t(v >> 8);
  p[2] = uint8_t(v);
}
inline void Store32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}
inline void Store64(uint8_t* p, uint64_t v) {
  Store32(p, uint32_t(v >> 32));
  Store32(p + 4, uint32_t(v));
}
}  // namespace be

// The largest encoding of a reftable varint (a uint64): 10 bytes.
inline constexpr size_t kMaxVarintLen = 10;

// Number of bytes PutVarint writes for `v`.
inline size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while ((v >>= 7) != 0) {
    --v;
    ++n;
  }
  return n;
}

// memcpy for the short, variable lengths of key suffixes: two overlapping fixed-size moves
// instead of a call. Reads and writes exactly [0, n).
REFTAB_FORCE_INLINE void CopyShort(uint8_t* dst, const uint8_t* src, size_t n) {
  if (n >= 8) {
    if (n > 16) {
      std::memcpy(dst, src, n);
      return;
    }
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    uint8_t first = src[0], mid = src[n / 2], last = src[n - 1];
    dst[0] = first;
    dst[n / 2] = mid;
    dst[n - 1] = last;
  }
}

// s->assign(v) for a scan's names, which come in families of one length: one as long as
// the one it replaces is copied over it (CopyShort), without std::string's call.
REFTAB_FORCE_INLINE void AssignName(std::string* s, std::string_view v) {
  if (s->size() == v.size()) {
    CopyShort(reinterpret_cast<uint8_t*>(s->data()), reinterpret_cast<const uint8_t*>(v.data()),
              v.size());
  } else {
    s->assign(v.data(), v.size());
  }
}

// Raw write cursor. It never checks space: the owner reserved enough for a whole record.
class Appender {
 public:
  explicit Appender(uint8_t* p) : p_(p) {}
  uint8_t* pos() const { return p_; }

  void PutByte(uint8_t b) { *p_++ = b; }
  void PutBytes(const void* data, size_t n) {
    if (n) std::memcpy(p_, data, n);
    p_ += n;
  }
  void PutBytes(std::string_view s) { PutBytes(s.data(), s.size()); }
  // Writes kN bytes from `data` but keeps only n <= kN of them (the cursor moves by n): one
  // fixed-size copy for lengths that vary per table, not per record. The kN - n bytes past
  // the cursor are garbage; the caller's buffer has room for them, and what it writes next
  // overwrites them.
  template <size_t kN>
  void PutBytesOver(const void* data, size_t n) {
    std::memcpy(p_, data, kN);
    p_ += n;
  }
  void PutBE16(uint16_t v) {
    be::Store16(p_, v);
    p_ += 2;
  }
  void PutBE24(uint32_t v) {
    be::Store24(p_, v);
    p_ += 3;
  }
  void PutBE32(uint32_t v) {
    be::Store32(p_, v);
    p_ += 4;
  }
  void PutBE64(uint64_t v) {
    be::Store64(p_, v);
    p_ += 8;
  }
  // Reftable varint: 7-bit groups, most significant first, +1 bias on continuation.
  REFTAB_FORCE_INLINE void PutVarint(uint64_t v) {
    if (v < 0x80) {  // the overwhelmingly common case in ref blocks
      *p_++ = uint8_t(v);
      return;
    }
    if (v < 0x4080) {  // two bytes: a restart point's suffix length and type, most offsets
      p_[0] = uint8_t(0x80 | ((v >> 7) - 1));
      p_[1] = uint8_t(v & 0x7f);
      p_ += 2;
      return;
    }
    // Out of line, and by value: a call given `this` would keep the cursor in memory
    // instead of a register in the caller's whole loop.
    p_ = PutLongVarint(p_, v);
  }
  void PutLengthPrefixed(std::string_view s) {
    PutVarint(s.size());
    PutBytes(s);
  }

 private:
  [[gnu::noinline]] static uint8_t* PutLongVarint(uint8_t* p, uint64_t v) {
    uint8_t buf[kMaxVarintLen];
    size_t pos = kMaxVarintLen - 1;
    buf[pos] = uint8_t(v & 0x7f);
    while ((v >>= 7) != 0) {
      --v;
      buf[--pos] = uint8_t(0x80 | (v & 0x7f));
    }
    std::memcpy(p, buf + pos, kMaxVarintLen - pos);
    return p + (kMaxVarintLen - pos);
  }

  uint8_t* p_;
};

// Bounded read cursor with a sticky error flag.
class ByteReader {
 public:
  ByteReader(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  ByteReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}

  bool ok() const { return ok_; }
  const uint8_t* pos() const { return p_; }
  size_t remaining() const { return size_t(end_ - p_); }
  void Fail() {
    ok_ = false;
    p_ = end_;
  }

  uint8_t GetByte() {
    if (p_ == end_) {
      Fail();
      return 0;
    }
    return *p_++;
  }
  uint16_t GetBE16() {
    if (remaining() < 2) return Fail(), 0;
    uint16_t v = be::Load16(p_);
    p_ += 2;
    return v;
  }
  // Returns a pointer to `n` bytes and skips them, or nullptr (and fails) if fewer remain.
  const uint8_t* GetBytes(size_t n) {
    if (remaining() < n) {
      Fail();
      return nullptr;
    }
    const uint8_t* p = p_;
    p_ += n;
    return p;
  }
  // Reads a varint; fails on truncation and on values that do not fit in 64 bits.
  uint64_t GetVarint() {
    if (p_ != end_ && *p_ < 0x80) return *p_++;  // fast path: one byte
    return GetVarintSlow();
  }
  // A varint length followed by that many bytes.
  std::string_view GetLengthPrefixed() {
    uint64_t n = GetVarint();
    if (!ok_ || n > remaining()) {
      Fail();
      return {};
    }
    const char* s = reinterpret_cast<const char*>(p_);
    p_ += n;
    return std::string_view(s, size_t(n));
  }

 private:
  uint64_t GetVarintSlow() {
    if (p_ == end_) return Fail(), 0;
    uint8_t c = *p_++;
    uint64_t val = c & 0x7f;
    while (c & 0x80) {
      val += 1;
      if (val == 0 || (val >> 57) != 0) return Fail(), 0;  // would overflow 64 bits
      if (p_ == end_) return Fail(), 0;
      c = *p_++;
      val = (val << 7) | (c & 0x7f);
    }
    return val;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

// Raw-pointer varint read for hot loops that track their own position: reads the varint at
// *p (p < end required for success), advances *p, and returns false on truncation or
// overflow. The one-byte case is inline; longer ones go through ByteReader.
REFTAB_HOT_INLINE bool GetVarintAt(const uint8_t** p, const uint8_t* end, uint64_t* v) {
  const uint8_t* q = *p;
  if (end - q >= std::ptrdiff_t(kMaxVarintLen)) {  // room for any varint: no bounds checks
    uint64_t c = *q++;
    uint64_t val = c & 0x7f;
    while (c & 0x80) {
      if (val >= (uint64_t(1) << 56)) goto slow;  // near overflow: let ByteReader decide
      c = *q++;
      val = ((val + 1) << 7) | (c & 0x7f);
    }
    *v = val;
    *p = q;
    return true;
  }
slow:
  ByteReader r(*p, end);
  *v = r.GetVarint();
  *p = r.pos();
  return r.ok();
}

// Index of the first differing byte of two unequal words loaded from memory.
inline size_t Mismatch64(uint64_t x, uint64_t y) {
  if constexpr (std::endian::native == std::endian::little) {
    return size_t(__builtin_ctzll(x ^ y) >> 3);
  } else {
    return size_t(__builtin_clzll(x ^ y) >> 3);
  }
}
inline size_t Mismatch32(uint32_t x, uint32_t y) {
  if constexpr (std::endian::native == std::endian::little) {
    return size_t(__builtin_ctz(x ^ y) >> 3);
  } else {
    return size_t(__builtin_clz(x ^ y) >> 3);
  }
}

// Length of the common prefix of a[0, n) and b[0, n), eight bytes at a time.
REFTAB_HOT_INLINE size_t MismatchAt(const uint8_t* a, const uint8_t* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return i + Mismatch64(x, y);
  }
  if (i == n) return n;
  if (n >= 8) {
    // The last eight bytes, overlapping the ones compared already (those are equal), so
    // the first difference among them is the first one overall.
    uint64_t x, y;
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    return x != y ? n - 8 + Mismatch64(x, y) : n;
  }
  if (n - i >= 4) {
    uint32_t x, y;
    std::memcpy(&x, a + i, 4);
    std::memcpy(&y, b + i, 4);
    if (x != y) return i + Mismatch32(x, y);
    i += 4;
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// The same for whole ref names, which are often longer than 16 bytes: 16-byte moves, the
// last one overlapping the one before, instead of a call to memcpy (whose call and dispatch
// cost more than the copy of a name). Names up to 48 bytes (nearly all of them) take two or
// three moves with no loop: the loop's counter and branch cost as much as its moves
// (callgrind, scan of 38-byte names: 17 instructions per name with the loop). Buffers must
// not overlap.
REFTAB_FORCE_INLINE void CopyShort(char* dst, const char* src, size_t n) {
  auto move16 = [&](size_t at) {
    char t[16];
    std::memcpy(t, src + at, 16);
    std::memcpy(dst + at, t, 16);
  };
  // Each length class ends in its own return, so that g++ does not merge the classes'
  // first moves into one shared (and then branchier) sequence.
  if (n > 32) {
    if (n > 48) {
      for (size_t i = 0; i + 16 < n; i += 16) move16(i);
      move16(n - 16);
      return;
    }
    move16(0);
    move16(16);
    move16(n - 16);
    return;
  }
  if (n >= 16) {
    move16(0);
    move16(n - 16);
    return;
  }
  CopyShort(reinterpret_cast<uint8_t*>(dst), reinterpret_cast<const uint8_t*>(src), n);
}

// True if [offset, offset + len) lies within [0, size) without overflow.
inline bool FitsWithin(uint64_t offset, uint64_t len, uint64_t size) {
  return offset <= size && len <= size - offset;
}

}  // namespace reftab

#endif  // REFTAB_FORMAT_BYTES_H_

#include "store/git/objects/pack.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "format/bytes.h"
#include "store/git/objects/delta.h"
#include "store/git/objects/zinflate.h"

namespace reftab {
namespace {

constexpr size_t kFanout = 256 * 4;
constexpr size_t kIdxHeader = 8;    // "\377tOc", version 2
constexpr size_t kPackHeader = 12;  // "PACK", version, object count
constexpr size_t kDeltaHead = 32;   // enough of a delta for its two sizes

uint32_t Be32(const uint8_t* p) { return be::Load32(p); }

}  // namespace

size_t CommonHexDigits(const uint8_t* a, const uint8_t* b, size_t hash_size) {
  size_t n = 0;
  for (size_t i = 0; i < hash_size; ++i, n += 2) {
    if (a[i] == b[i]) continue;
    return n + ((a[i] >> 4) == (b[i] >> 4) ? 1 : 0);
  }
  return n;
}

GitPack::~GitPack() {
  for (Mapped* m : {&idx_, &pack_}) {
    if (m->data) munmap(const_cast<uint8_t*>(m->data), m->size);
  }
}

Status GitPack::Map(const std::string& path, Mapped* m) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(path + ": " + std::strerror(errno));
  struct stat st;
  Status s;
  if (fstat(fd, &st) != 0) {
    s = Status::IoError(path + ": " + std::strerror(errno));
  } else if (st.st_size <= 0) {
    s = Status::Corruption(path + ": empty file");
  } else {
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      s = Status::IoError(path + ": " + std::strerror(errno));
    } else {
      m->data = static_cast<const uint8_t*>(p);
      m->size = size_t(st.st_size);
    }
  }
  close(fd);
  return s;
}

Status GitPack::Open(const std::string& idx_path, size_t hash_size) {
  hs_ = hash_size;
  pack_path_ = idx_path.substr(0, idx_path.size() - 4) + ".pack";
  REFTAB_RETURN_IF_ERROR(Map(idx_path, &idx_));
  const uint8_t* d = idx_.data;
  if (idx_.size < kIdxHeader + kFanout + 2 * hs_ || std::memcmp(d, "\377tOc", 4) != 0 ||
      Be32(d + 4) != 2) {
    return Status::Corruption(idx_path + ": not a version 2 pack index");
  }
  for (size_t i = 1; i < 256; ++i) {
    if (Be32(d + kIdxHeader + i * 4) < Be32(d + kIdxHeader + (i - 1) * 4)) {
      return Status::Corruption(idx_path + ": fan-out table is not sorted");
    }
  }
  count_ = Be32(d + kIdxHeader + 255 * 4);
  // Names, CRCs and 4-byte offsets, then the 8-byte offsets, then two checksums.
  const uint64_t tables = kIdxHeader + kFanout + uint64_t(count_) * (hs_ + 8);
  if (idx_.size < tables + 2 * hs_ || (idx_.size - tables - 2 * hs_) % 8 != 0) {
    return Status::Corruption(idx_path + ": pack index size does not match its " +
                              std::to_string(count_) + " objects");
  }
  big_offsets_ = (idx_.size - tables - 2 * hs_) / 8;
  REFTAB_RETURN_IF_ERROR(Map(pack_path_, &pack_));
  const uint8_t* p = pack_.data;
  if (pack_.size < kPackHeader + hs_ || std::memcmp(p, "PACK", 4) != 0 ||
      (Be32(p + 4) != 2 && Be32(p + 4) != 3)) {
    return Status::Corruption(pack_path_ + ": not a version 2 or 3 pack");
  }
  if (Be32(p + 8) != count_) {
    return Status::Corruption(pack_path_ + ": holds " + std::to_string(Be32(p + 8)) +
                              " objects, its index " + std::to_string(count_));
  }
  end_ = pack_.size - hs_;
  return Status::Ok();
}

Status GitPack::Error(uint64_t offset, const std::string& what) const {
  return Status::Corruption(pack_path_ + ": object at offset " + std::to_string(offset) + ": " +
                            what);
}

// The position of `id` among the index's sorted names, or false. Ids are hashes, spread
// evenly over their fan-out bucket, so interpolating on their first 8 bytes lands within a
// few entries of the answer: about 4 probes for a bucket of a million-object pack where a
// binary search takes 12, each a cache miss into 20 MB of names. A bucket whose ends share
// their first 8 bytes, or a search that does not converge, is finished by bisection.
bool GitPack::Position(const ObjectId& id, uint32_t* pos) const {
  const uint8_t* fan = idx_.data + kIdxHeader;
  uint32_t lo = id[0] ? Be32(fan + (id[0] - 1) * 4) : 0, hi = Be32(fan + id[0] * 4);
  const uint8_t* names = fan + kFanout;
  const uint64_t key = be::Load64(id.data());
  auto head = [&](uint32_t i) { return be::Load64(names + size_t(i) * hs_); };
  auto compare = [&](uint32_t i) {
    uint64_t h = head(i);
    if (h != key) return h < key ? -1 : 1;
    return std::memcmp(names + size_t(i) * hs_ + 8, id.data() + 8, hs_ - 8);
  };
  for (int probes = 0; hi - lo > 8 && probes < 8; ++probes) {
    const uint64_t a = head(lo), b = head(hi - 1);
    if (key < a || key > b) {
      *pos = key < a ? lo : hi;  // where `id` would go: CommonHexPrefix's neighbours
      return false;
    }
    if (a == b) break;
    // (key - a) / (b - a) of the way from lo to hi - 1, in 64-bit arithmetic: both
    // differences lose their low bits until the span fits in 32.
    const uint64_t span = b - a;
    const int shift = span >> 32 ? 64 - __builtin_clzll(span >> 32) : 0;
    const uint32_t guess = lo + uint32_t(((key - a) >> shift) * (hi - 1 - lo) / (span >> shift));
    const int c = compare(guess);
    if (c == 0) {
      *pos = guess;
      return true;
    }
    if (c < 0) {
      lo = guess + 1;
    } else {
      hi = guess;
    }
  }
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = compare(mid);
    if (c == 0) {
      *pos = mid;
      return true;
    }
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *pos = lo;  // where `id` would go: CommonHexPrefix's neighbours
  return false;
}

bool GitPack::Find(const ObjectId& id, uint64_t* offset) const {
  uint32_t pos = 0;
  return Position(id, &pos) && OffsetAt(pos, offset);
}

bool GitPack::OffsetAt(uint32_t pos, uint64_t* offset) const {
  const uint8_t* offs = idx_.data + kIdxHeader + kFanout + size_t(count_) * (hs_ + 4);
  const uint32_t o = Be32(offs + size_t(pos) * 4);
  if (o & 0x80000000u) {
    const size_t big = o & 0x7fffffffu;
    if (big >= big_offsets_) return false;
    *offset = be::Load64(offs + size_t(count_) * 4 + big * 8);
  } else {
    *offset = o;
  }
  // An offset outside the entries is not an object of this pack; reading it would fail.
  return *offset >= kPackHeader && *offset < end_;
}

ObjectId GitPack::NameAt(uint32_t pos) const {
  ObjectId id{};
  std::memcpy(id.data(), idx_.data + kIdxHeader + kFanout + size_t(pos) * hs_, hs_);
  return id;
}

Status GitPack::Storage(uint64_t offset, uint64_t* disk_size, ObjectId* delta_base) {
  *disk_size = 0;
  delta_base->fill(0);
  if (by_offset_.empty() && count_ > 0) {
    by_offset_.reserve(count_);
    for (uint32_t pos = 0; pos < count_; ++pos) {
      uint64_t at = 0;
      if (!OffsetAt(pos, &at)) {
        return Status::Corruption(pack_path_ + ": index entry " + std::to_string(pos) +
                                  " points outside the pack");
      }
      by_offset_.emplace_back(at, pos);
    }
    std::sort(by_offset_.begin(), by_offset_.end());
  }
  auto entry_at = [&](uint64_t at) {
    auto it = std::lower_bound(by_offset_.begin(), by_offset_.end(), std::make_pair(at, 0u));
    return it != by_offset_.end() && it->first == at ? it : by_offset_.end();
  };
  auto it = entry_at(offset);
  if (it == by_offset_.end()) return Error(offset, "no index entry starts here");
  // An entry ends where the next one starts, the last one at the trailing checksum.
  *disk_size = (it + 1 != by_offset_.end() ? (it + 1)->first : end_) - offset;
  Entry e;
  REFTAB_RETURN_IF_ERROR(ParseEntry(offset, &e));
  if (e.type == 6 || e.type == 7) {
    auto base = entry_at(e.base);
    if (base == by_offset_.end()) return Error(offset, "delta base is not an indexed entry");
    *delta_base = NameAt(base->second);
  }
  return Status::Ok();
}

void GitPack::IdsWithPrefix(const ObjectId& prefix, size_t digits,
                            std::vector<ObjectId>* out) const {
  // The prefix padded with zeros sorts first among the ids that start with it.
  uint32_t pos = 0;
  Position(prefix, &pos);
  for (; pos < count_; ++pos) {
    ObjectId id = NameAt(pos);
    if (CommonHexDigits(id.data(), prefix.data(), hs_) < digits) break;
    out->push_back(id);
  }
}

size_t GitPack::CommonHexPrefix(const ObjectId& id) const {
  uint32_t pos = 0;
  const bool found = Position(id, &pos);
  const uint8_t* names = idx_.data + kIdxHeader + kFanout;
  size_t best = 0;
  auto consider = [&](int64_t i) {
    if (i < 0 || i >= int64_t(count_)) return;
    best = std::max(best, CommonHexDigits(names + size_t(i) * hs_, id.data(), hs_));
  };
  // Position() leaves `pos` inside the id's fan-out bucket; the neighbours in sorted order
  // are the ids on either side (outside the bucket they share under two digits: harmless).
  consider(int64_t(pos) - 1);
  consider(found ? int64_t(pos) + 1 : int64_t(pos));
  return best;
}

Status GitPack::ParseEntry(uint64_t offset, Entry* e) const {
  uint64_t p = offset;
  auto next = [&](uint8_t* c) {
    if (p >= end_) return false;
    *c = pack_.data[p++];
    return true;
  };
  uint8_t c = 0;
  if (!next(&c)) return Error(offset, "past the end of the pack");
  e->type = (c >> 4) & 7;
  e->size = c & 0x0f;
  for (int shift = 4; c & 0x80; shift += 7) {
    if (shift > 57 || !next(&c)) return Error(offset, "corrupt entry header");
    e->size |= uint64_t(c & 0x7f) << shift;
  }
  if (e->type == 6) {
    if (!next(&c)) return Error(offset, "delta cut short");
    uint64_t back = c & 0x7f;
    while (c & 0x80) {
      // Past the offset already: no valid base, and stopping here keeps the shift in range.
      if (back >= offset || !next(&c)) return Error(offset, "corrupt delta base offset");
      back = ((back + 1) << 7) | (c & 0x7f);
    }
    if (back == 0 || back >= offset) return Error(offset, "delta base offset out of the pack");
    e->base = offset - back;
  } else if (e->type == 7) {
    if (p + hs_ > end_) return Error(offset, "delta cut short");
    ObjectId base{};
    std::memcpy(base.data(), pack_.data + p, hs_);
    p += hs_;
    if (!Find(base, &e->base)) {
      return Error(offset, "delta base " + HexId(base, hs_) + " is not in the pack");
    }
  } else if (e->type < 1 || e->type > 4) {
    return Error(offset, "unknown entry type " + std::to_string(e->type));
  }
  e->data = p;
  return Status::Ok();
}

Status GitPack::Chain(uint64_t offset, std::vector<uint64_t>* chain, uint64_t* base,
                      Entry* e) const {
  chain->clear();
  for (uint64_t at = offset;;) {
    REFTAB_RETURN_IF_ERROR(ParseEntry(at, e));
    if (e->type != 6 && e->type != 7) {
      *base = at;
      return Status::Ok();
    }
    if (chain->size() >= size_t(kMaxDeltaChain)) return Error(offset, "delta chain too long");
    chain->push_back(at);
    at = e->base;
  }
}

Status GitPack::Type(uint64_t offset, GitObjectType* type) const {
  std::vector<uint64_t> chain;
  uint64_t base = 0;
  Entry e;
  REFTAB_RETURN_IF_ERROR(Chain(offset, &chain, &base, &e));
  *type = GitObjectType(e.type);
  return Status::Ok();
}

Status GitPack::Size(uint64_t offset, GitObjectType* type, uint64_t* size) const {
  Entry e;
  REFTAB_RETURN_IF_ERROR(ParseEntry(offset, &e));
  *size = e.size;
  if (e.type == 6 || e.type == 7) {
    // A delta's entry gives the delta's size; the object's is the second of its header.
    std::string head;
    uint64_t base_size = 0;
    Status s = InflatePrefix(pack_.data + e.data, end_ - e.data, kDeltaHead, &head);
    if (s.ok()) s = DeltaSizes(head, &base_size, size);
    if (!s.ok()) return Error(offset, s.message());
  }
  return Type(offset, type);
}

Status GitPack::Read(uint64_t offset, DeltaBaseCache* cache, GitObjectType* type,
                     std::string* content) {
  // Walk down to a whole object or a cached base, then apply the deltas back up.
  std::vector<uint64_t> chain;
  std::string base;
  uint64_t base_at = offset;
  for (uint64_t at = offset;;) {
    base_at = at;
    if (const DeltaBaseCache::Item* hit = cache->Get(this, at)) {
      *type = hit->type;
      base = hit->data;
      break;
    }
    Entry e;
    REFTAB_RETURN_IF_ERROR(ParseEntry(at, &e));
    if (e.type != 6 && e.type != 7) {
      *type = GitObjectType(e.type);
      Status s = InflateExactly(pack_.data + e.data, end_ - e.data, e.size, &base);
      if (!s.ok()) return Error(at, s.message());
      break;
    }
    if (chain.size() >= size_t(kMaxDeltaChain)) return Error(offset, "delta chain too long");
    chain.push_back(at);
    at = e.base;
  }
  std::string delta, result;
  for (size_t i = chain.size(); i-- > 0;) {
    const uint64_t at = chain[i];
    // The object below this delta is a base; keep it for the next read of its family.
    cache->Put(this, i + 1 < chain.size() ? chain[i + 1] : base_at, *type, base);
    Entry e;
    REFTAB_RETURN_IF_ERROR(ParseEntry(at, &e));
    Status s = InflateExactly(pack_.data + e.data, end_ - e.data, e.size, &delta);
    if (s.ok()) s = ApplyDelta(base, delta, &result);
    if (!s.ok()) return Error(at, s.message());
    base.swap(result);
  }
  *content = std::move(base);
  return Status::Ok();
}

}  // namespace reftab

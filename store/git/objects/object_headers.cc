#include "store/git/objects/object_headers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "format/bytes.h"
#include "store/file.h"

namespace reftab {
namespace {

constexpr size_t kHeadBytes = 512;         // enough for a tag's "object" and "type" lines
constexpr size_t kMaxObject = 256u << 20;  // what a delta chain may inflate to
constexpr int kMaxChain = 1000;            // delta chains and tag chains

// Inflates a zlib stream into *out, stopping after `limit` bytes (a prefix is enough when
// only an object's head is wanted).
Status Inflate(const uint8_t* in, size_t in_len, size_t limit, std::string* out) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Status::Corruption("zlib: cannot start inflating");
  z.next_in = const_cast<Bytef*>(in);
  z.avail_in = uInt(std::min<size_t>(in_len, UINT32_MAX));
  out->clear();
  int rc = Z_OK;
  while (out->size() < limit && rc == Z_OK) {
    size_t at = out->size();
    out->resize(std::min(limit, at + 65536));
    z.next_out = reinterpret_cast<Bytef*>(out->data() + at);
    z.avail_out = uInt(out->size() - at);
    rc = inflate(&z, Z_NO_FLUSH);
    out->resize(out->size() - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // truncated input
  }
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && out->size() < limit) {
    return Status::Corruption("zlib: corrupt object data");
  }
  return Status::Ok();
}

// A file mapped read-only (packs and their indexes).
struct Mapped {
  const uint8_t* data = nullptr;
  size_t size = 0;
  ~Mapped() {
    if (data) munmap(const_cast<uint8_t*>(data), size);
  }
  bool Map(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && st.st_size > 0;
    if (ok) {
      void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      ok = p != MAP_FAILED;
      if (ok) data = static_cast<const uint8_t*>(p), size = size_t(st.st_size);
    }
    close(fd);
    return ok;
  }
};

uint32_t Be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// git's delta format: base size, result size, then copy-from-base and insert instructions.
Status ApplyDelta(const std::string& base, const std::string& delta, std::string* out) {
  size_t i = 0;
  auto varint = [&](uint64_t* v) {
    *v = 0;
    for (int shift = 0; i < delta.size(); shift += 7) {
      uint8_t c = uint8_t(delta[i++]);
      *v |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return shift < 64;
    }
    return false;
  };
  uint64_t base_size = 0, result_size = 0;
  if (!varint(&base_size) || !varint(&result_size) || base_size != base.size() ||
      result_size > kMaxObject) {
    return Status::Corruption("corrupt delta header");
  }
  out->clear();
  while (i < delta.size()) {
    uint8_t op = uint8_t(delta[i++]);
    if (op & 0x80) {
      uint64_t off = 0, len = 0;
      for (int b = 0; b < 4; ++b) {
        if (op & (1 << b)) off |= uint64_t(uint8_t(i < delta.size() ? delta[i++] : 0)) << (8 * b);
      }
      for (int b = 0; b < 3; ++b) {
        if (op & (0x10 << b))
          len |= uint64_t(uint8_t(i < delta.size() ? delta[i++] : 0)) << (8 * b);
      }
      if (len == 0) len = 0x10000;
      if (off + len > base.size()) return Status::Corruption("delta copies past its base");
      out->append(base, size_t(off), size_t(len));
    } else if (op) {
      if (i + op > delta.size()) return Status::Corruption("delta inserts past its end");
      out->append(delta, i, op);
      i += op;
    } else {
      return Status::Corruption("delta has a zero instruction");
    }
  }
  if (out->size() != result_size) return Status::Corruption("delta result has the wrong size");
  return Status::Ok();
}

}  // namespace

struct GitObjectHeaders::Pack {
  std::string path;
  Mapped idx, pack;
  size_t hs = 20;
  uint32_t count = 0;

  bool Open(const std::string& idx_path, size_t hash_size) {
    path = idx_path.substr(0, idx_path.size() - 4) + ".pack";
    hs = hash_size;
    if (!idx.Map(idx_path) || !pack.Map(path)) return false;
    if (idx.size < 8 + 1024 || std::memcmp(idx.data, "\377tOc", 4) != 0 ||
        Be32(idx.data + 4) != 2) {
      return false;
    }
    count = Be32(idx.data + 8 + 255 * 4);
    return idx.size >= 8 + 1024 + size_t(count) * (hs + 8);
  }

  // The position of `id` among the index's sorted names, or false. Ids are hashes, spread
  // evenly over their fan-out bucket, so interpolating on their first 8 bytes lands within a
  // few entries of the answer: about 4 probes for a bucket of a million-object pack where a
  // binary search takes 12, each a cache miss into 20 MB of names. A bucket whose ends share
  // their first 8 bytes, or a search that does not converge, is finished by bisection.
  bool Position(const ObjectId& id, uint32_t* pos) const {
    const uint8_t* fan = idx.data + 8;
    uint32_t lo = id[0] ? Be32(fan + (id[0] - 1) * 4) : 0, hi = Be32(fan + id[0] * 4);
    if (hi > count || lo > hi) return false;  // a corrupt fan-out table
    const uint8_t* names = fan + 1024;
    const uint64_t key = be::Load64(id.data());
    auto head = [&](uint32_t i) { return be::Load64(names + size_t(i) * hs); };
    auto compare = [&](uint32_t i) {
      uint64_t h = head(i);
      if (h != key) return h < key ? -1 : 1;
      return std::memcmp(names + size_t(i) * hs + 8, id.data() + 8, hs - 8);
    };
    for (int probes = 0; hi - lo > 8 && probes < 8; ++probes) {
      const uint64_t a = head(lo), b = head(hi - 1);
      if (key < a || key > b) return false;
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
    return false;
  }

  // The offset of `id` in the pack, or false.
  bool Find(const ObjectId& id, uint64_t* offset) const {
    uint32_t pos = 0;
    if (!Position(id, &pos)) return false;
    const uint8_t* offs = idx.data + 8 + 1024 + size_t(count) * (hs + 4);  // after names, CRCs
    uint32_t o = Be32(offs + size_t(pos) * 4);
    if (o & 0x80000000u) {
      const uint8_t* big = offs + size_t(count) * 4 + size_t(o & 0x7fffffffu) * 8;
      if (big + 8 > idx.data + idx.size) return false;
      *offset = uint64_t(Be32(big)) << 32 | Be32(big + 4);
    } else {
      *offset = o;
    }
    return *offset < pack.size;
  }

  // The entry at `offset`: its type (6 ofs-delta, 7 ref-delta), where its data starts, and
  // for deltas the base's offset or id.
  Status Entry(uint64_t offset, int* type, uint64_t* data, uint64_t* base_offset,
               ObjectId* base_id) const {
    uint64_t p = offset;
    auto byte = [&](uint8_t* c) {
      if (p >= pack.size) return false;
      *c = pack.data[p++];
      return true;
    };
    uint8_t c = 0;
    if (!byte(&c)) return Status::Corruption(path + ": entry past the end");
    *type = (c >> 4) & 7;
    while (c & 0x80) {
      if (!byte(&c)) return Status::Corruption(path + ": entry header past the end");
    }
    if (*type == 6) {
      if (!byte(&c)) return Status::Corruption(path + ": delta past the end");
      uint64_t back = c & 0x7f;
      while (c & 0x80) {
        if (!byte(&c)) return Status::Corruption(path + ": delta past the end");
        back = ((back + 1) << 7) | (c & 0x7f);
      }
      if (back > offset) return Status::Corruption(path + ": delta base before the pack");
      *base_offset = offset - back;
    } else if (*type == 7) {
      if (p + hs > pack.size) return Status::Corruption(path + ": delta past the end");
      base_id->fill(0);
      std::memcpy(base_id->data(), pack.data + p, hs);
      p += hs;
    }
    *data = p;
    return Status::Ok();
  }

  // Every entry's offset with its position among the names, by offset (git's reverse
  // index), built on first use: where an entry ends, and which object an offset holds.
  std::vector<std::pair<uint64_t, uint32_t>> by_offset;
  bool by_offset_built = false;

  Status BuildReverseIndex() {
    if (by_offset_built) return Status::Ok();
    by_offset_built = true;
    const uint8_t* offs = idx.data + 8 + 1024 + size_t(count) * (hs + 4);
    by_offset.reserve(count);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t o = Be32(offs + size_t(i) * 4);
      uint64_t off = o;
      if (o & 0x80000000u) {
        const uint8_t* big = offs + size_t(count) * 4 + size_t(o & 0x7fffffffu) * 8;
        if (big + 8 > idx.data + idx.size) return Status::Corruption(path + ": bad index offset");
        off = uint64_t(Be32(big)) << 32 | Be32(big + 4);
      }
      by_offset.emplace_back(off, i);
    }
    std::sort(by_offset.begin(), by_offset.end());
    return Status::Ok();
  }

  // The bytes the entry at `offset` takes in the pack, and the id of its delta base (zero
  // when it is not a delta).
  Status Storage(uint64_t offset, uint64_t* disk_size, ObjectId* delta_base) {
    REFTAB_RETURN_IF_ERROR(BuildReverseIndex());
    auto at =
        std::lower_bound(by_offset.begin(), by_offset.end(), std::make_pair(offset, uint32_t(0)));
    if (at == by_offset.end() || at->first != offset) {
      return Status::Corruption(path + ": no entry at offset " + std::to_string(offset));
    }
    const uint64_t end = at + 1 != by_offset.end() ? (at + 1)->first : pack.size - hs;
    if (end < offset) return Status::Corruption(path + ": entry past the end");
    *disk_size = end - offset;
    int type = 0;
    uint64_t data = 0, base_offset = 0;
    delta_base->fill(0);
    REFTAB_RETURN_IF_ERROR(Entry(offset, &type, &data, &base_offset, delta_base));
    if (type == 6) {
      auto base = std::lower_bound(by_offset.begin(), by_offset.end(),
                                   std::make_pair(base_offset, uint32_t(0)));
      if (base == by_offset.end() || base->first != base_offset) {
        return Status::Corruption(path + ": delta base at a bad offset");
      }
      std::memcpy(delta_base->data(), idx.data + 8 + 1024 + size_t(base->second) * hs, hs);
    }
    return Status::Ok();
  }

  // The object at `offset`, resolved through deltas: its type and up to `limit` bytes.
  Status Object(uint64_t offset, size_t limit, GitObjectType* type, std::string* body,
                int depth = 0) const {
    if (depth > kMaxChain) return Status::Corruption(path + ": delta chain too long");
    int t = 0;
    uint64_t data = 0, base_offset = 0;
    ObjectId base_id{};
    REFTAB_RETURN_IF_ERROR(Entry(offset, &t, &data, &base_offset, &base_id));
    if (t >= 1 && t <= 4) {
      *type = GitObjectType(t);
      // The entry's type byte is the answer when only the type is wanted: no zlib stream
      // (and its state's allocation) per object checked.
      if (!limit) {
        body->clear();
        return Status::Ok();
      }
      return Inflate(pack.data + data, pack.size - data, limit, body);
    }
    if (t == 7 && !Find(base_id, &base_offset)) {
      return Status::Corruption(path + ": delta base " + HexId(base_id, hs) +
                                " is not in the pack");
    }
    if (t != 6 && t != 7) return Status::Corruption(path + ": unknown entry type");
    std::string base, delta;
    REFTAB_RETURN_IF_ERROR(Object(base_offset, limit ? kMaxObject : 0, type, &base, depth + 1));
    if (!limit) return Status::Ok();  // only the type was wanted
    REFTAB_RETURN_IF_ERROR(Inflate(pack.data + data, pack.size - data, kMaxObject, &delta));
    REFTAB_RETURN_IF_ERROR(ApplyDelta(base, delta, body));
    if (body->size() > limit) body->resize(limit);
    return Status::Ok();
  }
};

GitObjectHeaders::GitObjectHeaders(std::string objects_dir, size_t hash_size)
    : hash_size_(hash_size) {
  dirs_.push_back(objects_dir);
  auto alternates = PosixFileSystem()->ReadFile(objects_dir + "/info/alternates");
  if (!alternates.ok()) return;
  size_t pos = 0;
  while (pos < alternates->size()) {
    size_t nl = alternates->find('\n', pos);
    if (nl == std::string::npos) nl = alternates->size();
    std::string line = alternates->substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    dirs_.push_back(line[0] == '/' ? line : objects_dir + "/" + line);
  }
}

GitObjectHeaders::~GitObjectHeaders() = default;

Status GitObjectHeaders::LoadPacks() {
  packs_loaded_ = true;
  for (const std::string& dir : dirs_) {
    std::string pack_dir = dir + "/pack";
    DIR* d = opendir(pack_dir.c_str());
    if (!d) continue;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() < 5 || name.compare(name.size() - 4, 4, ".idx") != 0) continue;
      auto pack = std::make_unique<Pack>();
      if (pack->Open(pack_dir + "/" + name, hash_size_)) packs_.push_back(std::move(pack));
    }
    closedir(d);
  }
  return Status::Ok();
}

Status GitObjectHeaders::ReadLoose(const std::string& dir, const ObjectId& id, GitObjectType* type,
                                   std::string* head, bool* found) {
  std::string hex = HexId(id, hash_size_);
  auto file = PosixFileSystem()->ReadFile(dir + "/" + hex.substr(0, 2) + "/" + hex.substr(2));
  *found = file.ok();
  if (!file.ok()) return Status::Ok();
  std::string raw;
  REFTAB_RETURN_IF_ERROR(
      Inflate(reinterpret_cast<const uint8_t*>(file->data()), file->size(), kHeadBytes, &raw));
  size_t space = raw.find(' '), nul = raw.find('\0');
  if (space == std::string::npos || nul == std::string::npos || space > nul) {
    return Status::Corruption("loose object " + hex + ": bad header");
  }
  *type = GitObjectTypeNamed(std::string_view(raw).substr(0, space));
  *head = raw.substr(nul + 1);
  return Status::Ok();
}

Status GitObjectHeaders::Read(const ObjectId& id, GitObjectType* type, std::string* head) {
  *type = GitObjectType::kNone;
  // Packs first, as git looks: in a repository with many refs most objects are packed, and
  // a loose lookup is a failed open per object directory.
  if (!packs_loaded_) REFTAB_RETURN_IF_ERROR(LoadPacks());
  for (const auto& pack : packs_) {
    uint64_t offset = 0;
    if (!pack->Find(id, &offset)) continue;
    // Only a tag's head is needed (for peeling); other types need no data at all.
    REFTAB_RETURN_IF_ERROR(pack->Object(offset, 0, type, head));
    if (*type == GitObjectType::kTag) return pack->Object(offset, kHeadBytes, type, head);
    return Status::Ok();
  }
  for (const std::string& dir : dirs_) {
    bool found = false;
    REFTAB_RETURN_IF_ERROR(ReadLoose(dir, id, type, head, &found));
    if (found) return Status::Ok();
  }
  return Status::Ok();
}

Status GitObjectHeaders::Has(const ObjectId& id, bool* found) {
  *found = true;
  if (last_type_ != GitObjectType::kNone && id == last_id_) return Status::Ok();
  if (!packs_loaded_) REFTAB_RETURN_IF_ERROR(LoadPacks());
  uint64_t offset = 0;
  for (const auto& pack : packs_) {
    if (pack->Find(id, &offset)) return Status::Ok();
  }
  const std::string hex = HexId(id, hash_size_);
  std::string path;
  for (const std::string& dir : dirs_) {
    path.assign(dir).append("/").append(hex, 0, 2).append("/").append(hex, 2);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return Status::Ok();
  }
  *found = false;
  return Status::Ok();
}

Status GitObjectHeaders::Storage(const ObjectId& id, uint64_t* disk_size, ObjectId* delta_base,
                                 bool* found) {
  *found = false;
  *disk_size = 0;
  delta_base->fill(0);
  if (!packs_loaded_) REFTAB_RETURN_IF_ERROR(LoadPacks());
  for (const auto& pack : packs_) {
    uint64_t offset = 0;
    if (!pack->Find(id, &offset)) continue;
    *found = true;
    return pack->Storage(offset, disk_size, delta_base);
  }
  const std::string hex = HexId(id, hash_size_);
  for (const std::string& dir : dirs_) {
    struct stat st;
    std::string path = dir + "/" + hex.substr(0, 2) + "/" + hex.substr(2);
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      *found = true;
      *disk_size = uint64_t(st.st_size);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status GitObjectHeaders::TypeOf(const ObjectId& id, GitObjectType* type) {
  // Listings ask for the same id many times in a row (branches at one commit, a ref and the
  // symrefs naming it): the last answer is kept.
  if (last_type_ != GitObjectType::kNone && id == last_id_) {
    *type = last_type_;
    return Status::Ok();
  }
  std::string head;
  REFTAB_RETURN_IF_ERROR(Read(id, type, &head));
  last_id_ = id;
  last_type_ = *type;
  return Status::Ok();
}

Status GitObjectHeaders::Peel(const ObjectId& id, ObjectId* peeled, bool* ok) {
  *ok = false;
  ObjectId current = id;
  GitObjectType type = GitObjectType::kNone;
  std::string head;
  REFTAB_RETURN_IF_ERROR(Read(current, &type, &head));
  for (int depth = 0; depth < kMaxChain; ++depth) {
    if (type == GitObjectType::kNone) return Status::Ok();
    if (type != GitObjectType::kTag) {
      *peeled = current;
      *ok = true;
      return Status::Ok();
    }
    // "object <hex>\ntype <name>\n": the tagged object must exist with the type claimed.
    size_t hex_len = 2 * hash_size_;
    if (head.compare(0, 7, "object ") != 0 || head.size() < 7 + hex_len + 1 ||
        !ParseHexId(std::string_view(head).substr(7, hex_len), hash_size_, &current)) {
      return Status::Ok();
    }
    size_t type_at = 7 + hex_len + 1;
    size_t nl = head.find('\n', type_at);
    if (head.compare(type_at, 5, "type ") != 0 || nl == std::string::npos) return Status::Ok();
    GitObjectType claimed =
        GitObjectTypeNamed(std::string_view(head).substr(type_at + 5, nl - type_at - 5));
    REFTAB_RETURN_IF_ERROR(Read(current, &type, &head));
    if (type != claimed) return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace reftab

#include "store/git/objects/object_count.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>
#include <vector>

#include "store/file.h"
#include "store/git/objects/abbrev.h"
#include "store/git/objects/alternates.h"

namespace reftab {
namespace {

uint32_t Be32(std::string_view s, size_t at) {
  auto b = [&](size_t i) { return uint32_t(uint8_t(s[at + i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// The last fan-out entry of a pack index is its object count; version 2 and later start
// with "\377tOc" and a version, version 1 with the fan-out itself.
Status PackIndexCount(const std::string& path, uint64_t* count) {
  auto data = PosixFileSystem()->ReadFile(path);
  if (!data.ok()) return data.status();
  size_t fanout = (data->size() >= 8 && data->compare(0, 4, "\377tOc") == 0) ? 8 : 0;
  if (data->size() < fanout + 256 * 4) return Status::Corruption(path + ": pack index too short");
  *count = Be32(*data, fanout + 255 * 4);
  return Status::Ok();
}

// A multi-pack index: its object count (the OIDF chunk's last fan-out entry) and the names
// of the pack indexes it covers (the PNAM chunk). Layout: "MIDX", version, hash version,
// chunk count, base count, pack count (4 bytes), then (chunks + 1) × (4-byte id, 8-byte offset).
Status ReadMidx(const std::string& path, uint64_t* count, std::set<std::string>* packs) {
  auto data = PosixFileSystem()->ReadFile(path);
  if (!data.ok()) return data.status();
  const std::string& d = *data;
  auto bad = [&] { return Status::Corruption(path + ": malformed multi-pack-index"); };
  if (d.size() < 12 || d.compare(0, 4, "MIDX") != 0) return bad();
  const size_t chunks = uint8_t(d[6]);
  if (d.size() < 12 + (chunks + 1) * 12) return bad();
  auto offset = [&](size_t i) {
    return uint64_t(Be32(d, 12 + i * 12 + 4)) << 32 | Be32(d, 12 + i * 12 + 8);
  };
  bool have_fanout = false;
  for (size_t i = 0; i < chunks; ++i) {
    std::string_view id(d.data() + 12 + i * 12, 4);
    uint64_t at = offset(i), end = offset(i + 1);
    if (at > end || end > d.size()) return bad();
    if (id == "OIDF") {
      if (end - at < 256 * 4) return bad();
      *count = Be32(d, size_t(at) + 255 * 4);
      have_fanout = true;
    } else if (id == "PNAM") {
      std::string_view names(d.data() + at, size_t(end - at));
      for (size_t p = 0; p < names.size();) {
        size_t nul = std::min(names.find('\0', p), names.size());
        if (nul > p) packs->insert(std::string(names.substr(p, nul - p)));
        p = nul + 1;
      }
    }
  }
  return have_fanout ? Status::Ok() : bad();
}

// Objects in one database's pack directory: the multi-pack index, plus every pack index it
// does not cover.
Status CountPackDir(const std::string& objects_dir, uint64_t* total) {
  const std::string pack_dir = objects_dir + "/pack";
  std::set<std::string> covered;
  uint64_t midx_count = 0;
  Status s = ReadMidx(pack_dir + "/multi-pack-index", &midx_count, &covered);
  if (!s.ok() && s.code() != Code::kNotFound) return s;
  *total += midx_count;
  DIR* d = opendir(pack_dir.c_str());
  if (!d) return Status::Ok();
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) names.push_back(e->d_name);
  closedir(d);
  for (const std::string& name : names) {
    if (name.size() < 5 || name.compare(name.size() - 4, 4, ".idx") != 0) continue;
    if (covered.count(name)) continue;
    uint64_t n = 0;
    REFTAB_RETURN_IF_ERROR(PackIndexCount(pack_dir + "/" + name, &n));
    *total += n;
  }
  return Status::Ok();
}

}  // namespace

Status ApproximateObjectCount(const std::string& objects_dir, uint64_t* count) {
  *count = 0;
  for (const std::string& dir : ObjectDirectories(objects_dir)) {
    REFTAB_RETURN_IF_ERROR(CountPackDir(dir, count));
  }
  return Status::Ok();
}

size_t AbbrevLengthForCount(uint64_t count, size_t hex_len) {
  size_t bits = 0;  // the position of the highest bit set
  for (uint64_t v = count; v >>= 1;) ++bits;
  size_t len = (bits + 1 + 1) / 2;  // ~2^(bits+1) objects collide at half the bits; 4 per hex
  return std::min(std::max(len, size_t(kFallbackAbbrev)), hex_len);
}

}  // namespace reftab

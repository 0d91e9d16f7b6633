#include "store/git/objects/loose.h"

#include <dirent.h>

#include <cstdio>
#include <string_view>

#include "store/file.h"
#include "store/git/objects/zinflate.h"

namespace reftab {
namespace {

// "<type> <size>\0" is at most a type name, a space, 20 digits and the NUL.
constexpr size_t kMaxHeader = 32;

}  // namespace

std::string LooseObjectPath(const std::string& dir, const ObjectId& id, size_t hash_size) {
  const std::string hex = HexId(id, hash_size);
  return dir + "/" + hex.substr(0, 2) + "/" + hex.substr(2);
}

Status ReadLooseObject(const std::string& path, GitObjectType* type, uint64_t* size,
                       std::string* content, bool* found) {
  auto file = PosixFileSystem()->ReadFile(path);
  *found = file.ok();
  if (!file.ok()) return file.status().code() == Code::kNotFound ? Status::Ok() : file.status();
  const auto* in = reinterpret_cast<const uint8_t*>(file->data());
  auto bad = [&](const std::string& what) { return Status::Corruption(path + ": " + what); };
  std::string head;
  Status s = InflatePrefix(in, file->size(), kMaxHeader, &head);
  if (!s.ok()) return bad(s.message());
  const size_t space = head.find(' '), nul = head.find('\0');
  if (space == std::string::npos || nul == std::string::npos || space > nul || nul == space + 1) {
    return bad("malformed object header");
  }
  *type = GitObjectTypeNamed(std::string_view(head).substr(0, space));
  if (*type == GitObjectType::kNone) return bad("unknown object type");
  uint64_t n = 0;
  for (size_t i = space + 1; i < nul; ++i) {
    const char c = head[i];
    if (c < '0' || c > '9' || n > (UINT64_MAX - 9) / 10) return bad("malformed object size");
    n = n * 10 + uint64_t(c - '0');
  }
  *size = n;
  if (!content) return Status::Ok();
  if (n > kMaxGitObjectSize - nul - 1)
    return bad("object size " + std::to_string(n) + " is too large");
  s = InflateExactly(in, file->size(), nul + 1 + n, content);
  if (!s.ok()) return bad(s.message());
  content->erase(0, nul + 1);
  return Status::Ok();
}

std::vector<ObjectId> ListLooseObjects(const std::string& dir, uint8_t first_byte,
                                       size_t hash_size) {
  std::vector<ObjectId> ids;
  char sub[4];
  std::snprintf(sub, sizeof(sub), "%02x", first_byte);
  const std::string path = dir + "/" + sub;
  DIR* d = opendir(path.c_str());
  if (!d) return ids;
  while (dirent* e = readdir(d)) {
    const std::string_view name = e->d_name;
    ObjectId id{};
    if (name.size() == 2 * hash_size - 2 &&
        ParseHexId(std::string(sub) + std::string(name), hash_size, &id)) {
      ids.push_back(id);
    }
  }
  closedir(d);
  return ids;
}

}  // namespace reftab

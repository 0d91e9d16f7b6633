#include "store/git/objects/object_reader.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "store/git/objects/alternates.h"
#include "store/git/objects/loose.h"
#include "store/git/objects/pack.h"

namespace reftab {
namespace {

constexpr int kMaxTagChain = 1000;

}  // namespace

GitObjectReader::GitObjectReader(std::string objects_dir, size_t hash_size)
    : dirs_(ObjectDirectories(objects_dir)), hash_size_(hash_size) {}

GitObjectReader::~GitObjectReader() = default;

Status GitObjectReader::LoadPacks() {
  packs_loaded_ = true;
  for (const std::string& dir : dirs_) {
    const std::string pack_dir = dir + "/pack";
    DIR* d = opendir(pack_dir.c_str());
    if (!d) continue;
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) names.push_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());  // the same order on every run
    for (const std::string& name : names) {
      if (name.size() < 5 || name.compare(name.size() - 4, 4, ".idx") != 0) continue;
      auto pack = std::make_unique<GitPack>();
      // As git, a pack that cannot be opened (half written, or damaged) is passed over:
      // its objects are missing rather than every lookup failing.
      if (pack->Open(pack_dir + "/" + name, hash_size_).ok()) packs_.push_back(std::move(pack));
    }
  }
  return Status::Ok();
}

Status GitObjectReader::Locate(const ObjectId& id, GitPack** pack, uint64_t* offset,
                               std::string* loose, bool* found) {
  *pack = nullptr;
  *found = false;
  // Packs first, as git looks: in a repository with many refs most objects are packed, and
  // a loose lookup is a failed open per object directory.
  if (!packs_loaded_) REFTAB_RETURN_IF_ERROR(LoadPacks());
  for (const auto& p : packs_) {
    if (p->Find(id, offset)) {
      *pack = p.get();
      *found = true;
      return Status::Ok();
    }
  }
  for (const std::string& dir : dirs_) {
    *loose = LooseObjectPath(dir, id, hash_size_);
    struct stat st;
    if (::stat(loose->c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      *found = true;
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status GitObjectReader::Has(const ObjectId& id, bool* found) {
  if (last_type_ != GitObjectType::kNone && id == last_id_) {
    *found = true;
    return Status::Ok();
  }
  GitPack* pack = nullptr;
  uint64_t offset = 0;
  std::string loose;
  return Locate(id, &pack, &offset, &loose, found);
}

Status GitObjectReader::Storage(const ObjectId& id, uint64_t* disk_size, ObjectId* delta_base,
                                bool* found) {
  *disk_size = 0;
  delta_base->fill(0);
  GitPack* pack = nullptr;
  uint64_t offset = 0;
  std::string loose;
  REFTAB_RETURN_IF_ERROR(Locate(id, &pack, &offset, &loose, found));
  if (pack) return pack->Storage(offset, disk_size, delta_base);
  if (*found) {
    struct stat st;
    if (::stat(loose.c_str(), &st) != 0) return Status::IoError(loose + ": " + strerror(errno));
    *disk_size = uint64_t(st.st_size);
  }
  return Status::Ok();
}

Status GitObjectReader::TypeOf(const ObjectId& id, GitObjectType* type) {
  // Listings ask for the same id many times in a row (branches at one commit, a ref and the
  // symrefs naming it): the last answer is kept.
  if (last_type_ != GitObjectType::kNone && id == last_id_) {
    *type = last_type_;
    return Status::Ok();
  }
  *type = GitObjectType::kNone;
  GitPack* pack = nullptr;
  uint64_t offset = 0;
  std::string loose;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(Locate(id, &pack, &offset, &loose, &found));
  if (pack) {
    // The entry's type byte is the answer: no zlib stream (and its state's allocation).
    REFTAB_RETURN_IF_ERROR(pack->Type(offset, type));
  } else if (found) {
    uint64_t size = 0;
    REFTAB_RETURN_IF_ERROR(ReadLooseObject(loose, type, &size, nullptr, &found));
  }
  last_id_ = id;
  last_type_ = *type;
  return Status::Ok();
}

Status GitObjectReader::Size(const ObjectId& id, GitObjectType* type, uint64_t* size) {
  *type = GitObjectType::kNone;
  *size = 0;
  GitPack* pack = nullptr;
  uint64_t offset = 0;
  std::string loose;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(Locate(id, &pack, &offset, &loose, &found));
  if (pack) return pack->Size(offset, type, size);
  if (!found) return Status::Ok();
  return ReadLooseObject(loose, type, size, nullptr, &found);
}

Status GitObjectReader::Read(const ObjectId& id, GitObjectType* type, std::string* content) {
  *type = GitObjectType::kNone;
  content->clear();
  GitPack* pack = nullptr;
  uint64_t offset = 0;
  std::string loose;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(Locate(id, &pack, &offset, &loose, &found));
  if (pack) return pack->Read(offset, &bases_, type, content);
  if (!found) return Status::Ok();
  uint64_t size = 0;
  return ReadLooseObject(loose, type, &size, content, &found);
}

Status GitObjectReader::Peel(const ObjectId& id, ObjectId* peeled, bool* ok) {
  *ok = false;
  ObjectId current = id;
  GitObjectType type = GitObjectType::kNone;
  REFTAB_RETURN_IF_ERROR(TypeOf(current, &type));
  const size_t hex_len = 2 * hash_size_;
  std::string body;
  for (int depth = 0; depth < kMaxTagChain; ++depth) {
    if (type == GitObjectType::kNone) return Status::Ok();
    if (type != GitObjectType::kTag) {
      *peeled = current;
      *ok = true;
      return Status::Ok();
    }
    // "object <hex>\ntype <name>\n": the tagged object must exist with the type claimed.
    REFTAB_RETURN_IF_ERROR(Read(current, &type, &body));
    if (body.compare(0, 7, "object ") != 0 || body.size() < 7 + hex_len + 1 ||
        body[7 + hex_len] != '\n' ||
        !ParseHexId(std::string_view(body).substr(7, hex_len), hash_size_, &current)) {
      return Status::Ok();
    }
    const size_t type_at = 7 + hex_len + 1;
    const size_t nl = body.find('\n', type_at);
    if (body.compare(type_at, 5, "type ") != 0 || nl == std::string::npos) return Status::Ok();
    const GitObjectType claimed =
        GitObjectTypeNamed(std::string_view(body).substr(type_at + 5, nl - type_at - 5));
    REFTAB_RETURN_IF_ERROR(TypeOf(current, &type));
    if (type != claimed) return Status::Ok();
  }
  return Status::Ok();
}

Status GitObjectReader::CommonHexPrefix(const ObjectId& id, size_t* digits) {
  *digits = 0;
  if (!packs_loaded_) REFTAB_RETURN_IF_ERROR(LoadPacks());
  for (const auto& pack : packs_) *digits = std::max(*digits, pack->CommonHexPrefix(id));
  // Only loose ids with the same first byte can share more than one digit, and the shortest
  // abbreviation is longer than that.
  for (size_t i = 0; i < dirs_.size(); ++i) {
    auto [it, added] = loose_lists_.try_emplace({i, id[0]});
    if (added) it->second = ListLooseObjects(dirs_[i], id[0], hash_size_);
    for (const ObjectId& other : it->second) {
      if (other != id)
        *digits = std::max(*digits, CommonHexDigits(other.data(), id.data(), hash_size_));
    }
  }
  return Status::Ok();
}

Status GitObjectReader::FindByPrefix(const ObjectId& prefix, size_t digits,
                                     std::vector<ObjectId>* found) {
  found->clear();
  if (!packs_loaded_) REFTAB_RETURN_IF_ERROR(LoadPacks());
  for (const auto& pack : packs_) pack->IdsWithPrefix(prefix, digits, found);
  // Loose objects live in a directory per first byte: the prefix's first byte when it has
  // two digits, else the sixteen its first digit allows.
  const unsigned first = prefix[0], last = digits >= 2 ? first : first | 0x0f;
  for (size_t i = 0; i < dirs_.size(); ++i) {
    for (unsigned byte = first; byte <= last; ++byte) {
      auto [it, added] = loose_lists_.try_emplace({i, uint8_t(byte)});
      if (added) it->second = ListLooseObjects(dirs_[i], uint8_t(byte), hash_size_);
      for (const ObjectId& id : it->second) {
        if (CommonHexDigits(id.data(), prefix.data(), hash_size_) >= digits) found->push_back(id);
      }
    }
  }
  // An object can be in several packs, or packed and loose.
  std::sort(found->begin(), found->end());
  found->erase(std::unique(found->begin(), found->end()), found->end());
  return Status::Ok();
}

}  // namespace reftab

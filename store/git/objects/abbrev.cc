#include "store/git/objects/abbrev.h"

#include <strings.h>

namespace reftab {

Result<int> ReadCoreAbbrev(const GitConfig& config, std::string* error) {
  error->clear();
  int abbrev = kAbbrevDefault;
  for (const ConfigEntry* e : config.All("core.abbrev")) {
    if (!e->value) {
      *error = "missing value for '" + e->key + "'";
      return Status::InvalidArgument(BadConfigVariable(*e));
    }
    if (!strcasecmp(e->value->c_str(), "auto")) {
      abbrev = kAbbrevDefault;
    } else if (ParseGitBoolText(*e->value) == false) {
      // git stores its longest hash length here, which is the whole id for either hash.
      abbrev = kAbbrevFull;
    } else {
      REFTAB_ASSIGN_OR_RETURN(int32_t n, ConfigInt(*e));
      if (n < kMinimumAbbrev) {
        *error = "abbrev length out of range: " + std::to_string(n);
        return Status::InvalidArgument(BadConfigVariable(*e));
      }
      abbrev = int(n);
    }
  }
  return abbrev;
}

int ClampAbbrevOption(long n) { return n != 0 && n < kMinimumAbbrev ? kMinimumAbbrev : int(n); }

GitAbbreviator::GitAbbreviator(GitObjects* objects, size_t hash_size, int core_abbrev)
    : objects_(objects), hash_size_(hash_size), core_abbrev_(core_abbrev) {}

Status GitAbbreviator::MinimumLength(int length, size_t* len) {
  if (length == kAbbrevDefault) length = core_abbrev_;
  if (length != kAbbrevDefault) {
    *len = length < 0 ? 0 : size_t(length);
    return Status::Ok();
  }
  if (automatic_ == 0) {
    if (objects_) {
      REFTAB_RETURN_IF_ERROR(objects_->DefaultAbbrevLength(&automatic_));
    } else {
      automatic_ = kFallbackAbbrev;
    }
  }
  *len = automatic_;
  return Status::Ok();
}

Status GitAbbreviator::Abbreviate(const ObjectId& id, int length, std::string* hex) {
  size_t len = 0;
  REFTAB_RETURN_IF_ERROR(MinimumLength(length, &len));
  const size_t hex_len = 2 * hash_size_;
  if (len == 0 || len >= hex_len) {
    *hex = HexId(id, hash_size_);
    return Status::Ok();
  }
  if (!objects_) {
    *hex = HexId(id, hash_size_).substr(0, len);
    return Status::Ok();
  }
  return objects_->Abbreviate(id, len, hex);
}

Status GitAbbreviator::AbbreviateOrTrust(const ObjectId& id, int length, std::string* hex) {
  Status s = Abbreviate(id, length, hex);
  if (s.ok() || !objects_ || objects_->available()) return s;
  GitAbbreviator on_trust(nullptr, hash_size_, core_abbrev_);
  return on_trust.Abbreviate(id, length, hex);
}

}  // namespace reftab

#include "cli/abbrev.h"

#include <cstdlib>

#include "store/git/objects/objects.h"

namespace reftab::cli {
namespace {

constexpr size_t kSmallRepoAbbrev = 7;

// core.abbrev: kAbbrevDefault for "auto" or unset, 0 (full) for a false boolean.
int ConfiguredAbbrev(const Store& store) {
  std::optional<std::string> v = store.config().Get("core.abbrev");
  if (!v || *v == "auto") return kAbbrevDefault;
  char* end = nullptr;
  long n = std::strtol(v->c_str(), &end, 10);
  if (!v->empty() && !*end) return n < kMinimumAbbrev ? kMinimumAbbrev : int(n);
  return store.config().GetBool("core.abbrev", true) ? kAbbrevDefault : 0;
}

}  // namespace

std::string ParseAbbrevOption(std::string_view option, bool unset,
                              std::optional<std::string_view> value, int* abbrev) {
  if (!value) {
    *abbrev = unset ? 0 : kAbbrevDefault;
    return {};
  }
  std::string s(*value);
  char* end = nullptr;
  long n = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end) return "option `" + std::string(option) + "' expects a numerical value";
  *abbrev = n != 0 && n < kMinimumAbbrev ? kMinimumAbbrev : int(n);
  return {};
}

Status AbbreviateId(Store& store, const ObjectId& id, int abbrev, std::string* hex) {
  const size_t hex_len = 2 * store.hash_size();
  if (abbrev == kAbbrevDefault) abbrev = ConfiguredAbbrev(store);
  *hex = HexId(id, store.hash_size());
  if (abbrev == 0 || (abbrev > 0 && size_t(abbrev) >= hex_len)) return Status::Ok();
  GitObjects* objects = store.objects();
  if (!objects || !objects->available()) {
    // No database to make the prefix unique (a bare stack, SHA-256 with libgit2 1.5): git's
    // shortest length, which is what git shows in a small repository.
    hex->resize(abbrev == kAbbrevDefault ? kSmallRepoAbbrev : size_t(abbrev));
    return Status::Ok();
  }
  size_t len = abbrev == kAbbrevDefault ? 0 : size_t(abbrev);
  if (len == 0) REFTAB_RETURN_IF_ERROR(objects->DefaultAbbrevLength(&len));
  return objects->Abbreviate(id, len, hex);
}

}  // namespace reftab::cli

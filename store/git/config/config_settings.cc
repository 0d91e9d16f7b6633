// What git derives from its config for the reftable backend (store/git/config/config.h): the write
// settings with git's range checks, and the permission bits of created files
// (core.sharedRepository applied to the umask).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "store/git/config/config.h"

namespace reftab {
namespace {

constexpr uint64_t kMaxBlockSize = 16777215;  // what a 24-bit block length can hold
constexpr uint64_t kMaxRestartInterval = 65535;
constexpr uint64_t kMaxGeometricFactor = 255;

Status ApplyReftableEntry(const ConfigEntry& e, ReftableSettings* s) {
  if (e.key == "reftable.blocksize") {
    REFTAB_ASSIGN_OR_RETURN(uint64_t v, ConfigUlong(e));
    if (v > kMaxBlockSize) return Status::InvalidArgument("reftable block size cannot exceed 16MB");
    s->block_size = uint32_t(v);
  } else if (e.key == "reftable.restartinterval") {
    REFTAB_ASSIGN_OR_RETURN(uint64_t v, ConfigUlong(e));
    // git's wording ("block size") for the restart interval's limit, kept as git prints it.
    if (v > kMaxRestartInterval) {
      return Status::InvalidArgument("reftable block size cannot exceed 65535");
    }
    s->restart_interval = uint32_t(v);
  } else if (e.key == "reftable.indexobjects") {
    REFTAB_ASSIGN_OR_RETURN(s->index_objects, ConfigBool(e));
  } else if (e.key == "reftable.geometricfactor") {
    REFTAB_ASSIGN_OR_RETURN(uint64_t v, ConfigUlong(e));
    if (v > kMaxGeometricFactor) {
      return Status::InvalidArgument("reftable geometric factor cannot exceed 255");
    }
    s->geometric_factor = uint32_t(v);
  } else if (e.key == "reftable.locktimeout") {
    REFTAB_ASSIGN_OR_RETURN(int64_t v, ConfigInt64(e));
    if (v < 0 && v != -1) {
      return Status::InvalidArgument(
          "reftable lock timeout does not support negative values other than -1");
    }
    s->lock_timeout_ms = v;
  } else if (e.key == "core.logallrefupdates") {
    if (e.value && !strcasecmp(e.value->c_str(), "always")) {
      s->log_all_ref_updates = LogRefUpdates::kAlways;
    } else {
      REFTAB_ASSIGN_OR_RETURN(bool on, ConfigBool(e));
      s->log_all_ref_updates = on ? LogRefUpdates::kNormal : LogRefUpdates::kNone;
    }
  }
  return Status::Ok();
}

// git_config_perm over one value.
Result<int> ParsePerm(const ConfigEntry& e) {
  constexpr int kGroup = 0660, kEverybody = 0664;
  if (!e.value) return kGroup;
  const std::string& v = *e.value;
  if (v == "umask") return 0;
  if (v == "group") return kGroup;
  if (v == "all" || v == "world" || v == "everybody") return kEverybody;
  char* end = nullptr;
  const int mode = int(std::strtol(v.c_str(), &end, 8));
  if (*end != '\0') {
    REFTAB_ASSIGN_OR_RETURN(bool on, ConfigBool(e));
    return on ? kGroup : 0;
  }
  if (mode == 0) return 0;
  if (mode == 1) return kGroup;  // the old numeric spellings
  if (mode == 2) return kEverybody;
  if ((mode & 0600) != 0600) {
    char octal[16];
    std::snprintf(octal, sizeof octal, "%.3o", unsigned(mode));
    return Status::InvalidArgument(
        std::string("problem with core.sharedRepository filemode value (0") + octal +
        ").\nThe owner of files must always have read and write "
        "permissions.");
  }
  return -(mode & 0666);  // execute bits are derived per file (ApplySharedRepository)
}

}  // namespace

Result<ReftableSettings> ReadReftableSettings(const GitConfig& config) {
  ReftableSettings s;
  for (const ConfigEntry& e : config.entries()) REFTAB_RETURN_IF_ERROR(ApplyReftableEntry(e, &s));
  return s;
}

Result<int> SharedRepositorySetting(const GitConfig& config) {
  const ConfigEntry* e = config.Last("core.sharedrepository");
  if (!e) return 0;
  return ParsePerm(*e);
}

uint32_t ApplySharedRepository(int shared, uint32_t mode) {
  uint32_t tweak = uint32_t(shared < 0 ? -shared : shared);
  if (!(mode & S_IWUSR)) tweak &= ~0222u;
  if (mode & S_IXUSR) tweak |= (tweak & 0444) >> 2;  // readable means searchable
  return shared < 0 ? (mode & ~0777u) | tweak : mode | tweak;
}

Result<uint32_t> SharedFilePermissions(const GitConfig& config, uint32_t umask) {
  REFTAB_ASSIGN_OR_RETURN(int shared, SharedRepositorySetting(config));
  return ApplySharedRepository(shared, 0666 & ~umask);
}

uint32_t CurrentUmask() {
  // One read(2): every repository open pays this, and an ifstream would also build the C++
  // locale, a tenth of the instructions of a whole `show-ref --verify`.
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n > 0) {
      buf[n] = '\0';
      const char* line = std::strstr(buf, "\nUmask:");
      if (line) return uint32_t(std::strtoul(line + 7, nullptr, 8));
    }
  }
  mode_t mask = ::umask(0);
  ::umask(mask);
  return uint32_t(mask);
}

// The value is a comma-separated list
// of components added to git's default set ("-name" removes one, "none" empties the set).
// The default set leaves refs out, so refs are synced exactly when a name that is not
// negated matches a component that includes them (reference, committed, added, all); a
// name matches every component it is a prefix of, as in git.
bool CoreFsyncIncludesRefs(const GitConfig& config) {
  const std::optional<std::string> value = config.Get("core.fsync");
  if (!value) return false;
  constexpr std::string_view kWithRefs[] = {"reference", "committed", "added", "all"};
  std::string_view rest = *value;
  while (!rest.empty()) {
    size_t start = rest.find_first_not_of(", \t\n\r");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    std::string_view token = rest.substr(0, rest.find(','));
    rest.remove_prefix(token.size());
    if (token.empty() || token[0] == '-') continue;
    for (std::string_view name : kWithRefs) {
      if (name.substr(0, token.size()) == token) return true;
    }
  }
  return false;
}

}  // namespace reftab

#include "store/git_identity.h"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <optional>

namespace reftab {
namespace {

// Parses GIT_COMMITTER_DATE in git's raw form: "[@]<seconds> <+|-HHMM>".
bool ParseRawDate(const char* s, uint64_t* time, int16_t* tz) {
  if (*s == '@') ++s;
  char* end = nullptr;
  unsigned long long t = std::strtoull(s, &end, 10);
  if (end == s) return false;
  while (*end == ' ') ++end;
  if (*end != '+' && *end != '-') return false;
  int sign = *end == '-' ? -1 : 1;
  char* tz_end = nullptr;
  long hhmm = std::strtol(end + 1, &tz_end, 10);
  if (tz_end != end + 5 || hhmm > 9999) return false;
  *time = t;
  *tz = int16_t(sign * hhmm);
  return true;
}

int16_t LocalTzOffset(std::time_t now) {
  std::tm tm{};
  localtime_r(&now, &tm);
  long minutes = tm.tm_gmtoff / 60;
  int sign = minutes < 0 ? -1 : 1;
  minutes *= sign;
  return int16_t(sign * ((minutes / 60) * 100 + minutes % 60));
}

// The first of: the environment variable, committer.<key>, user.<key>.
std::optional<std::string> Configured(const char* env, const GitConfig* config, const char* key) {
  if (const char* v = std::getenv(env)) return std::string(v);
  if (!config) return std::nullopt;
  if (auto v = config->Get(std::string("committer.") + key)) return v;
  return config->Get(std::string("user.") + key);
}

// git's last resort for a name: the account's full name (GECOS up to the first ','), else
// the login name.
std::string AccountName() {
  const passwd* pw = getpwuid(getuid());
  if (pw && pw->pw_gecos && *pw->pw_gecos) {
    std::string gecos = pw->pw_gecos;
    return gecos.substr(0, gecos.find(','));
  }
  return pw && pw->pw_name ? pw->pw_name : "unknown";
}

// git's last resort for an email: $EMAIL, else login@hostname.
std::string AccountEmail() {
  if (const char* v = std::getenv("EMAIL"); v && *v) return v;
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  const passwd* pw = getpwuid(getuid());
  return std::string(pw && pw->pw_name ? pw->pw_name : "unknown") + "@" + host;
}

}  // namespace

LogInfo CommitterIdentity(const GitConfig* config) {
  LogInfo info;
  info.name = Configured("GIT_COMMITTER_NAME", config, "name").value_or(AccountName());
  info.email = Configured("GIT_COMMITTER_EMAIL", config, "email").value_or(AccountEmail());
  const char* date = std::getenv("GIT_COMMITTER_DATE");
  if (!date || !ParseRawDate(date, &info.time, &info.tz_offset)) {
    std::time_t now = std::time(nullptr);
    info.time = uint64_t(now);
    info.tz_offset = LocalTzOffset(now);
  }
  return info;
}

std::string CleanReflogMessage(std::string_view msg, size_t max_len) {
  std::string out;
  bool was_space = true;
  for (char c : msg) {
    bool space = std::isspace(uint8_t(c)) != 0;
    if (was_space && space) continue;
    was_space = space;
    out.push_back(space ? ' ' : c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_len) out.resize(max_len);
  if (!out.empty()) out.push_back('\n');
  return out;
}

}  // namespace reftab

#include "store/git/identity.h"

#include <netdb.h>
#include <pwd.h>
#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>

#include "store/git/date_format.h"

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

// "+HHMM", "-HH:MM", "+HH" or "Z" at *s; advances *s. Returns false if there is none.
bool ParseZone(const char** s, int* minutes_east) {
  const char* p = *s;
  if (*p == 'Z') {
    *minutes_east = 0;
    *s = p + 1;
    return true;
  }
  if (*p != '+' && *p != '-') return false;
  int sign = *p == '-' ? -1 : 1;
  ++p;
  int digits[4], n = 0;
  while (n < 4 && (std::isdigit(uint8_t(*p)) || (*p == ':' && n == 2))) {
    if (*p != ':') digits[n++] = *p - '0';
    ++p;
  }
  if (n != 2 && n != 4) return false;
  int hh = digits[0] * 10 + digits[1], mm = n == 4 ? digits[2] * 10 + digits[3] : 0;
  *minutes_east = sign * (hh * 60 + mm);
  *s = p;
  return true;
}

// Reads exactly `width` digits.
bool Digits(const char** s, int width, int* out) {
  int v = 0;
  for (int i = 0; i < width; ++i) {
    if (!std::isdigit(uint8_t((*s)[i]))) return false;
    v = v * 10 + ((*s)[i] - '0');
  }
  *s += width;
  *out = v;
  return true;
}

// The broken-down time plus zone as seconds since the epoch and git's +HHMM number; without
// a zone, the local one.
void Finish(std::tm tm, bool has_zone, int minutes_east, uint64_t* time, int16_t* tz) {
  if (has_zone) {
    *time = uint64_t(int64_t(timegm(&tm)) - int64_t(minutes_east) * 60);
  } else {
    tm.tm_isdst = -1;
    *time = uint64_t(mktime(&tm));
    minutes_east = int(tm.tm_gmtoff / 60);
  }
  int sign = minutes_east < 0 ? -1 : 1;
  int m = minutes_east * sign;
  *tz = int16_t(sign * ((m / 60) * 100 + m % 60));
}

// "YYYY-MM-DD[T ]HH:MM[:SS][.frac][ ][zone]", git's ISO 8601 form.
bool ParseIsoDate(const char* s, uint64_t* time, int16_t* tz) {
  std::tm tm{};
  int y, mo, d, h, mi, sec = 0;
  if (!Digits(&s, 4, &y) || *s++ != '-' || !Digits(&s, 2, &mo) || *s++ != '-' ||
      !Digits(&s, 2, &d) || (*s != 'T' && *s != ' ')) {
    return false;
  }
  ++s;
  if (!Digits(&s, 2, &h) || *s++ != ':' || !Digits(&s, 2, &mi)) return false;
  if (*s == ':' && (++s, !Digits(&s, 2, &sec))) return false;
  if (*s == '.' || *s == ',') {
    ++s;
    while (std::isdigit(uint8_t(*s))) ++s;
  }
  while (*s == ' ') ++s;
  int zone = 0;
  bool has_zone = ParseZone(&s, &zone);
  if (*s != '\0') return false;
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d;
  tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec;
  Finish(tm, has_zone, zone, time, tz);
  return true;
}

// "[Day, ]DD Mon YYYY HH:MM:SS zone", RFC 2822.
bool ParseRfc2822Date(const char* s, uint64_t* time, int16_t* tz) {
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (const char* comma = std::strchr(s, ',')) s = comma + 1;
  while (*s == ' ') ++s;
  char* end = nullptr;
  long d = std::strtol(s, &end, 10);
  if (end == s || *end != ' ') return false;
  s = end + 1;
  int mo = -1;
  for (int i = 0; i < 12; ++i) {
    if (strncasecmp(s, kMonths[i], 3) == 0) mo = i;
  }
  if (mo < 0 || s[3] != ' ') return false;
  s += 4;
  int y, h, mi, sec = 0;
  if (!Digits(&s, 4, &y) || *s++ != ' ' || !Digits(&s, 2, &h) || *s++ != ':' ||
      !Digits(&s, 2, &mi)) {
    return false;
  }
  if (*s == ':' && (++s, !Digits(&s, 2, &sec))) return false;
  while (*s == ' ') ++s;
  int zone = 0;
  bool has_zone = ParseZone(&s, &zone);
  if (*s != '\0') return false;
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo, tm.tm_mday = int(d);
  tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = sec;
  Finish(tm, has_zone, zone, time, tz);
  return true;
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

// The host part git makes up: the host name if it has a dot, else its canonical name if
// that has one, else "<host>.(none)".
std::string MailDomain() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) return "(none)";
  if (std::strchr(host, '.')) return host;
  addrinfo hints{};
  hints.ai_flags = AI_CANONNAME;
  addrinfo* ai = nullptr;
  std::string domain = std::string(host) + ".(none)";
  if (getaddrinfo(host, nullptr, &hints, &ai) == 0) {
    if (ai && ai->ai_canonname && std::strchr(ai->ai_canonname, '.')) domain = ai->ai_canonname;
    freeaddrinfo(ai);
  }
  return domain;
}

// git's last resort for an email: $EMAIL, else login@domain.
std::string AccountEmail() {
  if (const char* v = std::getenv("EMAIL"); v && *v) return v;
  const passwd* pw = getpwuid(getuid());
  return std::string(pw && pw->pw_name ? pw->pw_name : "unknown") + "@" + MailDomain();
}

}  // namespace

LogInfo CommitterIdentity(const GitConfig* config) {
  LogInfo info;
  // The account fallbacks ask the system (getpwuid, a resolver lookup for the host's
  // domain: milliseconds, more with a slow DNS), so they run only when nothing is configured.
  auto name = Configured("GIT_COMMITTER_NAME", config, "name");
  info.name = name ? std::move(*name) : AccountName();
  auto email = Configured("GIT_COMMITTER_EMAIL", config, "email");
  info.email = email ? std::move(*email) : AccountEmail();
  const char* date = std::getenv("GIT_COMMITTER_DATE");
  if (!date || !(ParseRawDate(date, &info.time, &info.tz_offset) ||
                 ParseIsoDate(date, &info.time, &info.tz_offset) ||
                 ParseRfc2822Date(date, &info.time, &info.tz_offset))) {
    std::time_t now = std::time(nullptr);
    info.time = uint64_t(now);
    info.tz_offset = int16_t(LocalZoneOffset(int64_t(now)));
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
  out.push_back('\n');  // git's writer stores every message with one, even an empty one
  return out;
}

}  // namespace reftab

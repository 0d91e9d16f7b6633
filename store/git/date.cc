#include "store/git/date.h"

#include <cstdlib>
#include <ctime>
#include <string>

namespace reftab {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ToUint(std::string_view s, uint64_t* out) {
  if (!AllDigits(s) || s.size() > 19) return false;
  *out = std::strtoull(std::string(s).c_str(), nullptr, 10);
  return true;
}

// Takes `n` digits from the front of *s.
bool TakeDigits(std::string_view* s, size_t n, int* out) {
  if (s->size() < n || !AllDigits(s->substr(0, n))) return false;
  *out = std::atoi(std::string(s->substr(0, n)).c_str());
  s->remove_prefix(n);
  return true;
}

bool TakeChar(std::string_view* s, char c) {
  if (s->empty() || s->front() != c) return false;
  s->remove_prefix(1);
  return true;
}

// "[+-]HHMM" or "Z": the offset east of UTC in seconds.
bool ParseZone(std::string_view s, long* offset) {
  if (s == "Z") {
    *offset = 0;
    return true;
  }
  if (s.size() != 5 || (s[0] != '+' && s[0] != '-') || !AllDigits(s.substr(1))) return false;
  long hhmm = std::atol(std::string(s.substr(1)).c_str());
  *offset = (hhmm / 100 * 3600 + hhmm % 100 * 60) * (s[0] == '-' ? -1 : 1);
  return true;
}

// YYYY-MM-DD[( |T)HH:MM[:SS]][ ][zone]. A date alone keeps the time of day of `now`, as
// git's approxidate does.
bool ParseIsoLike(std::string_view s, uint64_t now, uint64_t* out) {
  std::tm tm{};
  time_t now_t = time_t(now);
  localtime_r(&now_t, &tm);
  int y, mo, d, h = tm.tm_hour, mi = tm.tm_min, sec = tm.tm_sec;
  if (!TakeDigits(&s, 4, &y) || !TakeChar(&s, '-') || !TakeDigits(&s, 2, &mo) ||
      !TakeChar(&s, '-') || !TakeDigits(&s, 2, &d)) {
    return false;
  }
  if (!s.empty() && (s[0] == ' ' || s[0] == 'T') && s.size() > 1 && s[1] >= '0' && s[1] <= '9') {
    s.remove_prefix(1);
    if (!TakeDigits(&s, 2, &h) || !TakeChar(&s, ':') || !TakeDigits(&s, 2, &mi)) return false;
    if (TakeChar(&s, ':') && !TakeDigits(&s, 2, &sec)) return false;
  }
  TakeChar(&s, ' ');
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  long offset = 0;
  time_t t;
  if (s.empty()) {
    tm.tm_isdst = -1;
    t = mktime(&tm);
  } else {
    if (!ParseZone(s, &offset)) return false;
    t = timegm(&tm) - offset;
  }
  if (t < 0) return false;
  *out = uint64_t(t);
  return true;
}

// "N unit[s] ago" (spaces or dots between the words).
bool ParseRelative(std::string s, uint64_t now, uint64_t* out) {
  for (char& c : s) {
    if (c == '.') c = ' ';
  }
  size_t sp1 = s.find(' ');
  size_t sp2 = sp1 == std::string::npos ? sp1 : s.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || s.substr(sp2 + 1) != "ago") return false;
  uint64_t n;
  if (!ToUint(std::string_view(s).substr(0, sp1), &n)) return false;
  std::string unit = s.substr(sp1 + 1, sp2 - sp1 - 1);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  static constexpr struct {
    const char* name;
    uint64_t seconds;
  } kUnits[] = {{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400}, {"week", 604800}};
  for (const auto& u : kUnits) {
    if (unit == u.name) {
      *out = n * u.seconds > now ? 0 : now - n * u.seconds;
      return true;
    }
  }
  if (unit != "month" && unit != "year") return false;
  time_t t = time_t(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  if (unit == "month") {
    tm.tm_mon -= int(n);
  } else {
    tm.tm_year -= int(n);
  }
  tm.tm_isdst = -1;
  time_t r = mktime(&tm);
  *out = r < 0 ? 0 : uint64_t(r);
  return true;
}

}  // namespace

uint64_t GitDateNow() {
  if (const char* x = std::getenv("GIT_TEST_DATE_NOW")) return uint64_t(std::atoll(x));
  return uint64_t(std::time(nullptr));
}

Status ParseApproxDate(std::string_view text, uint64_t now, uint64_t* out) {
  if (!text.empty() && text[0] == '@' && ToUint(text.substr(1), out)) return Status::Ok();
  if (text.size() >= 9 && ToUint(text, out)) return Status::Ok();
  if (text == "now") {
    *out = now;
    return Status::Ok();
  }
  if (text == "yesterday") {
    *out = now - 86400;
    return Status::Ok();
  }
  if (ParseIsoLike(text, now, out) || ParseRelative(std::string(text), now, out))
    return Status::Ok();
  return Status::InvalidArgument("date '" + std::string(text) +
                                 "' is not one reftab reads (see reftab help reflog)");
}

Status ParseExpiryDate(std::string_view text, uint64_t now, uint64_t* out) {
  if (text == "never" || text == "false") {
    *out = 0;
  } else if (text == "all" || text == "now") {
    *out = UINT64_MAX;
  } else {
    return ParseApproxDate(text, now, out);
  }
  return Status::Ok();
}

}  // namespace reftab

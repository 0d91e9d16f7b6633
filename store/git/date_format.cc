#include "store/git/date_format.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "store/git/date.h"

namespace reftab {
namespace {

constexpr const char* kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "Saturday"};
constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};

bool Skip(std::string_view* s, std::string_view p) {
  if (s->substr(0, p.size()) != p) return false;
  s->remove_prefix(p.size());
  return true;
}

// git's gm_time_t: the wall-clock time in zone `tz`, as seconds.
time_t ZoneTime(int64_t time, int tz) {
  int minutes = tz < 0 ? -tz : tz;
  minutes = (minutes / 100) * 60 + minutes % 100;
  return time_t(time + int64_t(tz < 0 ? -minutes : minutes) * 60);
}

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

std::string Plural(long long n, const char* one, const char* many) {
  return Printf(n == 1 ? one : many, n);
}

std::string Relative(int64_t time) {
  int64_t now = int64_t(GitDateNow());
  if (now < time) return "in the future";
  long long diff = now - time;
  if (diff < 90) return Plural(diff, "%lld second ago", "%lld seconds ago");
  diff = (diff + 30) / 60;
  if (diff < 90) return Plural(diff, "%lld minute ago", "%lld minutes ago");
  diff = (diff + 30) / 60;
  if (diff < 36) return Plural(diff, "%lld hour ago", "%lld hours ago");
  diff = (diff + 12) / 24;
  if (diff < 14) return Plural(diff, "%lld day ago", "%lld days ago");
  if (diff < 70) return Plural((diff + 3) / 7, "%lld week ago", "%lld weeks ago");
  if (diff < 365) return Plural((diff + 15) / 30, "%lld month ago", "%lld months ago");
  if (diff < 1825) {
    long long total = (diff * 12 * 2 + 365) / (365 * 2), years = total / 12, months = total % 12;
    if (!months) return Plural(years, "%lld year ago", "%lld years ago");
    return Plural(years, "%lld year", "%lld years") +
           Plural(months, ", %lld month ago", ", %lld months ago");
  }
  return Plural((diff + 183) / 365, "%lld year ago", "%lld years ago");
}

// git's strbuf_addftime: %z, %s and (for a zone that is not local) %Z handled by hand.
std::string Strftime(const std::string& fmt, const struct tm& tm, int tz, bool suppress_zone) {
  if (fmt.empty()) return "";
  std::string munged;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%' || i + 1 >= fmt.size()) {
      munged.push_back(fmt[i]);
      continue;
    }
    char c = fmt[++i];
    if (c == '%') {
      munged.append("%%");
    } else if (c == 's') {
      struct tm copy = tm;
      int64_t t = int64_t(timegm(&copy)) - 3600 * (tz / 100) - 60 * (tz % 100);
      munged.append(std::to_string(t));
    } else if (c == 'z') {
      munged.append(ZoneText(tz));
    } else if (!(suppress_zone && c == 'Z')) {
      munged.push_back('%');
      munged.push_back(c);
    }
  }
  munged.push_back(' ');  // so that an empty result is told from a failure
  std::string out(256 + munged.size() * 16, '\0');
  size_t n = std::strftime(out.data(), out.size(), munged.c_str(), &tm);
  out.resize(n ? n - 1 : 0);
  return out;
}

// git's "human" dates: the parts that are the same as now are left out.
std::string Human(int64_t time, int tz, const struct tm& tm, bool local) {
  time_t now_t = time_t(GitDateNow());
  struct tm now;
  localtime_r(&now_t, &now);
  int now_tz = LocalZoneOffset(int64_t(now_t));
  bool hide_tz = local || tz == now_tz, hide_year = tm.tm_year == now.tm_year;
  bool hide_date = false, hide_wday = false;
  if (hide_year && tm.tm_mon == now.tm_mon) {
    if (tm.tm_mday == now.tm_mday) {
      hide_date = hide_wday = true;
    } else if (tm.tm_mday < now.tm_mday && tm.tm_mday + 5 > now.tm_mday) {
      hide_date = true;
    }
  }
  if (hide_wday) return Relative(time);
  hide_tz = hide_tz || !hide_date;
  bool hide_time = !hide_year;
  hide_wday = !hide_year;
  std::string s;
  if (!hide_wday) s += Printf("%.3s ", kWeekdays[tm.tm_wday]);
  if (!hide_date) s += Printf("%.3s %d ", kMonths[tm.tm_mon], tm.tm_mday);
  if (!hide_time) {
    s += Printf("%02d:%02d", tm.tm_hour, tm.tm_min);
  } else {
    while (!s.empty() && s.back() == ' ') s.pop_back();
  }
  if (!hide_year) s += Printf(" %d", tm.tm_year + 1900);
  if (!hide_tz) s.append(" ").append(ZoneText(tz));
  return s;
}

}  // namespace

int LocalZoneOffset(int64_t time) {
  time_t t = time_t(time);
  struct tm local;
  localtime_r(&t, &local);
  long off = local.tm_gmtoff / 60;
  long sign = off < 0 ? -1 : 1;
  off *= sign;
  return int(sign * ((off / 60) * 100 + off % 60));
}

bool ParseDateMode(std::string_view spec, bool to_terminal, DateMode* mode, std::string* error) {
  std::string_view f = spec;
  if (f.starts_with("auto:")) f = to_terminal ? f.substr(5) : "default";
  if (f == "local") f = "default-local";
  std::string_view p = f;
  if (Skip(&p, "relative")) {
    mode->style = DateStyle::kRelative;
  } else if (Skip(&p, "iso8601-strict") || Skip(&p, "iso-strict")) {
    mode->style = DateStyle::kIsoStrict;
  } else if (Skip(&p, "iso8601") || Skip(&p, "iso")) {
    mode->style = DateStyle::kIso;
  } else if (Skip(&p, "rfc2822") || Skip(&p, "rfc")) {
    mode->style = DateStyle::kRfc;
  } else if (Skip(&p, "short")) {
    mode->style = DateStyle::kShort;
  } else if (Skip(&p, "default")) {
    mode->style = DateStyle::kNormal;
  } else if (Skip(&p, "human")) {
    mode->style = DateStyle::kHuman;
  } else if (Skip(&p, "raw")) {
    mode->style = DateStyle::kRaw;
  } else if (Skip(&p, "unix")) {
    mode->style = DateStyle::kUnix;
  } else if (Skip(&p, "format")) {
    mode->style = DateStyle::kStrftime;
  } else {
    *error = "unknown date format " + std::string(f);
    return false;
  }
  mode->local = Skip(&p, "-local");
  if (mode->style == DateStyle::kStrftime) {
    if (!Skip(&p, ":")) {
      *error = "date format missing colon separator: " + std::string(f);
      return false;
    }
    mode->strftime_format = std::string(p);
  } else if (!p.empty()) {
    *error = "unknown date format " + std::string(f);
    return false;
  }
  return true;
}

std::string ZoneText(int tz) { return Printf("%+05d", tz); }

std::string ShowDate(int64_t time, int tz, const DateMode& mode) {
  if (mode.style == DateStyle::kUnix) return std::to_string(time);
  if (mode.local) tz = LocalZoneOffset(time);
  if (mode.style == DateStyle::kRaw) return std::to_string(time).append(" ").append(ZoneText(tz));
  if (mode.style == DateStyle::kRelative) return Relative(time);
  struct tm tm;
  time_t t = mode.local ? time_t(time) : ZoneTime(time, tz);
  bool ok = mode.local ? localtime_r(&t, &tm) != nullptr : gmtime_r(&t, &tm) != nullptr;
  if (!ok) {
    t = 0;
    tz = 0;
    gmtime_r(&t, &tm);
  }
  int y = tm.tm_year + 1900, mo = tm.tm_mon + 1, d = tm.tm_mday;
  switch (mode.style) {
    case DateStyle::kShort: return Printf("%04d-%02d-%02d", y, mo, d);
    case DateStyle::kIso:
      return Printf("%04d-%02d-%02d %02d:%02d:%02d %+05d", y, mo, d, tm.tm_hour, tm.tm_min,
                    tm.tm_sec, tz);
    case DateStyle::kIsoStrict: {
      std::string s =
          Printf("%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, tm.tm_hour, tm.tm_min, tm.tm_sec);
      if (tz == 0) return s + "Z";
      int a = std::abs(tz);
      return s + Printf("%c%02d:%02d", tz >= 0 ? '+' : '-', a / 100, a % 100);
    }
    case DateStyle::kRfc:
      return Printf("%.3s, %d %.3s %d %02d:%02d:%02d %+05d", kWeekdays[tm.tm_wday], d,
                    kMonths[tm.tm_mon], y, tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
    case DateStyle::kStrftime: return Strftime(mode.strftime_format, tm, tz, !mode.local);
    case DateStyle::kHuman: return Human(time, tz, tm, mode.local);
    default: break;
  }
  std::string s = Printf("%.3s %.3s %d %02d:%02d:%02d %d", kWeekdays[tm.tm_wday],
                         kMonths[tm.tm_mon], d, tm.tm_hour, tm.tm_min, tm.tm_sec, y);
  if (!mode.local) s.append(" ").append(ZoneText(tz));
  return s;
}

}  // namespace reftab

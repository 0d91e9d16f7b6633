#include "cli/git_color.h"

#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>

#include "cli/pager.h"
#include "format/record.h"

namespace reftab::cli {
namespace {

enum class ColorType : unsigned char { kUnspecified, kNormal, kAnsi, k256, kRgb };

struct Color {
  ColorType type = ColorType::kUnspecified;
  int value = 0;
  int r = 0, g = 0, b = 0;
};

bool WordIs(std::string_view word, const char* match) {
  return word.size() == std::char_traits<char>::length(match) &&
         strncasecmp(word.data(), match, word.size()) == 0;
}

bool ParseRgb(std::string_view w, Color* c) {
  if ((w.size() != 7 && w.size() != 4) || w[0] != '#') return false;
  size_t width = w.size() == 7 ? 2 : 1;
  int parts[3];
  for (size_t i = 0; i < 3; ++i) {
    int hi = HexDigitValue(w[1 + i * width]), lo = HexDigitValue(w[1 + i * width + width - 1]);
    if (hi < 0 || lo < 0) return false;
    parts[i] = hi * 16 + lo;
  }
  c->type = ColorType::kRgb;
  c->r = parts[0], c->g = parts[1], c->b = parts[2];
  return true;
}

bool ParseAnsiName(std::string_view w, Color* c) {
  static constexpr const char* kNames[] = {"black", "red",     "green", "yellow",
                                           "blue",  "magenta", "cyan",  "white"};
  int offset = 30;
  if (WordIs(w, "default")) {
    c->type = ColorType::kAnsi;
    c->value = 39;
    return true;
  }
  if (w.size() >= 6 && strncasecmp(w.data(), "bright", 6) == 0) {
    offset = 90;
    w.remove_prefix(6);
  }
  for (int i = 0; i < 8; ++i) {
    if (WordIs(w, kNames[i])) {
      c->type = ColorType::kAnsi;
      c->value = i + offset;
      return true;
    }
  }
  return false;
}

bool ParseColorWord(std::string_view w, Color* c) {
  if (WordIs(w, "normal")) {
    c->type = ColorType::kNormal;
    return true;
  }
  if (ParseRgb(w, c) || ParseAnsiName(w, c)) return true;
  std::string s(w);
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() || v < -1 || v > 255) return false;
  if (v < 0) {
    c->type = ColorType::kNormal;
  } else if (v < 8) {
    c->type = ColorType::kAnsi, c->value = int(v) + 30;
  } else if (v < 16) {
    c->type = ColorType::kAnsi, c->value = int(v) - 8 + 90;
  } else {
    c->type = ColorType::k256, c->value = int(v);
  }
  return true;
}

// An attribute's SGR number (negated forms: "nobold", "no-bold"), or -1.
int ParseAttr(std::string_view w) {
  static constexpr struct {
    const char* name;
    int on, off;
  } kAttrs[] = {{"bold", 1, 22},  {"dim", 2, 22},     {"italic", 3, 23}, {"ul", 4, 24},
                {"blink", 5, 25}, {"reverse", 7, 27}, {"strike", 9, 29}};
  bool negate = false;
  if (w.substr(0, 2) == "no") {
    w.remove_prefix(2);
    if (!w.empty() && w[0] == '-') w.remove_prefix(1);
    negate = true;
  }
  for (const auto& a : kAttrs) {
    if (w == a.name) return negate ? a.off : a.on;
  }
  return -1;
}

bool Empty(const Color& c) {
  return c.type == ColorType::kUnspecified || c.type == ColorType::kNormal;
}

void AppendColor(const Color& c, bool background, std::string* out) {
  int offset = background ? 10 : 0;
  switch (c.type) {
    case ColorType::kUnspecified:
    case ColorType::kNormal: break;
    case ColorType::kAnsi: out->append(std::to_string(c.value + offset)); break;
    case ColorType::k256:
      out->append(std::to_string(38 + offset)).append(";5;").append(std::to_string(c.value));
      break;
    case ColorType::kRgb:
      out->append(std::to_string(38 + offset)).append(";2;");
      out->append(std::to_string(c.r)).push_back(';');
      out->append(std::to_string(c.g)).push_back(';');
      out->append(std::to_string(c.b));
      break;
  }
}

}  // namespace

bool ParseGitColor(std::string_view spec, std::string* escape) {
  escape->clear();
  bool reset = false;
  unsigned attrs = 0;  // bit i: SGR attribute i (up to 29)
  Color fg, bg;
  size_t i = 0;
  auto space = [&](size_t k) { return std::isspace(static_cast<unsigned char>(spec[k])); };
  while (i < spec.size() && space(i)) ++i;
  if (i == spec.size()) return true;
  while (i < spec.size()) {
    size_t start = i;
    while (i < spec.size() && !space(i)) ++i;
    std::string_view word = spec.substr(start, i - start);
    while (i < spec.size() && space(i)) ++i;
    if (WordIs(word, "reset")) {
      reset = true;
      continue;
    }
    Color c;
    if (ParseColorWord(word, &c)) {
      if (fg.type == ColorType::kUnspecified) {
        fg = c;
      } else if (bg.type == ColorType::kUnspecified) {
        bg = c;
      } else {
        return false;
      }
      continue;
    }
    int attr = ParseAttr(word);
    if (attr < 0) return false;
    attrs |= 1u << attr;
  }
  if (!reset && !attrs && Empty(fg) && Empty(bg)) return true;
  escape->append("\033[");
  int sep = reset ? 1 : 0;
  for (int bit = 0; bit < 32; ++bit) {
    if (!(attrs & (1u << bit))) continue;
    if (sep++) escape->push_back(';');
    escape->append(std::to_string(bit));
  }
  if (!Empty(fg)) {
    if (sep++) escape->push_back(';');
    AppendColor(fg, false, escape);
  }
  if (!Empty(bg)) {
    if (sep++) escape->push_back(';');
    AppendColor(bg, true, escape);
  }
  escape->push_back('m');
  return true;
}

ColorWhen ParseColorWhen(std::string_view v) {
  if (WordIs(v, "never")) return ColorWhen::kNever;
  if (WordIs(v, "always")) return ColorWhen::kAlways;
  if (WordIs(v, "auto")) return ColorWhen::kAuto;
  return ColorWhen::kUnknown;
}

bool WantColor(ColorWhen when, bool pager_color) {
  if (when == ColorWhen::kAlways) return true;
  if (when != ColorWhen::kAuto) return false;
  // Through a pager, standard output is a pipe to what shows it on the terminal.
  if (!isatty(1) && !(pager_color && PagerInUse())) return false;
  const char* term = std::getenv("TERM");
  return term && std::string_view(term) != "dumb";
}

namespace {

// The decoration colour a color.decorate.<slot> key sets (its index in
// LogColorConfig::decorate), or 0 for any other key. Slot names are git's, in any case.
size_t DecorateSlot(std::string_view key) {
  constexpr std::string_view kPrefix = "color.decorate.";
  if (key.size() <= kPrefix.size() || !key.starts_with(kPrefix)) return 0;
  std::string_view slot = key.substr(kPrefix.size());
  constexpr std::string_view kSlots[] = {"",      "branch", "remotebranch", "tag",
                                         "stash", "head",   "grafted"};
  for (size_t i = 1; i < std::size(kSlots); ++i) {
    if (slot.size() != kSlots[i].size()) continue;
    bool same = true;
    for (size_t k = 0; k < slot.size() && same; ++k) {
      same = std::tolower(static_cast<unsigned char>(slot[k])) == kSlots[i][k];
    }
    if (same) return i;
  }
  return 0;
}

}  // namespace

bool IsPagerColorKey(std::string_view key) { return key == "color.pager" || key == "pager.color"; }

Result<bool> ReadPagerColor(const GitConfig& config) {
  bool on = true;
  for (const ConfigEntry& e : config.entries()) {
    if (IsPagerColorKey(e.key)) {
      REFTAB_ASSIGN_OR_RETURN(on, ConfigBool(e));
    }
  }
  return on;
}

Result<LogColorConfig> ReadLogColorConfig(const GitConfig& config, std::string* error) {
  error->clear();
  LogColorConfig c;
  std::optional<ColorWhen> ui, diff;
  for (const ConfigEntry& e : config.entries()) {
    if (e.key == "color.ui" || e.key == "color.diff") {
      ColorWhen when = e.value ? ParseColorWhen(*e.value) : ColorWhen::kAuto;
      if (when == ColorWhen::kUnknown) {
        std::optional<bool> on = ParseGitBoolText(*e.value);
        if (!on) {
          return Status::InvalidArgument("bad boolean config value '" + *e.value + "' for '" +
                                         e.key + "'");
        }
        when = *on ? ColorWhen::kAuto : ColorWhen::kNever;
      }
      (e.key == "color.ui" ? ui : diff) = when;
    } else if (IsPagerColorKey(e.key)) {
      REFTAB_ASSIGN_OR_RETURN(c.pager, ConfigBool(e));
    } else if (e.key == "color.diff.commit" || DecorateSlot(e.key) > 0) {
      std::string* slot =
          e.key == "color.diff.commit" ? &c.commit : &c.decorate[DecorateSlot(e.key)];
      if (!e.value) {
        *error = "missing value for '" + e.key + "'";
        return Status::InvalidArgument(BadConfigVariable(e));
      }
      if (!ParseGitColor(*e.value, slot)) {
        *error = "invalid color value: " + *e.value;
        return Status::InvalidArgument(BadConfigVariable(e));
      }
    }
  }
  c.when = diff ? *diff : ui ? *ui : ColorWhen::kAuto;
  return c;
}

}  // namespace reftab::cli

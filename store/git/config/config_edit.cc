// See git_config_edit.h. The text is split into lines and each line classified; only the
// lines of the one section and key change, everything else is copied byte for byte.
#include "store/git/config/config_edit.h"

#include <cctype>
#include <optional>
#include <vector>

namespace reftab {
namespace {

enum class LineKind { kOther, kHeader, kEntry };

struct Line {
  std::string_view text;  // with its newline, if any
  LineKind kind = LineKind::kOther;
  std::string name;  // kHeader: the section (lower case, "" for one with a subsection);
                     // kEntry: the variable (lower case)
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(uint8_t(c)));
  return out;
}

Line Classify(std::string_view text) {
  Line line{text, LineKind::kOther, {}};
  size_t i = text.find_first_not_of(" \t");
  if (i == std::string_view::npos) return line;
  if (text[i] == '[') {
    size_t end = text.find(']', i);
    std::string_view inside = text.substr(i + 1, end == std::string_view::npos ? 0 : end - i - 1);
    line.kind = LineKind::kHeader;
    // A subsection ([a "b"] or the old [a.b]) is never a section reftab edits.
    line.name = inside.find_first_of("\". ") == std::string_view::npos ? Lower(inside) : "";
    return line;
  }
  size_t j = i;
  while (j < text.size() && (std::isalnum(uint8_t(text[j])) || text[j] == '-')) ++j;
  if (j > i && std::isalpha(uint8_t(text[i]))) {
    line.kind = LineKind::kEntry;
    line.name = Lower(text.substr(i, j - i));
  }
  return line;
}

std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(Classify(text.substr(0, len)));
    text.remove_prefix(len);
  }
  return lines;
}

// For each line, whether it lies in a block of `section` (its header included).
std::vector<bool> InSection(const std::vector<Line>& lines, std::string_view section) {
  std::vector<bool> in(lines.size(), false);
  bool current = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].kind == LineKind::kHeader) current = lines[i].name == section;
    in[i] = current;
  }
  return in;
}

std::string Join(const std::vector<Line>& lines, const std::vector<bool>& keep) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (keep[i]) out += lines[i].text;
  }
  return out;
}

void SplitKey(std::string_view key, std::string* section, std::string* name) {
  size_t dot = key.find('.');
  *section = Lower(key.substr(0, dot));
  *name = Lower(key.substr(dot + 1));
}

}  // namespace

std::string SetConfigValue(std::string_view text, std::string_view key, std::string_view value) {
  std::string section, name;
  SplitKey(key, &section, &name);
  std::vector<Line> lines = SplitLines(text);
  std::vector<bool> in = InSection(lines, section);
  const std::string entry = "\t" + name + " = " + std::string(value) + "\n";
  std::optional<size_t> last_entry, insert_after;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!in[i]) continue;
    if (lines[i].kind == LineKind::kHeader || lines[i].kind == LineKind::kEntry) insert_after = i;
    if (lines[i].kind == LineKind::kEntry && lines[i].name == name) last_entry = i;
  }
  std::string out;
  if (!insert_after) {
    out = std::string(text);
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out + "[" + section + "]\n" + entry;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (last_entry && i == *last_entry) {
      out += entry;
      continue;
    }
    out += lines[i].text;
    if (!last_entry && i == *insert_after) {
      if (out.back() != '\n') out += '\n';
      out += entry;
    }
  }
  return out;
}

std::string UnsetConfigValue(std::string_view text, std::string_view key) {
  std::string section, name;
  SplitKey(key, &section, &name);
  std::vector<Line> lines = SplitLines(text);
  std::vector<bool> in = InSection(lines, section);
  std::vector<bool> keep(lines.size(), true);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (in[i] && lines[i].kind == LineKind::kEntry && lines[i].name == name) keep[i] = false;
  }
  // A header left with nothing under it (no entry, no comment) goes too.
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!in[i] || lines[i].kind != LineKind::kHeader) continue;
    bool empty = true;
    for (size_t j = i + 1; j < lines.size() && lines[j].kind != LineKind::kHeader; ++j) {
      if (keep[j] && lines[j].text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
        empty = false;
      }
    }
    if (empty) keep[i] = false;
  }
  return Join(lines, keep);
}

}  // namespace reftab

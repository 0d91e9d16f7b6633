#include "store/git/objects/alternates.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <set>

#include "store/file.h"

namespace reftab {
namespace {

constexpr int kMaxAlternateDepth = 5;  // git ignores alternates nested deeper

// The alternates `objects_dir` names, resolved (relative ones against it).
std::vector<std::string> Alternates(const std::string& objects_dir) {
  std::vector<std::string> out;
  auto text = PosixFileSystem()->ReadFile(objects_dir + "/info/alternates");
  if (!text.ok()) return out;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t nl = std::min(text->find('\n', pos), text->size());
    std::string line = text->substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line[0] == '/' ? line : objects_dir + "/" + line);
  }
  return out;
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

void Collect(const std::string& dir, int depth, std::set<std::string>* seen,
             std::vector<std::string>* out) {
  std::string real = RealPath(dir);
  if (real.empty() || !seen->insert(real).second) return;
  out->push_back(depth == 0 ? dir : real);  // the caller's own name for its database
  if (depth >= kMaxAlternateDepth) return;
  for (const std::string& alt : Alternates(real)) Collect(alt, depth + 1, seen, out);
}

}  // namespace

std::vector<std::string> ObjectDirectories(const std::string& objects_dir) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  Collect(objects_dir, 0, &seen, &out);
  return out;
}

}  // namespace reftab

#include "cli/object_name_report.h"

#include <cstdio>

#include "cli/commands.h"

namespace reftab::cli {

void ReportObjectName(const ObjectNameResult& r) {
  for (const std::string& w : r.warnings) GitWarning(w);
  std::fflush(stdout);
  for (const std::string& a : r.advice) std::fprintf(stderr, "%s\n", a.c_str());
  for (const std::string& e : r.errors) GitError(e);
  for (const std::string& h : r.hints) std::fprintf(stderr, "hint: %s\n", h.c_str());
}

int ObjectNameDied(const ObjectNameResult& r) {
  if (!r.dies) return -1;
  if (r.fatal.empty()) return kExitGitFatal;
  return GitDie(r.fatal);
}

}  // namespace reftab::cli

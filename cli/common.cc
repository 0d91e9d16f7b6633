#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "cli/pager.h"

namespace reftab::cli {
namespace {

void GitReport(const char* prefix, std::string_view message) {
  std::string clean(message);
  for (char& c : clean) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n') || u == 0x7f) c = '?';
  }
  std::fflush(stdout);
  std::fprintf(stderr, "%s%s\n", prefix, clean.c_str());
}

}  // namespace

int GitDie(std::string_view message) {
  GitReport("fatal: ", message);
  return kExitGitFatal;
}

int GitError(std::string_view message) {
  GitReport("error: ", message);
  return 1;
}

void GitWarning(std::string_view message) { GitReport("warning: ", message); }

void ExitKeepingState(int status, Pager* pager) {
  if (pager) pager->Finish();
  std::fflush(nullptr);
  std::_Exit(status);
}

int Fail(const Status& s) {
  std::fprintf(stderr, "reftab: %s\n", s.message().c_str());
  return kExitError;
}

int Usage(const char* usage, const std::string& message) {
  GitReport("error: ", message);
  std::fputs(usage, stderr);
  return kExitUsage;
}

std::string UnknownArgument(const std::string& arg,
                            std::initializer_list<std::string_view> value_options) {
  for (std::string_view o : value_options) {
    if (arg == o) return "option `" + arg.substr(2) + "' requires a value";
  }
  if (arg.starts_with("--")) {
    return "unknown option `" + arg.substr(2, arg.find('=') - 2) + "'";  // npos - 2: the rest
  }
  if (arg.size() > 1 && arg[0] == '-') return "unknown switch `" + arg.substr(1, 1) + "'";
  return "too many arguments";
}

bool TakeValue(const Args& args, size_t* i, const char* name, std::string* value) {
  const std::string& a = args[*i];
  size_t n = std::strlen(name);
  if (a.compare(0, n, name) != 0) return false;
  if (a.size() > n && a[n] == '=') {
    *value = a.substr(n + 1);
    return true;
  }
  if (a.size() == n && *i + 1 < args.size()) {
    *value = args[++*i];
    return true;
  }
  return false;
}

bool ParseUint(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace reftab::cli

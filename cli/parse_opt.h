// Command-line options the way git's parse-options reads them, for commands that must answer
// exactly as git does: long options abbreviated to any unique prefix, "--no-" negation,
// "--opt=value" and "--opt value", clustered short options, "--" ending the options, options
// and arguments in any order, and git's error messages ("unknown option `x'", "ambiguous
// option: ...", "option `count' requires a value", ...).
#ifndef REFTAB_CLI_PARSE_OPT_H_
#define REFTAB_CLI_PARSE_OPT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace reftab::cli {

struct ParseOptSpec {
  enum Type : uint8_t {
    kFlag,            // no value; --no-X allowed
    kValue,           // needs a value (=, or the next argument)
    kInt,             // like kValue, checked as git's OPT_INTEGER (k/m/g suffixes)
    kOptionalValue,   // a value only after '='
    kLastArgDefault,  // a value after '=', else the next argument, else none
  };
  int id;
  char short_name;  // 0: none
  const char* long_name;
  Type type;
  bool no_negation = false;
};

struct ParseOptUse {
  int id;
  bool negated = false;
  std::optional<std::string> value;
  int64_t number = 0;  // kInt
};

struct ParseOptResult {
  enum Kind : uint8_t {
    kOk,
    kHelp,        // -h: usage on standard output, exit 0
    kError,       // "error: <message>", exit 129
    kErrorUsage,  // "error: <message>" and the usage on standard error, exit 129
  } kind = kOk;
  std::string message;
  std::vector<ParseOptUse> uses;  // in command-line order
  std::vector<std::string> args;
};

ParseOptResult ParseOptionsAsGit(const Args& args, const std::vector<ParseOptSpec>& options);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_PARSE_OPT_H_

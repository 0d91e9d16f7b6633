#include "cli/parse_opt.h"

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>

namespace reftab::cli {
namespace {

struct Match {
  const ParseOptSpec* option = nullptr;
  bool negated = false;
};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string OptName(const ParseOptSpec& o, bool negated, bool is_short) {
  if (is_short) return std::string("switch `") + o.short_name + "'";
  if (negated) return std::string("option `no-") + o.long_name + "'";
  return std::string("option `") + o.long_name + "'";
}

// git_parse_signed for an int: base prefixes, optional k/m/g.
bool ParseInt(const std::string& s, int64_t* out, bool* range) {
  *range = false;
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  intmax_t v = std::strtoimax(s.c_str(), &end, 0);
  if (errno == ERANGE) return *range = true, false;
  if (end == s.c_str()) return false;
  intmax_t factor = 0;
  if (!*end) {
    factor = 1;
  } else if (!end[1]) {
    char c = char(std::tolower(static_cast<unsigned char>(*end)));
    factor = c == 'k' ? 1024 : c == 'm' ? 1024 * 1024 : c == 'g' ? 1024 * 1024 * 1024 : 0;
  }
  if (!factor) return false;
  constexpr intmax_t kMax = INT32_MAX;
  if ((v < 0 && (-kMax - 1) / factor > v) || (v > 0 && kMax / factor < v)) {
    return *range = true, false;
  }
  *out = int64_t(v * factor);
  return true;
}

class Parser {
 public:
  Parser(const Args& args, const std::vector<ParseOptSpec>& options)
      : args_(args), options_(options) {}

  ParseOptResult Run() {
    for (i_ = 0; i_ < args_.size() && r_.kind == ParseOptResult::kOk; ++i_) {
      const std::string& a = args_[i_];
      if (a == "--") {
        r_.args.insert(r_.args.end(), args_.begin() + long(i_) + 1, args_.end());
        break;
      }
      if (a.size() > 2 && StartsWith(a, "--")) {
        Long(std::string_view(a).substr(2));
      } else if (a.size() > 1 && a[0] == '-') {
        Short(std::string_view(a).substr(1));
      } else {
        r_.args.push_back(a);
      }
    }
    return std::move(r_);
  }

 private:
  void Error(ParseOptResult::Kind kind, std::string message) {
    if (r_.kind != ParseOptResult::kOk) return;
    r_.kind = kind;
    r_.message = std::move(message);
  }

  // The value of an option that needs one: after '=', else the next argument.
  bool TakeArg(const ParseOptSpec& o, bool negated, bool is_short, const char* inline_value,
               std::string* out) {
    if (inline_value) {
      *out = inline_value;
      return true;
    }
    if (i_ + 1 < args_.size()) {
      *out = args_[++i_];
      return true;
    }
    Error(ParseOptResult::kError, OptName(o, negated, is_short) + " requires a value");
    return false;
  }

  void Value(const ParseOptSpec& o, bool negated, bool is_short, const char* inline_value) {
    if (negated && inline_value) {
      return Error(ParseOptResult::kError, OptName(o, negated, is_short) + " takes no value");
    }
    ParseOptUse use{o.id, negated, std::nullopt, 0};
    std::string v;
    switch (o.type) {
      case ParseOptSpec::kFlag:
        if (inline_value) {
          return Error(ParseOptResult::kError, OptName(o, negated, is_short) + " takes no value");
        }
        break;
      case ParseOptSpec::kValue:
        if (!negated) {
          if (!TakeArg(o, negated, is_short, inline_value, &v)) return;
          use.value = v;
        }
        break;
      case ParseOptSpec::kInt:
        if (!negated) {
          if (!TakeArg(o, negated, is_short, inline_value, &v)) return;
          if (!Number(o, is_short, v, &use.number)) return;
          use.value = v;
        }
        break;
      case ParseOptSpec::kOptionalValue:
        if (inline_value) use.value = std::string(inline_value);
        break;
      case ParseOptSpec::kLastArgDefault:
        if (inline_value) {
          use.value = std::string(inline_value);
        } else if (i_ + 1 < args_.size()) {
          use.value = args_[++i_];
        }
        break;
    }
    r_.uses.push_back(std::move(use));
  }

  bool Number(const ParseOptSpec& o, bool is_short, const std::string& v, int64_t* n) {
    std::string name = OptName(o, false, is_short);
    bool range = false;
    if (v.empty()) {
      Error(ParseOptResult::kError, name + " expects a numerical value");
    } else if (!ParseInt(v, n, &range)) {
      Error(ParseOptResult::kError,
            range ? "value " + v + " for " + name + " not in range [-2147483648,2147483647]"
                  : name + " expects an integer value with an optional k/m/g suffix");
    } else {
      return true;
    }
    return false;
  }

  // git's parse_long_opt, abbreviations and negations included.
  void Long(std::string_view arg) {
    size_t eq = arg.find('=');
    const char* inline_value = eq == std::string_view::npos ? nullptr : args_[i_].c_str() + 3 + eq;
    std::string_view start = arg;
    bool negated = false, no_no = false;
    if (StartsWith(start, "no-")) {
      start.remove_prefix(3);
      if (StartsWith(start, "no-")) {
        start.remove_prefix(3);
        no_no = true;
      } else {
        negated = true;
      }
    }
    std::string_view start_name = start.substr(0, start.find('='));
    Match abbrev, ambiguous;
    auto note = [&](const ParseOptSpec* o, bool neg) {
      if (abbrev.option) ambiguous = abbrev;
      abbrev = Match{o, neg};
    };
    for (const ParseOptSpec& o : options_) {
      std::string_view long_name = o.long_name;
      bool opt_negated = false;
      if (StartsWith(long_name, "no-")) {
        long_name.remove_prefix(3);
        opt_negated = true;
      } else if (no_no) {
        continue;
      }
      bool allow_unset = !o.no_negation;
      if ((negated != opt_negated) && !allow_unset) continue;
      if (StartsWith(start, long_name)) {
        std::string_view rest = start.substr(long_name.size());
        if (rest.empty() || rest[0] == '=') {
          const char* v = rest.empty() ? nullptr : inline_value;
          return Value(o, negated != opt_negated, false, v);
        }
      }
      if (StartsWith(long_name, start_name)) note(&o, negated != opt_negated);
      if (allow_unset && StartsWith("no-", arg)) note(&o, !opt_negated);
    }
    if (ambiguous.option) {
      return Error(ParseOptResult::kErrorUsage,
                   "ambiguous option: " + std::string(arg) + " (could be --" +
                       (ambiguous.negated ? "no-" : "") + ambiguous.option->long_name + " or --" +
                       (abbrev.negated ? "no-" : "") + abbrev.option->long_name + ")");
    }
    if (abbrev.option) return Value(*abbrev.option, abbrev.negated, false, inline_value);
    Error(ParseOptResult::kErrorUsage, "unknown option `" + std::string(arg) + "'");
  }

  void Short(std::string_view cluster) {
    if (cluster == "h") {
      r_.kind = ParseOptResult::kHelp;
      return;
    }
    for (size_t k = 0; k < cluster.size(); ++k) {
      const ParseOptSpec* found = nullptr;
      for (const ParseOptSpec& o : options_) {
        if (o.short_name && o.short_name == cluster[k]) found = &o;
      }
      if (!found) {
        if (k == 0) Typos(cluster);
        if (r_.kind != ParseOptResult::kOk) return;
        if (cluster[k] == 'h') {
          r_.kind = ParseOptResult::kHelp;
          return;
        }
        return Error(ParseOptResult::kErrorUsage,
                     std::string("unknown switch `") + cluster[k] + "'");
      }
      Value(*found, false, true, nullptr);
      if (r_.kind != ParseOptResult::kOk) return;
      if (k == 0 && cluster.size() > 1) Typos(cluster);
      if (r_.kind != ParseOptResult::kOk) return;
    }
  }

  // git's check_typos: "-format" was probably meant as "--format".
  void Typos(std::string_view arg) {
    if (arg.size() < 3) return;
    bool typo = StartsWith(arg, "no-");
    for (const ParseOptSpec& o : options_) typo |= StartsWith(o.long_name, arg);
    if (typo) {
      Error(ParseOptResult::kError, "did you mean `--" + std::string(arg) + "` (with two dashes)?");
    }
  }

  const Args& args_;
  const std::vector<ParseOptSpec>& options_;
  size_t i_ = 0;
  ParseOptResult r_;
};

}  // namespace

ParseOptResult ParseOptionsAsGit(const Args& args, const std::vector<ParseOptSpec>& options) {
  return Parser(args, options).Run();
}

}  // namespace reftab::cli

#include "store/git/refs/ref_dwim.h"

#include <array>

#include "store/git/refs/refname.h"

namespace reftab {
namespace {

// git's rules, as a prefix and a suffix around the short name, in git's order.
struct Rule {
  std::string_view prefix, suffix;
};
constexpr std::array<Rule, 6> kRules = {{
    {"", ""},
    {"refs/", ""},
    {"refs/tags/", ""},
    {"refs/heads/", ""},
    {"refs/remotes/", ""},
    {"refs/remotes/", "/HEAD"},
}};

std::string Apply(const Rule& r, std::string_view name) {
  std::string full(r.prefix);
  full.append(name).append(r.suffix);
  return full;
}

// The short name `refname` has under rule `r`, if the rule can produce it (git's
// match_parse_rule: never the empty name).
bool Match(const Rule& r, std::string_view refname, std::string_view* short_name) {
  if (refname.size() <= r.prefix.size() + r.suffix.size()) return false;
  if (!refname.starts_with(r.prefix) || !refname.ends_with(r.suffix)) return false;
  *short_name = refname.substr(r.prefix.size(), refname.size() - r.prefix.size() - r.suffix.size());
  return true;
}

}  // namespace

std::vector<std::string> ExpandRefname(std::string_view name) {
  std::vector<std::string> out;
  out.reserve(kRules.size());
  for (const Rule& rule : kRules) out.push_back(Apply(rule, name));
  return out;
}

Status DwimRef(GitRefStore& store, std::string_view name, bool all_rules, DwimResult* out) {
  *out = DwimResult();
  for (const std::string& full : ExpandRefname(name)) {
    ResolvedRef r;
    REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store, full, kResolveReading, &r));
    if (r.resolved) {
      if (out->matches++ == 0) {
        out->refname = std::move(r.name);
        out->id = r.id;
      }
      if (!all_rules) break;
    } else if (r.through_symref && full != "HEAD") {
      out->warnings.push_back("ignoring dangling symref " + full);
    }
  }
  return Status::Ok();
}

bool WarnAmbiguousRefs(const GitRefStore& store) {
  return store.config().GetBool("core.warnambiguousrefs", true);
}

std::string AmbiguousRefnameWarning(std::string_view name) {
  return "refname '" + std::string(name) + "' is ambiguous.";
}

Status ShortenRefname(GitRefStore& store, std::string_view refname, bool strict, std::string* out) {
  // The most specific rule first; the first rule (the name itself) always matches.
  ResolvedRef found;
  for (size_t i = kRules.size() - 1; i > 0; --i) {
    std::string_view short_name;
    if (!Match(kRules[i], refname, &short_name)) continue;
    // Ambiguous when an earlier rule (any other rule, if strict) finds a ref.
    size_t to_check = strict ? kRules.size() : i;
    bool ambiguous = false;
    for (size_t j = 0; j < to_check && !ambiguous; ++j) {
      if (j == i) continue;
      // RefExists, with one result reused: for-each-ref shortens every ref it lists.
      REFTAB_RETURN_IF_ERROR(
          ResolveRefAsGit(store, Apply(kRules[j], short_name), kResolveReading, &found));
      ambiguous = found.resolved;
    }
    if (!ambiguous) {
      *out = std::string(short_name);
      return Status::Ok();
    }
  }
  *out = std::string(refname);
  return Status::Ok();
}

}  // namespace reftab

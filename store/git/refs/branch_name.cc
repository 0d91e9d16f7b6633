#include "store/git/refs/branch_name.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <vector>

#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/reflog.h"
#include "store/git/upstream.h"

namespace reftab {

size_t BranchMarkLength(std::string_view s, bool push) {
  static constexpr std::string_view kUpstream[] = {"@{upstream}", "@{u}"};
  static constexpr std::string_view kPush[] = {"@{push}"};
  auto starts = [s](std::string_view mark) {
    if (s.size() < mark.size()) return false;
    for (size_t i = 0; i < mark.size(); ++i) {
      char c = s[i];
      if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
      if (c != mark[i]) return false;
    }
    return true;
  };
  if (push) {
    for (std::string_view m : kPush) {
      if (starts(m)) return m.size();
    }
    return 0;
  }
  for (std::string_view m : kUpstream) {
    if (starts(m)) return m.size();
  }
  return 0;
}

Status NthPriorCheckout(GitRefStore& store, std::string_view name, int* used, std::string* out) {
  *used = -1;
  if (name.size() < 4 || !name.starts_with("@{-")) return Status::Ok();
  const size_t brace = name.find('}');
  if (brace == std::string_view::npos) return Status::Ok();
  // strtol over the digits (a sign is allowed, as strtol allows one), ending at the brace.
  const std::string digits(name.substr(3, brace - 3));
  char* end = nullptr;
  errno = 0;
  const long nth = std::strtol(digits.c_str(), &end, 10);
  if (end != digits.c_str() + digits.size() || nth <= 0) return Status::Ok();
  std::vector<LogRecord> entries;
  REFTAB_RETURN_IF_ERROR(ReadReflog(store, "HEAD", &entries));
  long remaining = nth;
  for (const LogRecord& e : entries) {
    std::string_view m = e.message;
    constexpr std::string_view kPrefix = "checkout: moving from ";
    if (!m.starts_with(kPrefix)) continue;
    m.remove_prefix(kPrefix.size());
    const size_t to = m.find(" to ");
    if (to == std::string_view::npos) continue;
    if (--remaining == 0) {
      *out = std::string(m.substr(0, to));
      *used = int(brace + 1);
      return Status::Ok();
    }
  }
  *used = 0;
  return Status::Ok();
}

namespace {

// git's interpret_empty_at: "@" at the start of `name`, alone or before another "@{".
int EmptyAt(std::string_view name, size_t at) {
  if (at != 0 || (name.size() > 1 && name[1] == '{')) return -1;
  const size_t next = name.find('@', 1);
  if (next != std::string_view::npos && !(next + 1 < name.size() && name[next + 1] == '{')) {
    return -1;
  }
  return (next == std::string_view::npos ? name.size() : next) == 1 ? 1 : -1;
}

// The branch `name[0, at)` names for a mark (the current one for an empty name or "HEAD");
// nullopt when HEAD does not point to a branch.
Status MarkBranch(GitRefStore& store, std::string_view before, std::optional<std::string>* out) {
  *out = std::nullopt;
  if (!before.empty() && before != "HEAD") {
    *out = std::string(before);
    return Status::Ok();
  }
  ResolvedRef head;
  REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store, "HEAD", 0, &head));
  if (head.through_symref && head.name.starts_with("refs/heads/")) *out = head.name.substr(11);
  return Status::Ok();
}

// git's interpret_branch_mark for an upstream (`push` false) or push mark at `at`.
Status BranchMark(GitRefStore& store, std::string_view name, size_t at, bool push, bool nonfatal,
                  BranchNameResult* out) {
  out->used = -1;
  const size_t mark = BranchMarkLength(name.substr(at), push);
  if (mark == 0 || name.substr(0, at).find(':') != std::string_view::npos) return Status::Ok();
  std::optional<std::string> branch;
  REFTAB_RETURN_IF_ERROR(MarkBranch(store, name.substr(0, at), &branch));
  std::optional<std::string> value;
  std::string why = "HEAD does not point to a branch";
  if (branch) {
    GitUpstreams upstreams(store.config(), [&store](const std::string& ref, bool* exists) {
      return RefExists(store, ref, exists);
    });
    REFTAB_RETURN_IF_ERROR(push ? upstreams.Push(*branch, &value, &why)
                                : upstreams.Upstream(*branch, &value, &why));
  }
  if (!value) {
    if (!nonfatal) out->fatal = why;
    return Status::Ok();
  }
  REFTAB_RETURN_IF_ERROR(ShortenRefname(store, *value, /*strict=*/false, &out->name));
  out->used = int(at + mark);
  return Status::Ok();
}

}  // namespace

Status InterpretBranchName(GitRefStore& store, std::string_view name, bool nonfatal,
                           BranchNameResult* out) {
  *out = BranchNameResult();
  int used = -1;
  std::string branch;
  REFTAB_RETURN_IF_ERROR(NthPriorCheckout(store, name, &used, &branch));
  if (used == 0) return out->used = 0, Status::Ok();
  if (used > 0) {
    out->used = used;
    out->name = std::move(branch);
    if (size_t(used) == name.size()) return Status::Ok();
    // git reads what follows again, after the branch's name ("@{-1}@{u}"), where a missing
    // upstream is always fatal.
    BranchNameResult rest;
    REFTAB_RETURN_IF_ERROR(
        InterpretBranchName(store, out->name + std::string(name.substr(used)), false, &rest));
    if (!rest.fatal.empty()) return *out = std::move(rest), out->used = -1, Status::Ok();
    if (rest.used < 0) return Status::Ok();
    out->used = rest.used - int(out->name.size()) + used;
    out->name = std::move(rest.name);
    return Status::Ok();
  }
  for (size_t at = name.find('@'); at != std::string_view::npos; at = name.find('@', at + 1)) {
    if (EmptyAt(name, at) > 0) {
      // "@" is HEAD; what follows is read again after it ("@@{u}"), fatally as above.
      out->used = 1;
      out->name = "HEAD";
      if (name.size() == 1) return Status::Ok();
      BranchNameResult rest;
      REFTAB_RETURN_IF_ERROR(
          InterpretBranchName(store, "HEAD" + std::string(name.substr(1)), false, &rest));
      if (!rest.fatal.empty()) return *out = std::move(rest), out->used = -1, Status::Ok();
      if (rest.used < 0) return Status::Ok();
      out->used = rest.used - 4 + 1;
      out->name = std::move(rest.name);
      return Status::Ok();
    }
    for (bool push : {false, true}) {
      REFTAB_RETURN_IF_ERROR(BranchMark(store, name, at, push, nonfatal, out));
      if (!out->fatal.empty() || out->used > 0) return Status::Ok();
    }
  }
  return Status::Ok();
}

Status SubstituteBranchName(GitRefStore& store, std::string_view name, bool nonfatal,
                            std::string* out, std::string* fatal) {
  BranchNameResult r;
  REFTAB_RETURN_IF_ERROR(InterpretBranchName(store, name, nonfatal, &r));
  *fatal = r.fatal;
  *out = r.used >= 0 && size_t(r.used) == name.size() ? r.name : std::string(name);
  return Status::Ok();
}

Status DwimRefShorthand(GitRefStore& store, std::string_view name, bool nonfatal, DwimResult* out,
                        std::string* fatal) {
  std::string full;
  REFTAB_RETURN_IF_ERROR(SubstituteBranchName(store, name, nonfatal, &full, fatal));
  if (!fatal->empty()) return *out = DwimResult(), Status::Ok();
  return DwimRef(store, full, WarnAmbiguousRefs(store), out);
}

}  // namespace reftab

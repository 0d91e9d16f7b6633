#include "store/git/verify.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>

#include "format/bytes.h"
#include "store/git/refs/refname.h"
#include "store/merge_cursor.h"
#include "store/verify.h"

namespace reftab {
namespace {

constexpr int kMaxSymrefReads = 5;  // git's SYMREF_MAXDEPTH: reads, the symref itself included

// git's test of a table's name: three hexadecimal numbers (as strtoull reads them) joined by
// '-', then ".ref" or ".log".
bool GitWouldNameTable(const std::string& name) {
  const char* p = name.c_str();
  for (int i = 0; i < 3; ++i) {
    char* end = nullptr;
    errno = 0;
    (void)std::strtoull(p, &end, 16);
    if (errno) return false;
    p = end;
    if (i < 2) {
      if (*p != '-') return false;
      ++p;
    }
  }
  return std::string_view(p) == ".ref" || std::string_view(p) == ".log";
}

// One stack as a worktree sees the refs: its own, and for a linked worktree the shared refs
// from the main stack.
struct View {
  std::string prefix;  // "" or "worktrees/<id>/"
  std::shared_ptr<const Snapshot> own;
  std::shared_ptr<const Snapshot> main;  // nullptr for the main worktree
  std::vector<std::string> table_names;
};

class Checker {
 public:
  explicit Checker(GitVerifyReport* report) : report_(report) {}

  // One pass in name order, holding nothing per ref: the findings of a ref are made while
  // the cursor is on it, so the memory stays that of the cursor whatever the number of refs.
  Status Check(const View& v) {
    Begin(v);
    RefMergeCursor it(v.own->readers());
    it.set_suppress_deletions(true);
    REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
    RefRecord ref;
    while (it.Next(&ref)) REFTAB_RETURN_IF_ERROR(OnRef(v, ref));
    return it.status();
  }

  // Check in steps, for refs that come from elsewhere (a structural check's scan): the
  // table names' findings, then OnRef for every live ref in name order.
  void Begin(const View& v) {
    for (const std::string& t : v.table_names) {
      if (!GitWouldNameTable(t)) {
        Add(FindingSeverity::kWarning, t, "badReftableTableName", "invalid reftable table name");
      }
    }
    depth_ = 0;
  }
  Status OnRef(const View& v, const RefRecord& ref) {
    path_.clear();  // made on the first finding only (Path())
    path_prefix_ = &v.prefix;
    CheckName(ref);
    if (ref.value_type == RefValueType::kSymref) {
      REFTAB_RETURN_IF_ERROR(CheckSymref(v, ref));
    } else {
      CheckObjectId(v, ref);
    }
    CheckDirectoryConflict(ref);
    if (v.main && !IsPerWorktreeRef(ref.refname)) {
      Add(FindingSeverity::kError, Path(ref), "refInWrongStack",
          "not a per-worktree ref: git reads '" + ref.refname +
              "' from the main stack and never sees this one");
    }
    return Status::Ok();
  }

  void Add(FindingSeverity severity, std::string path, std::string id, std::string message) {
    report_->findings.push_back({severity, std::move(path), std::move(id), std::move(message)});
  }

 private:
  // The finding's path: the ref's name (its bytes escaped where they would not print as they
  // are), under "worktrees/<id>/" in a linked worktree.
  const std::string& Path(const RefRecord& ref) {
    if (path_.empty()) path_ = *path_prefix_ + EscapedRefname(ref.refname);
    return path_;
  }

  // The name as stored, whatever its bytes: git reads it up to a NUL byte, and has rules for
  // the rest; bytes that are not UTF-8 git takes, but they are worth a warning.
  void CheckName(const RefRecord& ref) {
    const std::string& name = ref.refname;
    // The common case first: plain bytes in non-empty components under refs/ pass every
    // rule below (no NUL, safe, well formed, ASCII).
    if (name.starts_with("refs/") && PlainlyValidRefname(name)) return;
    const std::string_view read = StoredRefname(name);
    if (read.size() != name.size()) {
      Add(FindingSeverity::kError, Path(ref), "badRefName",
          "refname holds a NUL byte: git reads it as '" + EscapedRefname(read) + "'");
    } else if (!IsSafeRefname(name)) {
      Add(FindingSeverity::kError, Path(ref), "badRefName", "refname is dangerous");
    } else if (!IsRootRef(name)) {
      RefnameProblem problem = CheckRefnameFormat(name);
      if (problem != RefnameProblem::kNone) {
        Add(FindingSeverity::kError, Path(ref), "badRefName",
            "invalid refname format: " + std::string(RefnameProblemText(problem)));
      } else if (!IsUtf8(name)) {
        Add(FindingSeverity::kWarning, Path(ref), "badRefNameEncoding", "refname is not UTF-8");
      }
    }
  }

  void CheckObjectId(const View& v, const RefRecord& ref) {
    const size_t hs = v.own->hash_size();
    // An id's first bytes are almost never all zero: the loop ends there.
    bool zero = true;
    for (size_t i = 0; i < hs && zero; ++i) zero = ref.value[i] == 0;
    if (zero) {
      Add(FindingSeverity::kError, Path(ref), "badRefOid",
          "points to invalid object ID '" + HexId(ref.value, hs) + "'");
    }
  }

  // git's symref checks in git's order (each stops the rest), then whether it resolves.
  Status CheckSymref(const View& v, const RefRecord& ref) {
    const std::string& target = ref.target;
    if (ref.refname == "HEAD" && !target.starts_with("refs/heads/")) {
      Add(FindingSeverity::kError, Path(ref), "badHeadTarget",
          "HEAD points to non-branch '" + target + "'");
      return Status::Ok();
    }
    if (!IsRootRef(target)) {
      if (!IsValidRefname(target)) {
        Add(FindingSeverity::kError, Path(ref), "badReferentName",
            "points to invalid refname '" + target + "'");
        return Status::Ok();
      }
      if (!target.starts_with("refs/") && !target.starts_with("worktrees/")) {
        Add(FindingSeverity::kInfo, Path(ref), "symrefTargetIsNotARef",
            "points to non-ref target '" + target + "'");
        return Status::Ok();
      }
    }
    return CheckResolves(v, ref);
  }

  Status Lookup(const View& v, const std::string& name, RefRecord* out, bool* found) const {
    const Snapshot& snap = v.main && !IsPerWorktreeRef(name) ? *v.main : *v.own;
    return snap.ReadRef(name, out, found);
  }

  // Follows the chain as git's resolver does: at most kMaxSymrefReads reads.
  Status CheckResolves(const View& v, const RefRecord& ref) {
    RefRecord cur = ref;
    for (int reads = 1; cur.value_type == RefValueType::kSymref; ++reads) {
      if (reads == kMaxSymrefReads) {
        Add(FindingSeverity::kError, Path(ref), "symrefTooDeep",
            "cannot be resolved within " + std::to_string(kMaxSymrefReads) +
                " symbolic refs (git's limit), or is a loop");
        return Status::Ok();
      }
      RefRecord next;
      bool found = false;
      REFTAB_RETURN_IF_ERROR(Lookup(v, cur.target, &next, &found));
      if (!found) {
        if (ref.refname != "HEAD") {
          Add(FindingSeverity::kWarning, Path(ref), "danglingSymref",
              "points to missing ref '" + cur.target + "'");
        }
        return Status::Ok();
      }
      cur = std::move(next);
    }
    return Status::Ok();
  }

  // A live ref below another live ref: in name order "a" comes before every "a/...", but
  // names such as "a-b" may come between. ancestors_ holds the earlier names that are string
  // prefixes of one another, shortest first: a name that is no prefix of the current one can
  // be no prefix of a later one either (everything between a prefix and a name it starts
  // shares that prefix), so it is dropped for good. What remains are the current name's
  // string prefixes among the refs seen; the shortest that ends at a '/' of the name is the
  // conflict git's transactions would name.
  void CheckDirectoryConflict(const RefRecord& ref) {
    const std::string& name = ref.refname;
    while (depth_ > 0 && !name.starts_with(ancestors_[depth_ - 1])) --depth_;
    for (size_t i = 0; i < depth_; ++i) {
      const std::string& parent = ancestors_[i];
      if (parent.size() < name.size() && name[parent.size()] == '/') {
        Add(FindingSeverity::kError, Path(ref), "refDirectoryConflict",
            "'" + parent + "' exists; cannot create '" + name + "'");
        break;
      }
    }
    // The strings past depth_ keep their buffers for the names to come.
    if (depth_ == ancestors_.size()) ancestors_.emplace_back();
    AssignName(&ancestors_[depth_++], name);
  }

  GitVerifyReport* report_;
  std::vector<std::string> ancestors_;  // CheckDirectoryConflict's chain of name prefixes:
  size_t depth_ = 0;                    // its first depth_ strings
  std::string path_;                    // Path() of the current ref, once made
  const std::string* path_prefix_ = nullptr;
};

// Linked worktrees with a reftable stack, by id.
Result<std::vector<std::string>> LinkedWorktrees(FileSystem* fs, const std::string& common_dir) {
  auto entries = fs->ListDir(common_dir + "/worktrees");
  if (!entries.ok()) {
    if (entries.status().code() == Code::kNotFound) return std::vector<std::string>();
    return entries.status();
  }
  std::vector<std::string> ids;
  for (const std::string& id : *entries) {
    if (fs->Stat(common_dir + "/worktrees/" + id + "/reftable/tables.list").ok()) {
      ids.push_back(id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

size_t GitVerifyReport::errors() const {
  return size_t(std::count_if(findings.begin(), findings.end(),
                              [&](const GitVerifyFinding& f) { return IsError(f); }));
}

std::string GitVerifyReport::Line(const GitVerifyFinding& f) const {
  std::string line = IsError(f) ? "error: " : "warning: ";
  if (f.id.empty()) return line + f.message;
  return line + f.path + ": " + f.id + ": " + f.message;
}

namespace {

// The main stack's refs, as VerifyStack's scan gives them, into the checker.
class MainRefs final : public VerifyRefSink {
 public:
  MainRefs(Checker* checker, const View* view) : checker_(checker), view_(view) {}
  Status OnRef(const RefRecord& ref) override { return checker_->OnRef(*view_, ref); }

 private:
  Checker* checker_;
  const View* view_;
};

// VerifyGitRepo, and before it VerifyStack on the repository's stacks when `tables` is
// given, the main stack's refs read once for both when VerifyStack can give them.
Status Verify(GitRepo& repo, const GitVerifyOptions& options, GitVerifyReport* report,
              VerifyReport* tables, Progress* progress) {
  report->strict = options.strict;
  Checker checker(report);
  Stack& main = repo.main_stack();
  View main_view{"", main.snapshot(), nullptr, main.names()};
  bool checked = false;
  if (tables) {
    const size_t before = report->findings.size();
    checker.Begin(main_view);
    MainRefs sink(&checker, &main_view);
    for (Stack* stack : repo.stacks()) {
      bool fed = false;
      REFTAB_RETURN_IF_ERROR(
          VerifyStack(*stack, tables, progress, stack == &main ? &sink : nullptr, &fed));
      checked = checked || fed;
    }
    if (!checked) report->findings.resize(before);  // Check below makes them again
  }
  if (!checked) REFTAB_RETURN_IF_ERROR(checker.Check(main_view));
  StackOptions opts = main.options();
  FileSystem* fs = opts.fs ? opts.fs : PosixFileSystem();
  REFTAB_ASSIGN_OR_RETURN(std::vector<std::string> ids, LinkedWorktrees(fs, repo.common_dir()));
  opts.missing_dir_is_empty = true;  // as git opens another worktree's stack
  for (const std::string& id : ids) {
    auto stack = Stack::Open(repo.common_dir() + "/worktrees/" + id + "/reftable", opts);
    if (!stack.ok()) {
      checker.Add(FindingSeverity::kError, "", "",
                  "reftable stack for worktree '" + id + "' is broken");
      continue;
    }
    View v{"worktrees/" + id + "/", (*stack)->snapshot(), main_view.own, (*stack)->names()};
    REFTAB_RETURN_IF_ERROR(checker.Check(v));
  }
  return Status::Ok();
}

}  // namespace

Status VerifyGitRepo(GitRepo& repo, const GitVerifyOptions& options, GitVerifyReport* report) {
  return Verify(repo, options, report, nullptr, nullptr);
}

Status VerifyGitRepoAndTables(GitRepo& repo, const GitVerifyOptions& options, VerifyReport* tables,
                              GitVerifyReport* report, Progress* progress) {
  return Verify(repo, options, report, tables, progress);
}

bool IsGitRefsVerifyCheck(std::string_view id) {
  return id == "badReftableTableName" || id == "badRefOid" || id == "badHeadTarget" ||
         id == "badReferentName" || id == "symrefTargetIsNotARef";
}

}  // namespace reftab

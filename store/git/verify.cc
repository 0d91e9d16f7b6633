#include "store/git/verify.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <set>

#include "store/git/refs/refname.h"
#include "store/merge_cursor.h"

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

  Status Check(const View& v) {
    for (const std::string& t : v.table_names) {
      if (!GitWouldNameTable(t)) {
        Add(FindingSeverity::kWarning, t, "badReftableTableName", "invalid reftable table name");
      }
    }
    std::vector<RefRecord> refs;
    RefMergeCursor it(v.own->readers());
    it.set_suppress_deletions(true);
    REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
    RefRecord r;
    while (it.Next(&r)) refs.push_back(r);
    REFTAB_RETURN_IF_ERROR(it.status());
    std::set<std::string, std::less<>> live;
    for (const RefRecord& ref : refs) live.insert(ref.refname);
    for (const RefRecord& ref : refs) {
      const std::string path = v.prefix + EscapedRefname(ref.refname);
      CheckName(ref.refname, path);
      if (ref.value_type == RefValueType::kSymref) {
        REFTAB_RETURN_IF_ERROR(CheckSymref(v, ref, path));
      } else {
        CheckObjectId(v, ref, path);
      }
      CheckDirectoryConflict(live, ref.refname, path);
      if (v.main && !IsPerWorktreeRef(ref.refname)) {
        Add(FindingSeverity::kError, path, "refInWrongStack",
            "not a per-worktree ref: git reads '" + ref.refname +
                "' from the main stack and never sees this one");
      }
    }
    return Status::Ok();
  }

  void Add(FindingSeverity severity, std::string path, std::string id, std::string message) {
    report_->findings.push_back({severity, std::move(path), std::move(id), std::move(message)});
  }

 private:
  // The name as stored, whatever its bytes (`path` shows them escaped): git reads it up to a
  // NUL byte, and has rules for the rest; bytes that are not UTF-8 git takes, but they are
  // worth a warning.
  void CheckName(const std::string& name, const std::string& path) {
    const std::string_view read = StoredRefname(name);
    if (read.size() != name.size()) {
      Add(FindingSeverity::kError, path, "badRefName",
          "refname holds a NUL byte: git reads it as '" + EscapedRefname(read) + "'");
    } else if (!IsSafeRefname(name)) {
      Add(FindingSeverity::kError, path, "badRefName", "refname is dangerous");
    } else if (!IsRootRef(name)) {
      RefnameProblem problem = CheckRefnameFormat(name);
      if (problem != RefnameProblem::kNone) {
        Add(FindingSeverity::kError, path, "badRefName",
            "invalid refname format: " + std::string(RefnameProblemText(problem)));
      } else if (!IsUtf8(name)) {
        Add(FindingSeverity::kWarning, path, "badRefNameEncoding", "refname is not UTF-8");
      }
    }
  }

  void CheckObjectId(const View& v, const RefRecord& ref, const std::string& path) {
    const size_t hs = v.own->hash_size();
    bool zero = true;
    for (size_t i = 0; i < hs; ++i) zero = zero && ref.value[i] == 0;
    if (zero) {
      Add(FindingSeverity::kError, path, "badRefOid",
          "points to invalid object ID '" + HexId(ref.value, hs) + "'");
    }
  }

  // git's symref checks in git's order (each stops the rest), then whether it resolves.
  Status CheckSymref(const View& v, const RefRecord& ref, const std::string& path) {
    const std::string& target = ref.target;
    if (ref.refname == "HEAD" && !target.starts_with("refs/heads/")) {
      Add(FindingSeverity::kError, path, "badHeadTarget",
          "HEAD points to non-branch '" + target + "'");
      return Status::Ok();
    }
    if (!IsRootRef(target)) {
      if (!IsValidRefname(target)) {
        Add(FindingSeverity::kError, path, "badReferentName",
            "points to invalid refname '" + target + "'");
        return Status::Ok();
      }
      if (!target.starts_with("refs/") && !target.starts_with("worktrees/")) {
        Add(FindingSeverity::kInfo, path, "symrefTargetIsNotARef",
            "points to non-ref target '" + target + "'");
        return Status::Ok();
      }
    }
    return CheckResolves(v, ref, path);
  }

  Status Lookup(const View& v, const std::string& name, RefRecord* out, bool* found) const {
    const Snapshot& snap = v.main && !IsPerWorktreeRef(name) ? *v.main : *v.own;
    return snap.ReadRef(name, out, found);
  }

  // Follows the chain as git's resolver does: at most kMaxSymrefReads reads.
  Status CheckResolves(const View& v, const RefRecord& ref, const std::string& path) {
    RefRecord cur = ref;
    for (int reads = 1; cur.value_type == RefValueType::kSymref; ++reads) {
      if (reads == kMaxSymrefReads) {
        Add(FindingSeverity::kError, path, "symrefTooDeep",
            "cannot be resolved within " + std::to_string(kMaxSymrefReads) +
                " symbolic refs (git's limit), or is a loop");
        return Status::Ok();
      }
      RefRecord next;
      bool found = false;
      REFTAB_RETURN_IF_ERROR(Lookup(v, cur.target, &next, &found));
      if (!found) {
        if (ref.refname != "HEAD") {
          Add(FindingSeverity::kWarning, path, "danglingSymref",
              "points to missing ref '" + cur.target + "'");
        }
        return Status::Ok();
      }
      cur = std::move(next);
    }
    return Status::Ok();
  }

  void CheckDirectoryConflict(const std::set<std::string, std::less<>>& live,
                              const std::string& name, const std::string& path) {
    for (size_t slash = name.find('/'); slash != std::string::npos;
         slash = name.find('/', slash + 1)) {
      std::string_view parent(name.data(), slash);
      if (live.count(parent)) {
        Add(FindingSeverity::kError, path, "refDirectoryConflict",
            "'" + std::string(parent) + "' exists; cannot create '" + name + "'");
        return;
      }
    }
  }

  GitVerifyReport* report_;
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

Status VerifyGitRepo(GitRepo& repo, const GitVerifyOptions& options, GitVerifyReport* report) {
  report->strict = options.strict;
  Checker checker(report);
  Stack& main = repo.main_stack();
  View main_view{"", main.snapshot(), nullptr, main.names()};
  REFTAB_RETURN_IF_ERROR(checker.Check(main_view));
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

bool IsGitRefsVerifyCheck(std::string_view id) {
  return id == "badReftableTableName" || id == "badRefOid" || id == "badHeadTarget" ||
         id == "badReferentName" || id == "symrefTargetIsNotARef";
}

}  // namespace reftab

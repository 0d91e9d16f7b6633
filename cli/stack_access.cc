#include "cli/stack_access.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>

#include "cli/git_format.h"
#include "cli/jsonl.h"

namespace reftab::cli {
namespace {

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string Lower(std::string s) {
  for (char& c : s) c = char(std::tolower(uint8_t(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Reads extensions.objectFormat from a git config file (sha1 when absent).
Result<HashId> ObjectFormat(const std::string& git_dir) {
  auto text = PosixFileSystem()->ReadFile(git_dir + "/config");
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) return HashId::kSha1;
    return text.status();
  }
  std::string section;
  size_t pos = 0;
  const std::string& t = *text;
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    if (nl == std::string::npos) nl = t.size();
    std::string line = Trim(t.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = Lower(Trim(line.substr(1, line.find(']') - 1)));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos || section != "extensions") continue;
    if (Lower(Trim(line.substr(0, eq))) != "objectformat") continue;
    std::string v = Lower(Trim(line.substr(eq + 1)));
    if (v == "sha256") return HashId::kSha256;
    if (v == "sha1") return HashId::kSha1;
    return Status::InvalidArgument(git_dir + "/config: unknown extensions.objectFormat '" + v + "'");
  }
  return HashId::kSha1;
}

// Finds the git directory as git does: `.git` (a directory, or a file "gitdir: X") in the
// current directory or any parent, or the current directory itself if it is bare.
Result<std::string> DiscoverGitDir() {
  char buf[4096];
  if (!getcwd(buf, sizeof buf)) return Status::IoError("cannot get the current directory");
  std::string dir = buf;
  for (;;) {
    std::string dotgit = dir + "/.git";
    struct stat st;
    if (stat(dotgit.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return dotgit;
      auto text = PosixFileSystem()->ReadFile(dotgit);
      if (text.ok() && text->rfind("gitdir: ", 0) == 0) {
        std::string target = Trim(text->substr(8));
        while (!target.empty() && target.back() == '\n') target.pop_back();
        if (!target.empty() && target[0] != '/') target = dir + "/" + target;
        return target;
      }
    }
    if (IsDir(dir + "/reftable") && stat((dir + "/HEAD").c_str(), &st) == 0) return dir;
    if (dir == "/" || dir.empty()) break;
    size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return Status::NotFound("not a git repository (or any of the parent directories); "
                          "use --git-dir or --stack");
}

}  // namespace

Result<std::unique_ptr<TableReader>> OpenTableFile(const std::string& path) {
  auto file = PosixFileSystem()->OpenRead(path);
  if (!file.ok()) return file.status();
  return TableReader::Open(std::move(*file));
}

Result<StoreLocation> LocateStore(const GlobalOptions& g) {
  StoreLocation loc;
  if (!g.stack_dir.empty()) {
    if (!IsDir(g.stack_dir)) return Status::NotFound(g.stack_dir + ": no such directory");
    loc.reftable_dir = g.stack_dir;
    return loc;
  }
  std::string git_dir = g.git_dir;
  if (git_dir.empty()) {
    REFTAB_ASSIGN_OR_RETURN(git_dir, DiscoverGitDir());
  }
  // A linked worktree's git dir has a `commondir` file; its own stack holds per-worktree refs.
  loc.reftable_dir = git_dir + "/reftable";
  if (!IsDir(loc.reftable_dir)) {
    return Status::NotFound(git_dir + ": no reftable directory (not a reftable repository?)");
  }
  REFTAB_ASSIGN_OR_RETURN(HashId hash, ObjectFormat(git_dir));
  loc.hash_id = hash;
  return loc;
}

Result<std::unique_ptr<Stack>> OpenSelectedStack(const GlobalOptions& g) {
  REFTAB_ASSIGN_OR_RETURN(StoreLocation loc, LocateStore(g));
  StackOptions opts;
  opts.hash_id = loc.hash_id;
  return Stack::Open(loc.reftable_dir, opts);
}

Status DumpStack(const Stack& stack, bool git_format, Output* out) {
  auto snap = stack.snapshot();
  size_t hs = snap->hash_size();
  MergedRefIterator refs = snap->NewRefIterator();
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord ref;
  while (refs.Next(&ref)) {
    if (git_format) {
      AppendRefGit(ref, hs, &out->buf());
    } else {
      AppendRefJson(ref, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  MergedLogIterator logs = snap->NewLogIterator();
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord log;
  while (logs.Next(&log)) {
    if (git_format) {
      AppendLogGit(log, hs, &out->buf());
    } else {
      AppendLogJson(log, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  return logs.status();
}

}  // namespace reftab::cli

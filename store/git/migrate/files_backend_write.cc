// See git_files_backend_write.h.
#include "store/git/migrate/files_backend_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_map>

#include "store/git/config/config.h"
#include "store/git/refs/refname.h"

namespace reftab {
namespace {

constexpr std::string_view kPackedRefsHeader = "# pack-refs with: peeled fully-peeled sorted \n";
constexpr size_t kFlushAt = size_t(1) << 20;

// A name that may become a path below the new directory.
bool IsPathSafeRefname(std::string_view name) {
  return IsValidRefname(name, kRefnameAllowOneLevel) &&
         (name.substr(0, 5) == "refs/" || IsRootRef(name));
}

// git writes each reflog entry under a lock on the ref itself ("<name>.lock"), creating its
// directories, and then removes the empty ones again, down to "refs/<first>": that one
// stays behind ("refs/remotes" for "refs/remotes/origin/main"). "" when nothing stays.
std::string LockLeftDir(std::string_view refname) {
  if (refname.substr(0, 5) != "refs/") return "";
  size_t second = refname.find('/', 5);
  if (second == std::string_view::npos) return "";
  return std::string(refname.substr(0, second));
}

std::string FoldCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return out;
}

// The paths the layout creates, to find two names that would share one.
class PathClaims {
 public:
  explicit PathClaims(bool fold) : fold_(fold) {}
  // Claims `path` (a file) and its directories for `owner`; a problem when another owner has
  // one of them (as a file, or under another spelling).
  std::optional<std::string> Claim(const std::string& path, const std::string& owner,
                                   bool is_dir = false) {
    for (size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      if (auto p = ClaimOne(path.substr(0, slash), true, owner)) return p;
    }
    return ClaimOne(path, is_dir, owner);
  }

 private:
  struct Claimed {
    std::string path;
    std::string owner;
    bool is_dir;
  };
  std::optional<std::string> ClaimOne(const std::string& path, bool is_dir,
                                      const std::string& owner) {
    auto [it, fresh] =
        claims_.try_emplace(fold_ ? FoldCase(path) : path, Claimed{path, owner, is_dir});
    if (fresh || (is_dir && it->second.is_dir && it->second.path == path)) return std::nullopt;
    if (it->second.path != path) {
      return "its path '" + path + "' is '" + it->second.path + "' (of '" + it->second.owner +
             "') on this case-insensitive file system";
    }
    return "its path '" + path + "' is also needed by '" + it->second.owner + "'";
  }
  bool fold_;
  std::unordered_map<std::string, Claimed> claims_;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(-1); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  void Reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  int get() const { return fd_; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

Status Errno(const std::string& what) {
  return Status::IoError(what + ": " + std::strerror(errno));
}

// Creates files below a root directory, never following a symbolic link: each directory is
// opened (or made) one component at a time relative to its parent with O_NOFOLLOW. The last
// directory opened is kept, since files come grouped by directory.
class TreeWriter {
 public:
  TreeWriter(const std::string& root, const FilesWriteOptions& options)
      : root_(root), options_(options) {}
  Status Init() {
    root_fd_.Reset(open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    // Where the umask already gives the modes asked for, creating with them is enough: no
    // chmod per file (a reflog each is a million files).
    const uint32_t umask = CurrentUmask();
    chmod_files_ = (options_.file_mode & ~umask) != options_.file_mode;
    chmod_dirs_ = (options_.dir_mode & ~umask) != options_.dir_mode;
    return root_fd_.get() < 0 ? Errno(root_) : Status::Ok();
  }
  Status MakeDir(std::string_view rel) {
    if (made_.contains(rel)) return Status::Ok();
    REFTAB_ASSIGN_OR_RETURN(int fd, OpenDir(rel));
    (void)fd;
    made_.emplace(rel);
    return Status::Ok();
  }
  Status WriteFile(std::string_view rel, std::string_view contents, bool sync = false) {
    size_t slash = rel.rfind('/');
    std::string_view dir = slash == std::string_view::npos ? "" : rel.substr(0, slash);
    std::string base(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
    REFTAB_ASSIGN_OR_RETURN(int dfd, OpenDir(dir));
    std::string path = root_ + "/" + std::string(rel);
    Fd fd(openat(dfd, base.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 options_.file_mode));
    if (fd.get() < 0) return Errno(path);
    if (chmod_files_ && fchmod(fd.get(), options_.file_mode) != 0) return Errno(path);
    while (!contents.empty()) {
      ssize_t n = write(fd.get(), contents.data(), contents.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Errno(path);
      contents.remove_prefix(size_t(n));
    }
    if (sync && fsync(fd.get()) != 0) return Errno(path);
    if (close(fd.Release()) != 0) return Errno(path);
    return Status::Ok();
  }

 private:
  Result<int> OpenDir(std::string_view rel) {
    if (rel.empty()) return root_fd_.get();
    if (last_fd_.get() >= 0 && rel == last_dir_) return last_fd_.get();
    Fd cur(dup(root_fd_.get()));
    std::string done = root_;
    while (!rel.empty()) {
      size_t slash = rel.find('/');
      std::string comp(rel.substr(0, slash));
      rel.remove_prefix(slash == std::string_view::npos ? rel.size() : slash + 1);
      done += "/" + comp;
      if (mkdirat(cur.get(), comp.c_str(), options_.dir_mode) == 0) {
        if (chmod_dirs_ && fchmodat(cur.get(), comp.c_str(), options_.dir_mode, 0) != 0)
          return Errno(done);
      } else if (errno != EEXIST) {
        return Errno(done);
      }
      int next = openat(cur.get(), comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0) return Errno(done);
      cur.Reset(next);
    }
    last_dir_ = done.substr(root_.size() + 1);
    last_fd_.Reset(dup(cur.get()));
    return last_fd_.get();
  }

  std::string root_;
  FilesWriteOptions options_;
  Fd root_fd_;
  std::string last_dir_;
  Fd last_fd_;
  bool chmod_files_ = true;
  bool chmod_dirs_ = true;
  // Directories MakeDir made (or found): asked again for each reflog under them.
  std::set<std::string, std::less<>> made_;
};

void AppendHex(const ObjectId& id, size_t hash_size, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const size_t at = out->size();
  out->resize(at + 2 * hash_size);
  char* p = out->data() + at;
  for (size_t i = 0; i < hash_size; ++i) {
    p[2 * i] = kDigits[id[i] >> 4];
    p[2 * i + 1] = kDigits[id[i] & 15];
  }
}

}  // namespace

bool IsLooseInFiles(const RefRecord& ref) {
  return ref.value_type == RefValueType::kSymref || ref.refname.compare(0, 5, "refs/") != 0;
}

Result<std::unique_ptr<PackedRefsWriter>> PackedRefsWriter::Create(const std::string& path,
                                                                   uint32_t mode, size_t hash_size,
                                                                   bool sync) {
  const std::string temp = path + ".new";
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                          PosixFileSystem()->Create(temp, true));
  REFTAB_RETURN_IF_ERROR(PosixFileSystem()->Chmod(temp, mode));
  std::unique_ptr<PackedRefsWriter> w(new PackedRefsWriter(path, std::move(file), hash_size, sync));
  w->buf_.reserve(kFlushAt + 4096);
  w->buf_ += kPackedRefsHeader;
  return w;
}

Status PackedRefsWriter::Add(const RefRecord& ref) {
  AppendHex(ref.value, hash_size_, &buf_);
  buf_ += ' ';
  buf_ += ref.refname;
  buf_ += '\n';
  ++count_;
  return buf_.size() >= kFlushAt ? Flush() : Status::Ok();
}

Status PackedRefsWriter::Flush() {
  Status s = file_->Append(buf_);
  buf_.clear();
  return s;
}

Status PackedRefsWriter::Finish() {
  REFTAB_RETURN_IF_ERROR(Flush());
  if (sync_) REFTAB_RETURN_IF_ERROR(file_->Sync());
  REFTAB_RETURN_IF_ERROR(file_->Close());
  return PosixFileSystem()->Rename(path_ + ".new", path_);
}

Status AddRef(FilesLayout* layout, PackedRefsWriter* packed, const RefRecord& ref) {
  if (!IsLooseInFiles(ref)) return packed->Add(ref);
  layout->loose.push_back(ref);
  return Status::Ok();
}

std::vector<RefProblem> CheckFilesLayoutNames(const FilesLayout& layout, bool case_insensitive) {
  std::vector<RefProblem> problems;
  PathClaims claims(case_insensitive);
  claims.Claim("packed-refs", "packed-refs");
  claims.Claim("refs/heads", "refs/heads/", true);
  claims.Claim("refs/tags", "refs/tags/", true);
  for (const RefRecord& r : layout.loose) {
    if (!IsPathSafeRefname(r.refname)) {
      problems.push_back({r.refname, "not a valid ref name for the files backend"});
    } else if (auto p = claims.Claim(r.refname, r.refname)) {
      problems.push_back({r.refname, *p});
    }
  }
  for (const FilesReflog& log : layout.reflogs) {
    if (!IsPathSafeRefname(log.refname)) {
      problems.push_back({log.refname, "reflog: not a valid ref name for the files backend"});
    } else if (auto p = claims.Claim("logs/" + log.refname, log.refname)) {
      problems.push_back({log.refname, "reflog: " + *p});
    } else if (std::string dir = LockLeftDir(log.refname); !dir.empty()) {
      if (auto q = claims.Claim(dir, log.refname, true)) {
        problems.push_back({log.refname, "reflog: " + *q});
      }
    }
  }
  return problems;
}

Result<bool> ProbeCaseInsensitive(const std::string& dir) {
  const std::string lower = dir + "/.case-probe", upper = dir + "/.CASE-PROBE";
  int fd = open(lower.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Errno(lower);
  close(fd);
  struct stat st;
  bool folds = lstat(upper.c_str(), &st) == 0;
  unlink(lower.c_str());
  return folds;
}

std::string FormatFilesReflogLine(const LogRecord& log, size_t hash_size) {
  std::string line = HexId(log.old_id, hash_size);
  line += ' ';
  line += HexId(log.new_id, hash_size);
  line += ' ';
  line += log.name;
  line += " <";
  line += log.email;
  line += "> ";
  line += std::to_string(log.time);
  char tz[8];
  std::snprintf(tz, sizeof tz, " %+05d", int(log.tz_offset));
  line += tz;
  if (!log.message.empty()) {
    line += '\t';
    line += log.message;
  }
  line += '\n';
  return line;
}

Status WriteFilesLayout(const std::string& dir, const FilesLayout& layout,
                        const FilesWriteOptions& options) {
  TreeWriter tree(dir, options);
  REFTAB_RETURN_IF_ERROR(tree.Init());
  REFTAB_RETURN_IF_ERROR(tree.MakeDir("refs/heads"));
  REFTAB_RETURN_IF_ERROR(tree.MakeDir("refs/tags"));
  for (const RefRecord& r : layout.loose) {
    if (!IsPathSafeRefname(r.refname)) return Status::InvalidArgument("unsafe ref name");
    std::string contents = r.value_type == RefValueType::kSymref
                               ? "ref: " + r.target + "\n"
                               : HexId(r.value, options.hash_size) + "\n";
    REFTAB_RETURN_IF_ERROR(tree.WriteFile(r.refname, contents, options.sync_refs));
  }
  std::string text;
  for (const FilesReflog& log : layout.reflogs) {
    if (!IsPathSafeRefname(log.refname)) return Status::InvalidArgument("unsafe reflog name");
    if (std::string d = LockLeftDir(log.refname); !d.empty()) {
      REFTAB_RETURN_IF_ERROR(tree.MakeDir(d));
    }
    text.clear();
    for (const LogRecord& e : log.entries) text += FormatFilesReflogLine(e, options.hash_size);
    REFTAB_RETURN_IF_ERROR(tree.WriteFile("logs/" + log.refname, text));
  }
  return Status::Ok();
}

}  // namespace reftab

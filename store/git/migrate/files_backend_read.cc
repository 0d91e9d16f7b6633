// See git_files_backend_read.h. Directories are walked with lstat semantics: a symbolic
// link is never followed out of refs/ or logs/ (git reads a link under refs/ as a symref
// when it names "refs/..."; any other link is reported, not followed).
#include "store/git/migrate/files_backend_read.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "store/git/refs/refname.h"

namespace reftab {
namespace {

struct DirEntry {
  std::string name;
  bool is_dir = false;
  bool is_reg = false;
  bool is_link = false;
};

// The entries of `dir` in byte order ("." and ".." left out); an absent directory is empty.
Status ListSorted(const std::string& dir, std::vector<DirEntry>* out) {
  out->clear();
  DIR* d = opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    return Status::IoError(dir + ": " + std::strerror(errno));
  }
  while (struct dirent* de = readdir(d)) {
    std::string name = de->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // raced away
    out->push_back(
        {std::move(name), S_ISDIR(st.st_mode), S_ISREG(st.st_mode), S_ISLNK(st.st_mode)});
  }
  closedir(d);
  std::sort(out->begin(), out->end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return Status::Ok();
}

Status ReadWhole(const std::string& path, std::string* out) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    std::string what = path + ": " + std::strerror(errno);
    return errno == ENOENT ? Status::NotFound(what) : Status::IoError(what);
  }
  struct stat st;
  out->clear();
  if (fstat(fd, &st) == 0 && st.st_size > 0) out->reserve(size_t(st.st_size));
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out->append(buf, size_t(n));
  int err = errno;
  close(fd);
  if (n < 0) return Status::IoError(path + ": " + std::strerror(err));
  return Status::Ok();
}

bool IsSpace(char c) { return std::isspace(uint8_t(c)) != 0; }

// Hex digit values, 16 for anything else: a million packed refs are two million ids to parse,
// and a table lookup per digit is what keeps that cheap.
struct HexTable {
  uint8_t v[256];
  constexpr HexTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = 16;
    for (int i = 0; i < 10; ++i) v['0' + i] = uint8_t(i);
    for (int i = 0; i < 6; ++i) v['a' + i] = v['A' + i] = uint8_t(10 + i);
  }
};
constexpr HexTable kHex;

// Exactly 2 * hash_size hex digits (either case, as git reads them) into `out`.
bool ParseHex(std::string_view hex, size_t hash_size, ObjectId* out) {
  if (hex.size() != 2 * hash_size) return false;
  uint8_t bad = 0;
  *out = ObjectId{};
  for (size_t i = 0; i < hash_size; ++i) {
    uint8_t hi = kHex.v[uint8_t(hex[2 * i])], lo = kHex.v[uint8_t(hex[2 * i + 1])];
    bad |= (hi | lo) & 16;
    (*out)[i] = uint8_t((hi << 4) | (lo & 15));
  }
  return bad == 0;
}

// One loose ref (a file or link at `path` named `refname`) into `out`, or a problem.
void ReadLoose(const std::string& path, const std::string& refname, bool is_link, size_t hash_size,
               FilesRefs* out) {
  if (!IsValidRefname(refname, kRefnameAllowOneLevel)) {
    out->problems.push_back({refname, "not a valid ref name"});
    return;
  }
  RefRecord rec;
  rec.refname = refname;
  if (is_link) {
    char target[4096];
    ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
    std::string_view t(target, n > 0 ? size_t(n) : 0);
    if (t.substr(0, 5) != "refs/" || !IsValidRefname(t)) {
      out->problems.push_back({refname, "a symbolic link that does not name a ref"});
      return;
    }
    rec.value_type = RefValueType::kSymref;
    rec.target = std::string(t);
    out->refs.push_back(std::move(rec));
    return;
  }
  std::string contents;
  if (!ReadWhole(path, &contents).ok()) {
    out->problems.push_back({refname, "cannot read " + path});
    return;
  }
  if (ParseLooseRef(contents, hash_size, &rec) == LooseKind::kBroken) {
    out->problems.push_back({refname, "broken ref: cannot parse its contents"});
    return;
  }
  out->refs.push_back(std::move(rec));
}

// Loose refs under `dir` (the path of `prefix`, "refs/..."), recursively.
Status WalkLoose(const std::string& dir, const std::string& prefix, size_t hash_size,
                 FilesRefs* out) {
  std::vector<DirEntry> entries;
  REFTAB_RETURN_IF_ERROR(ListSorted(dir, &entries));
  for (const DirEntry& e : entries) {
    // git's loose-ref scan skips dot files and lock files.
    if (e.name[0] == '.' || e.name.ends_with(".lock")) continue;
    std::string path = dir + "/" + e.name;
    if (e.is_dir) {
      REFTAB_RETURN_IF_ERROR(WalkLoose(path, prefix + e.name + "/", hash_size, out));
    } else if (e.is_reg || e.is_link) {
      ReadLoose(path, prefix + e.name, e.is_link, hash_size, out);
    }
  }
  return Status::Ok();
}

// Root refs: files directly in the git directory with a root ref's name.
Status ReadRootRefs(const std::string& git_dir, size_t hash_size, FilesRefs* out) {
  std::vector<DirEntry> entries;
  REFTAB_RETURN_IF_ERROR(ListSorted(git_dir, &entries));
  for (const DirEntry& e : entries) {
    if (e.name[0] == '.' || e.name.ends_with(".lock")) continue;
    if (!e.is_reg || !IsRootRef(e.name)) continue;
    ReadLoose(git_dir + "/" + e.name, e.name, false, hash_size, out);
  }
  return Status::Ok();
}

bool ByName(const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; }

// Packed records not shadowed by a loose one (or a loose problem), merged with the loose.
void MergeLooseOverPacked(std::vector<RefRecord> loose, std::vector<RefRecord> packed,
                          FilesRefs* out) {
  std::sort(loose.begin(), loose.end(), ByName);
  std::vector<std::string> broken;
  for (const RefProblem& p : out->problems) broken.push_back(p.refname);
  std::sort(broken.begin(), broken.end());
  out->refs.clear();
  out->refs.reserve(loose.size() + packed.size());
  size_t i = 0, j = 0;
  while (i < loose.size() || j < packed.size()) {
    if (j == packed.size() || (i < loose.size() && loose[i].refname <= packed[j].refname)) {
      if (j < packed.size() && loose[i].refname == packed[j].refname) ++j;
      out->refs.push_back(std::move(loose[i++]));
    } else {
      if (!std::binary_search(broken.begin(), broken.end(), packed[j].refname)) {
        out->refs.push_back(std::move(packed[j]));
      }
      ++j;
    }
  }
}

// "Name <email> 1700000000 +0100" already cut at '>': name and email as git splits them.
void SplitIdent(std::string_view ident, LogRecord* log) {
  size_t lt = ident.find('<');
  std::string_view name = ident.substr(0, lt);
  while (!name.empty() && IsSpace(name.back())) name.remove_suffix(1);
  std::string_view mail = lt == std::string_view::npos ? "" : ident.substr(lt + 1);
  mail = mail.substr(0, mail.find('>'));
  log->name = std::string(name);
  log->email = std::string(mail);
}

// One reflog line (with its newline) as git's files backend parses it; false where git
// skips the line as corrupt.
bool ParseReflogLine(std::string_view line, size_t hash_size, LogRecord* log) {
  const size_t hex = 2 * hash_size;
  if (line.size() < 2 * hex + 2 || line.back() != '\n') return false;
  if (!ParseHex(line.substr(0, hex), hash_size, &log->old_id) || line[hex] != ' ') return false;
  if (!ParseHex(line.substr(hex + 1, hex), hash_size, &log->new_id) || line[2 * hex + 1] != ' ')
    return false;
  std::string_view rest = line.substr(2 * hex + 2);
  size_t gt = rest.find('>');
  if (gt == std::string_view::npos || gt + 1 >= rest.size() || rest[gt + 1] != ' ') return false;
  SplitIdent(rest.substr(0, gt + 1), log);
  size_t p = gt + 2;
  uint64_t time = 0;
  size_t digits = p;
  while (digits < rest.size() && std::isdigit(uint8_t(rest[digits]))) {
    time = time * 10 + uint64_t(rest[digits++] - '0');
  }
  if (digits == p || time == 0) return false;  // git reads a zero timestamp as corrupt
  std::string_view tz = rest.substr(digits);
  if (tz.size() < 6 || tz[0] != ' ' || (tz[1] != '+' && tz[1] != '-')) return false;
  for (int k = 2; k < 6; ++k) {
    if (!std::isdigit(uint8_t(tz[k]))) return false;
  }
  int offset = (tz[2] - '0') * 1000 + (tz[3] - '0') * 100 + (tz[4] - '0') * 10 + (tz[5] - '0');
  log->time = time;
  log->tz_offset = int16_t(tz[1] == '-' ? -offset : offset);
  log->message = std::string(tz.substr(tz.size() > 6 && tz[6] == '\t' ? 7 : 6));
  log->value_type = LogValueType::kUpdate;
  return true;
}

Status WalkLogs(const std::string& dir, const std::string& prefix, size_t hash_size,
                std::vector<FilesReflog>* out) {
  std::vector<DirEntry> entries;
  REFTAB_RETURN_IF_ERROR(ListSorted(dir, &entries));
  for (const DirEntry& e : entries) {
    std::string path = dir + "/" + e.name;
    if (e.is_dir) {
      REFTAB_RETURN_IF_ERROR(WalkLogs(path, prefix + e.name + "/", hash_size, out));
      continue;
    }
    if (!e.is_reg || !IsValidRefname(e.name, kRefnameAllowOneLevel)) continue;
    std::string text;
    REFTAB_RETURN_IF_ERROR(ReadWhole(path, &text));
    FilesReflog log{prefix + e.name, {}};
    ParseFilesReflog(text, hash_size, &log.entries);
    out->push_back(std::move(log));
  }
  return Status::Ok();
}

}  // namespace

LooseKind ParseLooseRef(std::string_view contents, size_t hash_size, RefRecord* out) {
  while (!contents.empty() && IsSpace(contents.back())) contents.remove_suffix(1);
  if (contents.substr(0, 4) == "ref:") {
    contents.remove_prefix(4);
    while (!contents.empty() && IsSpace(contents.front())) contents.remove_prefix(1);
    out->value_type = RefValueType::kSymref;
    out->target = std::string(contents);
    return LooseKind::kSymref;
  }
  const size_t hex = 2 * hash_size;
  if (contents.size() < hex || !ParseHex(contents.substr(0, hex), hash_size, &out->value) ||
      (contents.size() > hex && !IsSpace(contents[hex]))) {
    return LooseKind::kBroken;
  }
  out->value_type = RefValueType::kVal1;
  return LooseKind::kId;
}

Status ParsePackedRefs(std::string_view text, size_t hash_size, std::vector<RefRecord>* out) {
  const size_t hex = 2 * hash_size;
  out->clear();
  out->reserve(text.size() / (hex + 30));
  bool sorted = true;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty() || line[0] == '#' || line[0] == '^') continue;
    RefRecord rec;
    if (line.size() < hex + 2 || line[hex] != ' ' ||
        !ParseHex(line.substr(0, hex), hash_size, &rec.value)) {
      return Status::Corruption("packed-refs: line " + std::to_string(line_no) +
                                ": unexpected line");
    }
    rec.refname = std::string(line.substr(hex + 1));
    rec.value_type = RefValueType::kVal1;
    if (!out->empty() && !(out->back().refname < rec.refname)) sorted = false;
    out->push_back(std::move(rec));
  }
  if (!sorted) std::stable_sort(out->begin(), out->end(), ByName);
  return Status::Ok();
}

Status ReadFilesRefs(const std::string& git_dir, size_t hash_size, FilesRefs* out) {
  FilesRefs loose;
  REFTAB_RETURN_IF_ERROR(ReadRootRefs(git_dir, hash_size, &loose));
  REFTAB_RETURN_IF_ERROR(WalkLoose(git_dir + "/refs", "refs/", hash_size, &loose));
  std::vector<RefRecord> packed;
  std::string text;
  Status read = ReadWhole(git_dir + "/packed-refs", &text);
  if (read.ok()) {
    REFTAB_RETURN_IF_ERROR(ParsePackedRefs(text, hash_size, &packed));
  } else if (read.code() != Code::kNotFound) {
    return read;
  }
  for (const RefRecord& r : packed) {
    if (!IsValidRefname(r.refname, kRefnameAllowOneLevel)) {
      loose.problems.push_back({r.refname, "not a valid ref name (in packed-refs)"});
    }
  }
  out->problems = std::move(loose.problems);
  MergeLooseOverPacked(std::move(loose.refs), std::move(packed), out);
  return Status::Ok();
}

void ParseFilesReflog(std::string_view text, size_t hash_size, std::vector<LogRecord>* out) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
    LogRecord log;
    if (ParseReflogLine(text.substr(0, len), hash_size, &log)) out->push_back(std::move(log));
    text.remove_prefix(len);
  }
}

Status ReadFilesReflogs(const std::string& git_dir, size_t hash_size,
                        std::vector<FilesReflog>* out) {
  out->clear();
  return WalkLogs(git_dir + "/logs", "", hash_size, out);
}

}  // namespace reftab

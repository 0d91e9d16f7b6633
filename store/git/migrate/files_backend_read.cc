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
    // The entry's type as readdir tells it (no stat per file); stat where it cannot.
    unsigned char type = de->d_type;
    if (type == DT_UNKNOWN) {
      struct stat st;
      if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // raced away
      type = S_ISDIR(st.st_mode)   ? DT_DIR
             : S_ISREG(st.st_mode) ? DT_REG
             : S_ISLNK(st.st_mode) ? DT_LNK
                                   : DT_UNKNOWN;
    }
    out->push_back({std::move(name), type == DT_DIR, type == DT_REG, type == DT_LNK});
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
  // Straight into the string, sized by fstat (and grown if the file grew meanwhile).
  struct stat st;
  size_t size = 0;
  out->resize(fstat(fd, &st) == 0 && st.st_size > 0 ? size_t(st.st_size) + 1 : 4096);
  ssize_t n;
  while ((n = read(fd, out->data() + size, out->size() - size)) > 0) {
    size += size_t(n);
    if (size == out->size()) out->resize(2 * size);
  }
  int err = errno;
  close(fd);
  out->resize(size);
  if (n < 0) return Status::IoError(path + ": " + std::strerror(err));
  return Status::Ok();
}

bool IsSpace(char c) { return std::isspace(uint8_t(c)) != 0; }

// Loose and root refs as read, before packed ones are merged in.
struct LooseRefs {
  std::vector<RefRecord> refs;
  std::vector<RefProblem> problems;
};

// A name git's refs code accepts (one level allowed): the quick look first, as most are plain.
bool IsGoodRefname(std::string_view name) {
  return PlainlyValidRefname(name) || IsValidRefname(name, kRefnameAllowOneLevel);
}

// One loose ref (a file or link at `path` named `refname`) into `out`, or a problem.
void ReadLoose(const std::string& path, const std::string& refname, bool is_link, size_t hash_size,
               LooseRefs* out) {
  if (!IsGoodRefname(refname)) {
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
                 LooseRefs* out) {
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
Status ReadRootRefs(const std::string& git_dir, size_t hash_size, LooseRefs* out) {
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

// Walks the ref lines of packed-refs `text`, calling on_ref(offset of the line, name, id)
// for each (peeled and comment lines skipped); fails naming the first line that is not
// "<hex> <name>".
template <class OnRef>
Status ScanPackedRefs(std::string_view text, size_t hash_size, OnRef&& on_ref) {
  const size_t hex = 2 * hash_size;
  size_t line_no = 0, pos = 0;
  ObjectId id;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = text.substr(pos, end - pos);
    const size_t at = pos;
    pos = end == text.size() ? end : end + 1;
    if (line.empty() || line[0] == '#' || line[0] == '^') continue;
    if (line.size() < hex + 2 || line[hex] != ' ' ||
        !ParseHexId(line.substr(0, hex), hash_size, &id)) {
      return Status::Corruption("packed-refs: line " + std::to_string(line_no) +
                                ": unexpected line");
    }
    on_ref(at, line.substr(hex + 1), id);
  }
  return Status::Ok();
}

constexpr uint64_t kLooseBit = uint64_t(1) << 63;

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
  if (!ParseHexId(line.substr(0, hex), hash_size, &log->old_id) || line[hex] != ' ') return false;
  if (!ParseHexId(line.substr(hex + 1, hex), hash_size, &log->new_id) || line[2 * hex + 1] != ' ')
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
  if (contents.size() < hex || !ParseHexId(contents.substr(0, hex), hash_size, &out->value) ||
      (contents.size() > hex && !IsSpace(contents[hex]))) {
    return LooseKind::kBroken;
  }
  out->value_type = RefValueType::kVal1;
  return LooseKind::kId;
}

Status ParsePackedRefs(std::string_view text, size_t hash_size, std::vector<RefRecord>* out) {
  out->clear();
  bool sorted = true;
  REFTAB_RETURN_IF_ERROR(
      ScanPackedRefs(text, hash_size, [&](size_t, std::string_view name, const ObjectId& id) {
        if (!out->empty() && !(out->back().refname < name)) sorted = false;
        RefRecord& rec = out->emplace_back();
        rec.refname = std::string(name);
        rec.value = id;
        rec.value_type = RefValueType::kVal1;
      }));
  if (!sorted) std::stable_sort(out->begin(), out->end(), ByName);
  return Status::Ok();
}

std::string_view FilesRefs::Name(uint64_t entry) const {
  if (entry & kLooseBit) return loose_[entry & ~kLooseBit].refname;
  const PackedName& n = packed_names_[entry];
  return packed_.substr(n.at, n.size);
}

bool FilesRefs::HasNullId(size_t i) const {
  const uint64_t entry = order_[i];
  if (entry & kLooseBit) {
    const RefRecord& r = loose_[entry & ~kLooseBit];
    return r.value_type != RefValueType::kSymref && IsZeroId(r.value, kMaxHashSize);
  }
  const char* id = packed_ids_.data() + entry * hash_size_;
  return std::all_of(id, id + hash_size_, [](char c) { return c == 0; });
}

void FilesRefs::Get(size_t i, RefRecord* out) const {
  const uint64_t entry = order_[i];
  if (entry & kLooseBit) {
    *out = loose_[entry & ~kLooseBit];
    return;
  }
  out->refname.assign(Name(entry));
  out->update_index = 0;
  out->value_type = RefValueType::kVal1;
  out->value = ObjectId{};
  std::memcpy(out->value.data(), packed_ids_.data() + entry * hash_size_, hash_size_);
  out->peeled = ObjectId{};
  out->target.clear();
}

void FilesRefs::Drop(const std::vector<std::string>& sorted_names) {
  std::erase_if(order_, [&](uint64_t e) {
    return std::binary_search(sorted_names.begin(), sorted_names.end(), Name(e));
  });
}

Status ReadFilesRefs(const std::string& git_dir, size_t hash_size, FilesRefs* out) {
  *out = FilesRefs();
  out->hash_size_ = hash_size;
  LooseRefs loose;
  REFTAB_RETURN_IF_ERROR(ReadRootRefs(git_dir, hash_size, &loose));
  REFTAB_RETURN_IF_ERROR(WalkLoose(git_dir + "/refs", "refs/", hash_size, &loose));
  // Mapped, not read: a million refs are 65 MB that need no copy (nor page faults of a copy).
  // As every file here, never through a symbolic link.
  const std::string packed_path = git_dir + "/packed-refs";
  struct stat st;
  if (lstat(packed_path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) return Status::IoError(packed_path + ": " + std::strerror(ELOOP));
    REFTAB_ASSIGN_OR_RETURN(out->packed_file_, PosixFileSystem()->OpenRead(packed_path));
    out->packed_ = std::string_view(reinterpret_cast<const char*>(out->packed_file_->data()),
                                    out->packed_file_->size());
  } else if (errno != ENOENT) {
    return Status::IoError(packed_path + ": " + std::strerror(errno));
  }
  std::vector<uint64_t> packed;  // indexes into packed_names_, in name order
  std::vector<RefProblem> packed_problems;
  bool sorted = true;
  std::string_view last;
  out->packed_ids_.reserve(out->packed_.size() / (2 * hash_size + 30) * hash_size);
  REFTAB_RETURN_IF_ERROR(ScanPackedRefs(
      out->packed_, hash_size, [&](size_t at, std::string_view name, const ObjectId& id) {
        if (!IsGoodRefname(name)) {
          packed_problems.push_back({std::string(name), "not a valid ref name (in packed-refs)"});
          return;
        }
        if (!packed.empty() && !(last < name)) sorted = false;
        packed.push_back(out->packed_names_.size());
        out->packed_names_.push_back({at + 2 * hash_size + 1, uint32_t(name.size())});
        out->packed_ids_.append(reinterpret_cast<const char*>(id.data()), hash_size);
        last = name;
      }));
  if (!sorted) {
    std::stable_sort(packed.begin(), packed.end(),
                     [&](uint64_t a, uint64_t b) { return out->Name(a) < out->Name(b); });
  }
  // Loose refs shadow packed ones, and so do loose files git cannot read.
  std::sort(loose.refs.begin(), loose.refs.end(), ByName);
  std::vector<std::string> broken;
  for (const RefProblem& p : loose.problems) broken.push_back(p.refname);
  std::sort(broken.begin(), broken.end());
  out->loose_ = std::move(loose.refs);
  out->order_.reserve(out->loose_.size() + packed.size());
  size_t i = 0, j = 0;
  while (i < out->loose_.size() || j < packed.size()) {
    if (j == packed.size() ||
        (i < out->loose_.size() && out->loose_[i].refname <= out->Name(packed[j]))) {
      if (j < packed.size() && out->loose_[i].refname == out->Name(packed[j])) ++j;
      out->order_.push_back(kLooseBit | i++);
    } else {
      if (broken.empty() ||
          !std::binary_search(broken.begin(), broken.end(), out->Name(packed[j]))) {
        out->order_.push_back(packed[j]);
      }
      ++j;
    }
  }
  out->problems = std::move(loose.problems);
  for (RefProblem& p : packed_problems) out->problems.push_back(std::move(p));
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

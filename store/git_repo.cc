#include "store/git_repo.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace reftab {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(uint8_t(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A config value: strips comments outside quotes, removes quotes, handles \" \\ \n \t.
std::string ConfigValue(std::string_view raw) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && (c == '#' || c == ';')) {
      break;
    } else if (c == '\\' && i + 1 < raw.size()) {
      char e = raw[++i];
      out.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
    } else {
      out.push_back(c);
    }
  }
  return std::string(Trim(out));
}

}  // namespace

GitConfig GitConfig::Parse(std::string_view text) {
  GitConfig cfg;
  std::string section;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = Trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      size_t close = line.find(']');
      std::string_view inner = line.substr(1, close == std::string_view::npos ? line.size() - 1 : close - 1);
      size_t q = inner.find('"');
      if (q == std::string_view::npos) {
        section = Lower(Trim(inner));  // [section] or the old [section.sub] form
      } else {
        std::string_view sub = inner.substr(q + 1);
        if (!sub.empty() && sub.back() == '"') sub.remove_suffix(1);
        section = Lower(Trim(inner.substr(0, q))) + "." + std::string(sub);
      }
      line = close == std::string_view::npos ? std::string_view() : Trim(line.substr(close + 1));
      if (line.empty()) continue;
    }
    size_t eq = line.find('=');
    std::string key = Lower(Trim(line.substr(0, eq)));
    std::string value = eq == std::string_view::npos ? "true" : ConfigValue(line.substr(eq + 1));
    cfg.values_[section + "." + key] = value;
  }
  return cfg;
}

std::optional<std::string> GitConfig::Get(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

bool GitConfig::GetBool(std::string_view key, bool fallback) const {
  auto v = Get(key);
  if (!v) return fallback;
  std::string s = Lower(*v);
  if (s == "true" || s == "yes" || s == "on" || s == "1") return true;
  if (s == "false" || s == "no" || s == "off" || s == "0" || s.empty()) return false;
  return fallback;
}

int64_t GitConfig::GetInt(std::string_view key, int64_t fallback) const {
  auto v = Get(key);
  if (!v || v->empty()) return fallback;
  const char* begin = v->c_str();
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(begin, &end, 0);
  if (end == begin || errno != 0) return fallback;
  std::string rest = Lower(std::string_view(end));
  if (rest == "k") n *= 1024;
  else if (rest == "m") n *= 1024 * 1024;
  else if (rest == "g") n *= 1024LL * 1024 * 1024;
  else if (!rest.empty()) return fallback;
  return n;
}

bool IsPerWorktreeRef(std::string_view name) {
  for (std::string_view p : {"refs/bisect/", "refs/worktree/", "refs/rewritten/"}) {
    if (name.substr(0, p.size()) == p) return true;
  }
  if (name.substr(0, 5) == "refs/" || name.empty()) return false;
  for (char c : name) {
    if (!(std::isupper(uint8_t(c)) || c == '_' || c == '-')) return false;  // git's root-ref syntax
  }
  return true;
}

Result<std::unique_ptr<GitRepo>> GitRepo::Open(const std::string& git_dir, StackOptions base) {
  FileSystem* fs = base.fs ? base.fs : PosixFileSystem();
  std::unique_ptr<GitRepo> repo(new GitRepo());
  repo->git_dir_ = git_dir;
  repo->common_dir_ = git_dir;
  auto commondir = fs->ReadFile(git_dir + "/commondir");
  if (commondir.ok()) {
    std::string c(Trim(*commondir));
    while (!c.empty() && c.back() == '\n') c.pop_back();
    repo->common_dir_ = !c.empty() && c[0] == '/' ? c : git_dir + "/" + c;
  }
  auto text = fs->ReadFile(repo->common_dir_ + "/config");
  if (text.ok()) repo->config_ = GitConfig::Parse(*text);
  const GitConfig& cfg = repo->config_;
  std::string format = Lower(cfg.Get("extensions.objectformat").value_or("sha1"));
  if (format != "sha1" && format != "sha256") {
    return Status::InvalidArgument(repo->common_dir_ + "/config: unknown extensions.objectFormat '" +
                                   format + "'");
  }
  base.hash_id = format == "sha256" ? HashId::kSha256 : HashId::kSha1;
  if (int64_t v = cfg.GetInt("reftable.blocksize", 0); v > 0) base.write_options.block_size = uint32_t(v);
  if (int64_t v = cfg.GetInt("reftable.restartinterval", 0); v > 0) {
    base.write_options.restart_interval = uint32_t(v);
  }
  base.write_options.index_objects = cfg.GetBool("reftable.indexobjects", base.write_options.index_objects);
  if (int64_t v = cfg.GetInt("reftable.geometricfactor", 0); v > 0) base.geometric_factor = uint32_t(v);
  base.lock_timeout_ms = cfg.GetInt("reftable.locktimeout", base.lock_timeout_ms);
  REFTAB_RETURN_IF_ERROR(ValidateWriteOptions(base.write_options).WithContext("reftable config"));

  auto main = Stack::Open(repo->common_dir_ + "/reftable", base);
  if (!main.ok()) return main.status();
  repo->main_ = std::move(*main);
  if (repo->common_dir_ != git_dir) {
    auto wt = Stack::Open(git_dir + "/reftable", base);
    if (!wt.ok()) return wt.status();
    repo->worktree_ = std::move(*wt);
  }
  return repo;
}

Stack& GitRepo::StackFor(std::string_view refname) {
  return worktree_ && IsPerWorktreeRef(refname) ? *worktree_ : *main_;
}

Status GitRepo::ReadRef(std::string_view refname, RefRecord* ref, bool* found) {
  return StackFor(refname).snapshot()->ReadRef(refname, ref, found);
}

Status GitRepo::ForEachRef(std::string_view prefix, const std::function<bool(const RefRecord&)>& fn) {
  // Two sorted sources: the main stack without per-worktree names, and the worktree's stack.
  auto main_snap = main_->snapshot();
  MergedRefIterator a = main_snap->NewRefIterator();
  a.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(a.Seek(prefix));
  std::shared_ptr<const Snapshot> wt_snap = worktree_ ? worktree_->snapshot() : nullptr;
  std::optional<MergedRefIterator> b;
  if (wt_snap) {
    b.emplace(wt_snap->NewRefIterator());
    b->set_suppress_deletions(true);
    REFTAB_RETURN_IF_ERROR(b->Seek(prefix));
  }
  auto in_prefix = [&](const RefRecord& r) { return std::string_view(r.refname).substr(0, prefix.size()) == prefix; };
  RefRecord ra, rb;
  auto next_a = [&] {
    while (a.Next(&ra)) {
      if (!in_prefix(ra)) return false;
      if (!wt_snap || !IsPerWorktreeRef(ra.refname)) return true;
    }
    return false;
  };
  auto next_b = [&] { return b && b->Next(&rb) && in_prefix(rb); };
  bool has_a = next_a(), has_b = next_b();
  while (has_a || has_b) {
    bool take_a = has_a && (!has_b || ra.refname < rb.refname);
    if (!fn(take_a ? ra : rb)) return Status::Ok();
    if (take_a) {
      has_a = next_a();
    } else {
      has_b = next_b();
    }
  }
  REFTAB_RETURN_IF_ERROR(a.status());
  return b ? b->status() : Status::Ok();
}

}  // namespace reftab

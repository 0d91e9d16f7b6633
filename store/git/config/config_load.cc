// git's config levels and includes (store/git/config/config.h): which files are read in which
// order, include.path / includeIf, and the command-line levels from the environment.
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "store/file.h"
#include "store/git/config/config.h"
#include "store/git/config/config_internal.h"
#include "store/git/quote.h"
#include "store/git/wildmatch.h"

namespace reftab {
namespace {

constexpr int kMaxIncludeDepth = 10;  // git's MAX_INCLUDE_DEPTH

// remote.<name>.url (a subsection is required).
bool IsRemoteUrlKey(std::string_view key) {
  size_t last = key.rfind('.');
  return key.starts_with("remote.") && last > 6 && key.substr(last) == ".url";
}

// access(2) as git's access_or_die uses it: a missing file is simply not read, other
// failures stop (EACCES too, unless `eacces_ok`, as for the global files). nullopt: skip.
Result<std::optional<std::string>> ReadConfigFile(const std::string& path, bool eacces_ok) {
  if (access(path.c_str(), R_OK) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR || (eacces_ok && err == EACCES)) {
      return std::optional<std::string>();
    }
    return Status::IoError("unable to access '" + path + "': " + std::strerror(err));
  }
  Result<std::string> text = PosixFileSystem()->ReadFile(path);
  if (!text.ok()) return std::optional<std::string>();  // git warns and goes on
  return std::optional<std::string>(std::move(*text));
}

std::string RealPath(const std::string& path) {
  std::unique_ptr<char, void (*)(void*)> r(::realpath(path.c_str(), nullptr), &std::free);
  return r ? std::string(r.get()) : std::string();
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf)) return path;
  return std::string(buf) + "/" + path;
}

// git's key check for command-line settings: a section and a name, both of letters, digits
// and '-', the name starting with a letter; the subsection is free (no newline). Lower-cases
// the section and the name.
Result<std::string> CommandLineKey(const std::string& key) {
  if (key.empty()) return Status::InvalidArgument("empty config key");
  size_t first = key.find('.');
  size_t last = key.rfind('.');
  if (last == std::string::npos || last == 0) {
    return Status::InvalidArgument("key does not contain a section: " + key);
  }
  if (last + 1 == key.size()) {
    return Status::InvalidArgument("key does not contain variable name: " + key);
  }
  for (size_t i = 0; i < key.size(); ++i) {
    const auto c = uint8_t(key[i]);
    if (i < first || i > last) {
      if (!(std::isalnum(c) || c == '-') || (i == last + 1 && !std::isalpha(c))) {
        return Status::InvalidArgument("invalid key: " + key);
      }
    } else if (c == '\n') {
      return Status::InvalidArgument("invalid key (newline): " + key);
    }
  }
  return CanonicalConfigKey(key);
}

// One step of git's single-quote dequoting ('a'\''b' -> a'b): the quoted word at *pos, and
// *pos moved past it; nullopt when the text there is not a quoted word.
std::optional<std::string> Dequote(const std::string& s, size_t* pos) {
  size_t i = *pos;
  if (i >= s.size() || s[i] != '\'') return std::nullopt;
  std::string out;
  for (++i;; ++i) {
    if (i >= s.size()) return std::nullopt;
    if (s[i] != '\'') {
      out += s[i];
      continue;
    }
    // Out of the quotes: \' or \! resumes them; anything else ends the word.
    if (i + 3 < s.size() && s[i + 1] == '\\' && (s[i + 2] == '\'' || s[i + 2] == '!') &&
        s[i + 3] == '\'') {
      out += s[i + 2];
      i += 3;
      continue;
    }
    *pos = i + 1;
    return out;
  }
}

class Loader {
 public:
  Loader(const GitConfigRepository* repo, const GitConfigEnvironment& env, GitConfig* out)
      : repo_(repo), env_(env), out_(out) {}

  // Collects remote.*.url of every level for hasconfig: conditions (git's second pass): each
  // such condition counts as true there, and the files it includes may not set URLs.
  void set_collect_remote_urls() { collecting_urls_ = true; }

  Status LoadLevels() {
    REFTAB_RETURN_IF_ERROR(LoadSystem());
    REFTAB_RETURN_IF_ERROR(LoadGlobal());
    if (repo_ && !repo_->common_dir.empty()) {
      const std::string local = repo_->common_dir + "/config";
      REFTAB_RETURN_IF_ERROR(LoadFile(local, ConfigScope::kLocal, false));
      REFTAB_ASSIGN_OR_RETURN(bool wt, WorktreeConfigEnabled(local));
      if (wt) {
        REFTAB_RETURN_IF_ERROR(
            LoadFile(repo_->git_dir + "/config.worktree", ConfigScope::kWorktree, false));
      }
    }
    return LoadCommandLine();
  }

  Status LoadFile(const std::string& path, ConfigScope scope, bool eacces_ok) {
    REFTAB_ASSIGN_OR_RETURN(std::optional<std::string> text, ReadConfigFile(path, eacces_ok));
    if (!text) return Status::Ok();
    ConfigEntryHandler on_entry = [this](ConfigEntry e, bool* rejected) {
      return OnEntry(std::move(e), rejected);
    };
    return ParseConfigSource(*text, path, scope, on_entry);
  }

 private:
  std::optional<std::string> Env(const char* name) const {
    return env_.getenv ? env_.getenv(name) : std::nullopt;
  }

  Status LoadSystem() {
    if (auto nosys = Env("GIT_CONFIG_NOSYSTEM")) {
      std::optional<bool> off = ParseGitBool(*nosys);
      if (!off) {
        return Status::InvalidArgument("bad boolean environment value '" + *nosys +
                                       "' for 'GIT_CONFIG_NOSYSTEM'");
      }
      if (*off) return Status::Ok();
    }
    std::string path = Env("GIT_CONFIG_SYSTEM").value_or(env_.default_system_file);
    return LoadFile(path, ConfigScope::kSystem, false);
  }

  Status LoadGlobal() {
    if (auto global = Env("GIT_CONFIG_GLOBAL")) {
      return LoadFile(*global, ConfigScope::kGlobal, true);
    }
    std::optional<std::string> home = Env("HOME");
    std::optional<std::string> xdg = Env("XDG_CONFIG_HOME");
    if (xdg && !xdg->empty()) {
      REFTAB_RETURN_IF_ERROR(LoadFile(*xdg + "/git/config", ConfigScope::kGlobal, true));
    } else if (home) {
      REFTAB_RETURN_IF_ERROR(LoadFile(*home + "/.config/git/config", ConfigScope::kGlobal, true));
    }
    if (home) REFTAB_RETURN_IF_ERROR(LoadFile(*home + "/.gitconfig", ConfigScope::kGlobal, true));
    return Status::Ok();
  }

  // extensions.worktreeConfig, which git takes from the repository's own file (not from
  // what it includes) when it checks the repository format.
  Result<bool> WorktreeConfigEnabled(const std::string& local) const {
    bool on = false;
    for (const ConfigEntry& e : out_->entries()) {
      if (e.file != local || e.key != "extensions.worktreeconfig") continue;
      REFTAB_ASSIGN_OR_RETURN(on, ConfigBool(e));
    }
    return on;
  }

  Status LoadCommandLine() {
    REFTAB_RETURN_IF_ERROR(CommandLineCount());
    return CommandLineParameters();
  }

  // What git dies with after an error line naming the problem (bogus count, missing key,
  // invalid key, bad format, a refused include); an included file's own errors pass as they are.
  static Status Unparsable() {
    return Status::InvalidArgument("unable to parse command-line config");
  }

  Status AddCommandLine(const std::string& key, std::optional<std::string> value) {
    Result<std::string> k = CommandLineKey(key);
    if (!k.ok()) return Unparsable();
    ConfigEntry e;
    e.key = std::move(*k);
    e.value = std::move(value);
    e.scope = ConfigScope::kCommand;
    bool rejected = false;
    REFTAB_RETURN_IF_ERROR(OnEntry(std::move(e), &rejected));
    return rejected ? Unparsable() : Status::Ok();
  }

  // GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n>.
  Status CommandLineCount() {
    std::optional<std::string> count = Env("GIT_CONFIG_COUNT");
    if (!count) return Status::Ok();
    char* end = nullptr;
    unsigned long n = std::strtoul(count->c_str(), &end, 10);
    if (*end || n > INT_MAX) return Unparsable();  // bogus count, too many entries
    for (unsigned long i = 0; i < n; ++i) {
      const std::string kname = "GIT_CONFIG_KEY_" + std::to_string(i);
      const std::string vname = "GIT_CONFIG_VALUE_" + std::to_string(i);
      std::optional<std::string> key = Env(kname.c_str());
      if (!key) return Unparsable();  // missing config key
      std::optional<std::string> value = Env(vname.c_str());
      if (!value) return Unparsable();  // missing config value
      REFTAB_RETURN_IF_ERROR(AddCommandLine(*key, std::move(*value)));
    }
    return Status::Ok();
  }

  // GIT_CONFIG_PARAMETERS (what `git -c` passes down): 'key'='value' words, 'key'= for an
  // implicit boolean, or the older 'key=value'.
  Status CommandLineParameters() {
    std::optional<std::string> env = Env("GIT_CONFIG_PARAMETERS");
    if (!env) return Status::Ok();
    const std::string& s = *env;
    const Status bogus = Unparsable();  // bogus format in GIT_CONFIG_PARAMETERS
    size_t pos = 0;
    while (pos < s.size()) {
      std::optional<std::string> word = Dequote(s, &pos);
      if (!word) return bogus;
      if (pos >= s.size() || std::isspace(uint8_t(s[pos]))) {
        size_t eq = word->find('=');
        if (eq == 0 || word->empty()) return bogus;
        std::optional<std::string> value;
        if (eq != std::string::npos) value = word->substr(eq + 1);
        REFTAB_RETURN_IF_ERROR(AddCommandLine(word->substr(0, eq), std::move(value)));
      } else if (s[pos] == '=') {
        ++pos;
        std::optional<std::string> value;
        if (pos < s.size() && s[pos] == '\'') {
          value = Dequote(s, &pos);
          if (!value || (pos < s.size() && !std::isspace(uint8_t(s[pos])))) return bogus;
        } else if (pos < s.size() && !std::isspace(uint8_t(s[pos]))) {
          return bogus;
        }
        REFTAB_RETURN_IF_ERROR(AddCommandLine(*word, std::move(value)));
      } else {
        return bogus;
      }
      while (pos < s.size() && std::isspace(uint8_t(s[pos]))) ++pos;
    }
    return Status::Ok();
  }

  Status OnEntry(ConfigEntry e, bool* rejected) {
    if (forbid_urls_) {
      if (IsRemoteUrlKey(e.key)) {
        return Status::InvalidArgument(
            "remote URLs cannot be configured in file directly or indirectly included by "
            "includeIf.hasconfig:remote.*.url");
      }
    } else {
      out_->Add(e);
    }
    if (e.key == "include.path") return IncludePath(e, rejected);
    if (!e.key.starts_with("includeif.") || e.key.size() < 16 ||
        e.key.compare(e.key.size() - 5, 5, ".path") != 0) {
      return Status::Ok();
    }
    std::string cond = e.key.substr(10, e.key.size() - 15);
    REFTAB_ASSIGN_OR_RETURN(bool holds, ConditionHolds(e, cond, rejected));
    if (*rejected || !holds) return Status::Ok();
    const bool was_forbidding = forbid_urls_;
    if (collecting_urls_ && cond.starts_with("hasconfig:remote.*.url:")) forbid_urls_ = true;
    Status s = IncludePath(e, rejected);
    forbid_urls_ = was_forbidding;
    return s;
  }

  // "~/x" and "~user/x" as git expands them; nullopt when it cannot.
  std::optional<std::string> ExpandUser(const std::string& path, bool real_home) const {
    if (path.starts_with("%(prefix)/")) return std::nullopt;
    if (path.empty() || path[0] != '~') return path;
    size_t slash = path.find('/');
    std::string user = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
    std::string rest = slash == std::string::npos ? "" : path.substr(slash);
    if (user.empty()) {
      std::optional<std::string> home = Env("HOME");
      if (!home) return std::nullopt;
      std::string h = real_home ? RealPath(*home) : *home;
      return (h.empty() ? *home : h) + rest;
    }
    const passwd* pw = getpwnam(user.c_str());
    if (!pw) return std::nullopt;
    return std::string(pw->pw_dir) + rest;
  }

  Status IncludePath(const ConfigEntry& e, bool* rejected) {
    if (!e.value) return Reject("missing value for '" + e.key + "'", rejected);
    std::optional<std::string> path = ExpandUser(*e.value, false);
    if (!path) return Reject("could not expand include path '" + *e.value + "'", rejected);
    if (path->empty() || (*path)[0] != '/') {
      if (e.file.empty()) return Reject("relative config includes must come from files", rejected);
      size_t slash = e.file.rfind('/');
      if (slash != std::string::npos) *path = e.file.substr(0, slash + 1) + *path;
    }
    if (access(path->c_str(), R_OK) != 0) {
      int err = errno;
      if (err == ENOENT || err == ENOTDIR) return Status::Ok();
      return Status::IoError("unable to access '" + *path + "': " + std::strerror(err));
    }
    if (++depth_ > kMaxIncludeDepth) {
      return Status::InvalidArgument("exceeded maximum include depth (" +
                                     std::to_string(kMaxIncludeDepth) + ") while including\n\t" +
                                     *path + "\nfrom\n\t" +
                                     (e.file.empty() ? std::string("the command line") : e.file) +
                                     "\nThis might be due to circular includes.");
    }
    Status s = LoadFile(*path, e.scope, false);
    --depth_;
    return s;
  }

  // git reports these as an error line, then the including line as a bad config line.
  static Status Reject(const std::string& why, bool* rejected) {
    (void)why;
    *rejected = true;
    return Status::Ok();
  }

  Result<bool> ConditionHolds(const ConfigEntry& e, const std::string& cond, bool* rejected) {
    struct PathCondition {
      const char* prefix;
      bool worktree;
      bool icase;
    };
    static constexpr PathCondition kPaths[] = {{"gitdir:", false, false},
                                               {"gitdir/i:", false, true},
                                               {"worktree:", true, false},
                                               {"worktree/i:", true, true}};
    for (const PathCondition& pc : kPaths) {
      if (!cond.starts_with(pc.prefix)) continue;
      std::optional<std::string> path;
      if (repo_) path = pc.worktree ? repo_->work_tree : std::optional(repo_->git_dir);
      if (!path || path->empty()) return false;
      return PathMatches(e, *path, cond.substr(std::strlen(pc.prefix)), pc.icase, rejected);
    }
    if (cond.starts_with("onbranch:")) return OnBranch(cond.substr(9));
    if (cond.starts_with("hasconfig:remote.*.url:")) return HasRemoteUrl(cond.substr(23));
    return false;  // unknown conditions are false, as in git
  }

  // gitdir: / worktree: patterns: "~/" expanded, "./" relative to the including file's
  // directory (matched literally), other relative patterns anywhere ("**/"), a trailing '/'
  // meaning everything below. Tried on the real path, then on the path as given.
  Result<bool> PathMatches(const ConfigEntry& e, const std::string& path, std::string pattern,
                           bool icase, bool* rejected) {
    if (std::optional<std::string> x = ExpandUser(pattern, true)) pattern = *x;
    size_t prefix = 0;
    if (pattern.starts_with("./")) {
      if (e.file.empty()) {
        *rejected = true;  // git: "relative config include conditionals must come from files"
        return false;
      }
      std::string real = RealPath(e.file);
      std::string dir = real.substr(0, real.rfind('/'));
      pattern = dir + pattern.substr(1);
      prefix = dir.size() + 1;
    } else if (pattern.empty() || pattern[0] != '/') {
      pattern = "**/" + pattern;
    }
    if (!pattern.empty() && pattern.back() == '/') pattern += "**";
    for (const std::string& text : {RealPath(path), AbsolutePath(path)}) {
      if (text.empty() || text.size() < prefix) continue;
      bool same_prefix = icase ? strncasecmp(pattern.c_str(), text.c_str(), prefix) == 0
                               : pattern.compare(0, prefix, text, 0, prefix) == 0;
      if (!same_prefix) continue;
      if (WildMatchPath(std::string_view(pattern).substr(prefix),
                        std::string_view(text).substr(prefix), icase)) {
        return true;
      }
    }
    return false;
  }

  Result<bool> OnBranch(std::string pattern) {
    if (!repo_ || !repo_->head_target) return false;
    if (!head_) {
      REFTAB_ASSIGN_OR_RETURN(std::optional<std::string> target, repo_->head_target());
      head_ = target.value_or("");
    }
    if (!head_->starts_with("refs/heads/")) return false;
    if (!pattern.empty() && pattern.back() == '/') pattern += "**";
    return WildMatchPath(pattern, std::string_view(*head_).substr(11));
  }

  Result<bool> HasRemoteUrl(const std::string& glob) {
    if (collecting_urls_) return true;
    if (!remote_urls_) {
      GitConfig all;
      Loader pass(repo_, env_, &all);
      pass.set_collect_remote_urls();
      REFTAB_RETURN_IF_ERROR(pass.LoadLevels());
      remote_urls_.emplace();
      for (const ConfigEntry& u : all.entries()) {
        if (IsRemoteUrlKey(u.key) && u.value) remote_urls_->push_back(*u.value);
      }
    }
    for (const std::string& url : *remote_urls_) {
      if (WildMatchPath(glob, url)) return true;
    }
    return false;
  }

  const GitConfigRepository* repo_;
  const GitConfigEnvironment& env_;
  GitConfig* out_;
  int depth_ = 0;
  bool collecting_urls_ = false;
  bool forbid_urls_ = false;
  std::optional<std::string> head_;
  std::optional<std::vector<std::string>> remote_urls_;
};

}  // namespace

GitConfigEnvironment GitConfigEnvironment::FromProcess() {
  GitConfigEnvironment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  return env;
}

Result<GitConfig> LoadGitConfig(const GitConfigRepository& repo, const GitConfigEnvironment& env) {
  GitConfig cfg;
  Loader loader(&repo, env, &cfg);
  REFTAB_RETURN_IF_ERROR(loader.LoadLevels());
  return cfg;
}

Result<GitConfig> LoadGitConfigFile(const std::string& file, ConfigScope scope,
                                    const GitConfigRepository* repo,
                                    const GitConfigEnvironment& env) {
  GitConfig cfg;
  Loader loader(repo, env, &cfg);
  REFTAB_RETURN_IF_ERROR(loader.LoadFile(file, scope, false));
  return cfg;
}

std::string AddConfigParameter(std::string_view existing, std::string_view text) {
  std::string out(existing);
  if (!out.empty()) out.push_back(' ');
  size_t eq = text.find('=');
  // Quoted as git quotes them, which is what CommandLineParameters above undoes.
  AppendShellQuoted(text.substr(0, eq), &out);
  out.push_back('=');
  if (eq != std::string_view::npos) AppendShellQuoted(text.substr(eq + 1), &out);
  return out;
}

}  // namespace reftab

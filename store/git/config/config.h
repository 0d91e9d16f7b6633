// Public API: git's configuration, read as git reads it.
//
// The syntax (sections, [section "sub"] and the old [section.sub], continuation lines,
// quoting and escapes, comments), every level in git's order (system, global, the
// repository's config, config.worktree, GIT_CONFIG_COUNT / GIT_CONFIG_PARAMETERS), include.path
// and includeIf (gitdir:, gitdir/i:, worktree:, worktree/i:, onbranch:, and
// hasconfig:remote.*.url: with git's second pass over every level), and typed lookups that
// fail with git's own message where git dies (without git's "fatal: " prefix, so a command
// line tool prints "fatal: " + message and exits 128 as git does). Where git prints an
// "error: ..." line before dying (an include.path without a value, a bad command-line key),
// the message is git's final line only.
//
// One refusal where git would know better: "%(prefix)/" include paths (the prefix of git's
// own installation, which reftab cannot know) are treated as git treats a path it cannot
// expand: the line is a bad config line.
#ifndef REFTAB_STORE_GIT_CONFIG_CONFIG_H_
#define REFTAB_STORE_GIT_CONFIG_CONFIG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

enum class ConfigScope : uint8_t { kSystem, kGlobal, kLocal, kWorktree, kCommand };

// One "key = value" line (or command-line setting), in the order git sees them.
struct ConfigEntry {
  // Canonical: section and variable name in lower case, a [section "Sub"] subsection as
  // written ("remote.Origin.url"); the old [section.Sub] form is lower case throughout.
  std::string key;
  // nullopt for a key without '=' (git's implicit "true"); "" for "key =".
  std::optional<std::string> value;
  // The file as git names it in messages (relative names stay relative); "" for the
  // command line (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT).
  std::string file;
  int line = 0;
  ConfigScope scope = ConfigScope::kLocal;
};

// "Core.Bare" -> "core.bare"; "remote.Origin.URL" -> "remote.Origin.url".
std::string CanonicalConfigKey(std::string_view key);

class GitConfig {
 public:
  GitConfig() = default;

  // Parses one file's text (its include directives stay plain entries; LoadGitConfigFile
  // follows them). A syntax error fails with git's "bad config line N in file F".
  static Result<GitConfig> ParseText(std::string_view text, const std::string& file,
                                     ConfigScope scope = ConfigScope::kLocal);
  // Lenient form for callers that only want a best effort: the entries before the first
  // syntax error.
  static GitConfig Parse(std::string_view text);

  void Add(ConfigEntry entry) { entries_.push_back(std::move(entry)); }
  const std::vector<ConfigEntry>& entries() const { return entries_; }
  // The last entry of `key` (any spelling; canonicalised), or nullptr: "last one wins".
  const ConfigEntry* Last(std::string_view key) const;
  // Every entry of `key`, in order (multi-valued keys).
  std::vector<const ConfigEntry*> All(std::string_view key) const;

  // Lenient lookups over the last value. Get: "" for a key without '='. GetBool / GetInt:
  // `fallback` when unset or not valid (where git would die, read the entries with
  // ConfigBool / ConfigUlong / ConfigInt64 below, which fail with git's message).
  std::optional<std::string> Get(std::string_view key) const;
  bool GetBool(std::string_view key, bool fallback) const;
  int64_t GetInt(std::string_view key, int64_t fallback) const;

 private:
  std::vector<ConfigEntry> entries_;
};

// git's boolean spellings (true/yes/on, false/no/off, case-insensitive; "" false; no value
// true; otherwise an integer with optional k/m/g, non-zero true). nullopt: not a boolean.
std::optional<bool> ParseGitBool(const std::optional<std::string>& value);
// The words alone (git_parse_maybe_bool_text): true/yes/on, false/no/off (any case) and ""
// (false); nullopt for anything else, numbers included.
std::optional<bool> ParseGitBoolText(const std::string& value);

// Typed values of one entry, failing with git's message:
//   "bad boolean config value 'maybe' for 'reftable.indexobjects'"
//   "bad numeric config value 'abc' for 'reftable.blocksize' in file .git/config: invalid unit"
//   ("...: out of range" when too large; no "in file" part for the command line).
Result<bool> ConfigBool(const ConfigEntry& e);
Result<uint64_t> ConfigUlong(const ConfigEntry& e);  // git_config_ulong: no sign, units
Result<int64_t> ConfigInt64(const ConfigEntry& e);
Result<int32_t> ConfigInt(const ConfigEntry& e);
// git's fatal message when a config callback refuses an entry's value (after its own
// "error: ..." line): "bad config variable '<key>' in file '<file>' at line <n>", or
// "unable to parse '<key>' from command-line config".
std::string BadConfigVariable(const ConfigEntry& e);

// Where the levels come from. FromProcess reads git's variables (GIT_CONFIG_NOSYSTEM,
// GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME, HOME, GIT_CONFIG_COUNT and
// GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n, GIT_CONFIG_PARAMETERS); tests supply their own.
struct GitConfigEnvironment {
  std::function<std::optional<std::string>(const std::string& name)> getenv;
  // The system file when GIT_CONFIG_SYSTEM is not set. git's is compiled in (its
  // installation's etc/gitconfig); Debian's git and most others use /etc/gitconfig.
  std::string default_system_file = "/etc/gitconfig";
  static GitConfigEnvironment FromProcess();
};

// What the repository levels and includeIf conditions need to know about the repository.
struct GitConfigRepository {
  std::string common_dir;  // $GIT_COMMON_DIR: its config is the repository level
  std::string git_dir;     // $GIT_DIR: config.worktree (with extensions.worktreeConfig), gitdir:
  std::optional<std::string> work_tree;  // worktree: conditions (none: never true)
  // onbranch: conditions. HEAD's target when HEAD is a symbolic ref ("refs/heads/main"),
  // nullopt when it is not (detached, unborn without a symref, no ref store). Called at most
  // once per load, only when an onbranch: condition is met; unset: onbranch is never true.
  std::function<Result<std::optional<std::string>>()> head_target;
};

// GIT_CONFIG_PARAMETERS with `text` added as `git -c <text>` adds it: `existing` (the
// variable's value, empty if unset) followed by 'name'='value' for "name=value" (split at the
// first "="), or by 'name'= (an implicit true) when `text` has no "=". Nothing is checked
// here: a malformed name fails where the configuration is read, with git's message.
std::string AddConfigParameter(std::string_view existing, std::string_view text);

// Reads every level in git's order, following includes (depth limit 10, git's message).
Result<GitConfig> LoadGitConfig(const GitConfigRepository& repo, const GitConfigEnvironment& env);
// Reads one file and what it includes (for a repository's own file: `repo` may be null).
Result<GitConfig> LoadGitConfigFile(const std::string& file, ConfigScope scope,
                                    const GitConfigRepository* repo,
                                    const GitConfigEnvironment& env);

// core.logAllRefUpdates as git's reftable backend reads it: "always" (any case), else a
// boolean; kUnset when absent (git then logs unless the repository is bare).
enum class LogRefUpdates : uint8_t { kUnset, kNone, kNormal, kAlways };

// The settings git's reftable backend reads the first time it writes (update-ref, pack-refs,
// ... but not for-each-ref or refs verify), checked as git checks them: every entry of these
// keys in order, the first bad one failing with git's message, so a later valid value does
// not excuse an earlier malformed one. 0 means git's default for the numbers.
struct ReftableSettings {
  uint32_t block_size = 0;        // reftable.blockSize (at most 16777215)
  uint32_t restart_interval = 0;  // reftable.restartInterval (at most 65535)
  bool index_objects = true;      // reftable.indexObjects
  uint32_t geometric_factor = 0;  // reftable.geometricFactor (at most 255)
  int64_t lock_timeout_ms = 100;  // reftable.lockTimeout (-1: forever)
  LogRefUpdates log_all_ref_updates = LogRefUpdates::kUnset;
};
Result<ReftableSettings> ReadReftableSettings(const GitConfig& config);

// core.sharedRepository as git_config_perm reads the last value: 0 (umask), 0660 (group,
// true, 1), 0664 (all, world, everybody, 2), or minus an explicit mode ("0640" -> -0640).
// A mode the owner cannot read and write fails with git's message.
Result<int> SharedRepositorySetting(const GitConfig& config);
// git's calc_shared_perm: the mode a file gets when created with `mode` under `shared`.
uint32_t ApplySharedRepository(int shared, uint32_t mode);
// The permission bits git gives the files its reftable backend creates (tables and
// tables.list): calc_shared_perm(0666 & ~umask).
Result<uint32_t> SharedFilePermissions(const GitConfig& config, uint32_t umask);
// Whether core.fsync asks for refs to be synced (git's "reference" component, also in
// "committed", "added" and "all"): what makes git sync loose refs, packed-refs, tables and
// tables.list. Not by default.
bool CoreFsyncIncludesRefs(const GitConfig& config);
// The process's umask, read without changing it where the system allows (Linux
// /proc/self/status), else by setting and restoring it.
uint32_t CurrentUmask();

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_CONFIG_CONFIG_H_

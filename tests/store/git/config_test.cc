// store/git/config/config.h: git's config syntax, levels, includes and includeIf, typed values with
// git's messages, the reftable write settings, core.sharedRepository -> file modes; and
// GitRepo::Open using them. The GitAgrees* tests run the real git (REFTAB_GIT, else git >= 2.45
// on PATH) on the same files and compare values, messages and modes; they skip without one.
#include "store/git/config/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "store/git/repo.h"
#include "store/git/wildmatch.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;
using testutil::WriteFileOrDie;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

GitConfigEnvironment Env(std::map<std::string, std::string> vars) {
  GitConfigEnvironment env;
  env.getenv = [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  return env;
}

// `git config --list -z` as text: "key=value" lines, "key" alone for an implicit boolean.
std::string ListLines(const GitConfig& cfg) {
  std::string out;
  for (const ConfigEntry& e : cfg.entries()) {
    out += e.key + (e.value ? "=" + *e.value : "") + "\n";
  }
  return out;
}

std::string GitListLines(const std::string& z) {
  std::string out;
  size_t pos = 0;
  while (pos < z.size()) {
    size_t end = z.find('\0', pos);
    std::string item = z.substr(pos, end - pos);
    size_t nl = item.find('\n');
    out += nl == std::string::npos ? item : item.substr(0, nl) + "=" + item.substr(nl + 1);
    out += "\n";
    pos = end + 1;
  }
  return out;
}

Result<GitConfig> ParseLocal(std::string_view text) {
  return GitConfig::ParseText(text, ".git/config");
}

// ---------------------------------------------------------------------------------------------
// Syntax

TEST(GitConfigSyntaxTest, SectionsSubsectionsAndValues) {
  auto c = ParseLocal(
      "\xEF\xBB\xBF# comment\n"
      "[Core]\n"
      "\tBare = yes ; trailing comment\n"
      "\tquoted = \"a # not a comment\" \n"
      "\tescaped = \"tab\\there\\\\ \\\"q\\\" nl\\n\"\n"
      "\tflag\n"
      "\tempty =\n"
      "\tspaced =   a   b  \t\n"
      "\tmixed = a\" b \"c\n"
      "\tcont = one\\\n"
      "two\n"
      "[remote \"Origin\"]\n"
      "\turl = https://example.com/x.git\n"
      "[Branch.Main] Remote = origin\r\n"
      "[sub \"with \\\"quote\\\" and \\\\\"] k = v\n"
      "[multi]\n"
      "\tv = 1\n"
      "\tv = 2\n"
      "[core]bare=false\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(ListLines(*c),
            "core.bare=yes\n"
            "core.quoted=a # not a comment\n"
            "core.escaped=tab\there\\ \"q\" nl\n\n"
            "core.flag\n"
            "core.empty=\n"
            "core.spaced=a   b\n"
            "core.mixed=a b c\n"
            "core.cont=onetwo\n"
            "remote.Origin.url=https://example.com/x.git\n"
            "branch.main.remote=origin\n"
            "sub.with \"quote\" and \\.k=v\n"
            "multi.v=1\n"
            "multi.v=2\n"
            "core.bare=false\n");
  EXPECT_FALSE(c->GetBool("core.bare", true)) << "the last value wins";
  EXPECT_EQ(c->Get("CORE.Quoted"), std::optional<std::string>("a # not a comment"));
  EXPECT_EQ(c->Get("remote.Origin.URL"), std::optional<std::string>("https://example.com/x.git"));
  EXPECT_FALSE(c->Get("remote.origin.url").has_value()) << "subsections keep their case";
  EXPECT_EQ(c->All("multi.v").size(), 2u);
  EXPECT_EQ(c->Get("core.flag"), std::optional<std::string>(""));
  EXPECT_TRUE(c->GetBool("core.flag", false)) << "a key without '=' is true";
  EXPECT_EQ(c->Last("core.cont")->line, 11) << "git counts an entry at the line it ends on";
}

TEST(GitConfigSyntaxTest, BadLinesAreReportedWhereGitReportsThem) {
  struct Case {
    const char* text;
    int line;
  };
  const Case cases[] = {
      {"[core\n", 1},
      {"[core]\n\tx = \"unterminated\n", 2},
      {"[core]\n\tx = a\\qb\n", 2},
      {"[core]\n1x = a\n", 2},
      {"[core]\n\tx y\n", 2},
      {"[ core]\n", 1},
      {"[]\n", 1},
      {"[a \"b]\n", 1},
      {"[a \"b\" ]\n", 1},
      {"[core]\n\tx = \"a\\\nb\n", 3},
      {"\xEF\xBBx", 1},
      {"[core]\nx = 1\n[bad section]\n", 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto r = ParseLocal(c.text);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "bad config line " + std::to_string(c.line) + " in file .git/config");
  }
  // The lenient form keeps what came before the error.
  EXPECT_EQ(GitConfig::Parse("[a]\nb = 1\n[c\n").Get("a.b"), std::optional<std::string>("1"));
}

TEST(GitConfigSyntaxTest, CanonicalKeys) {
  EXPECT_EQ(CanonicalConfigKey("Core.Bare"), "core.bare");
  EXPECT_EQ(CanonicalConfigKey("Remote.Origin.URL"), "remote.Origin.url");
  EXPECT_EQ(CanonicalConfigKey("a.B.c.D"), "a.B.c.d");
}

// ---------------------------------------------------------------------------------------------
// Typed values and their messages

ConfigEntry Entry(const char* key, std::optional<std::string> value,
                  std::string file = ".git/config") {
  ConfigEntry e;
  e.key = key;
  e.value = std::move(value);
  e.file = std::move(file);
  return e;
}

TEST(GitConfigValuesTest, BooleansAsGitSpellsThem) {
  for (const char* t : {"true", "YES", "On", "1", "-1", "2k", "0x10"}) {
    EXPECT_EQ(ParseGitBool(std::string(t)), std::optional<bool>(true)) << t;
  }
  for (const char* f : {"false", "No", "OFF", "0", "", "0k"}) {
    EXPECT_EQ(ParseGitBool(std::string(f)), std::optional<bool>(false)) << f;
  }
  EXPECT_EQ(ParseGitBool(std::nullopt), std::optional<bool>(true));
  for (const char* bad : {"maybe", "yes please", "1x", "99999999999"}) {
    EXPECT_FALSE(ParseGitBool(std::string(bad)).has_value()) << bad;
  }
  EXPECT_EQ(ConfigBool(Entry("reftable.indexobjects", "maybe")).status().message(),
            "bad boolean config value 'maybe' for 'reftable.indexobjects'");
}

TEST(GitConfigValuesTest, NumbersWithUnitsAndGitsMessages) {
  EXPECT_EQ(*ConfigUlong(Entry("a.b", "4k")), 4096u);
  EXPECT_EQ(*ConfigUlong(Entry("a.b", "0x10")), 16u);
  EXPECT_EQ(*ConfigUlong(Entry("a.b", "010")), 8u);
  EXPECT_EQ(*ConfigUlong(Entry("a.b", "1G")), 1024u * 1024 * 1024);
  EXPECT_EQ(*ConfigInt64(Entry("a.b", "-2m")), -2 * 1024 * 1024);
  EXPECT_EQ(*ConfigInt(Entry("a.b", "2147483647")), 2147483647);
  EXPECT_EQ(ConfigUlong(Entry("reftable.blocksize", "abc")).status().message(),
            "bad numeric config value 'abc' for 'reftable.blocksize' in file .git/config: "
            "invalid unit");
  EXPECT_EQ(ConfigUlong(Entry("reftable.blocksize", "-1")).status().message(),
            "bad numeric config value '-1' for 'reftable.blocksize' in file .git/config: "
            "invalid unit");
  EXPECT_EQ(ConfigUlong(Entry("reftable.blocksize", std::nullopt)).status().message(),
            "bad numeric config value '' for 'reftable.blocksize' in file .git/config: "
            "invalid unit");
  EXPECT_EQ(ConfigUlong(Entry("reftable.blocksize", "99999999999999999999", "")).status().message(),
            "bad numeric config value '99999999999999999999' for 'reftable.blocksize': "
            "out of range");
  EXPECT_EQ(ConfigInt(Entry("a.b", "3g")).status().message(),
            "bad numeric config value '3g' for 'a.b' in file .git/config: out of range");
}

TEST(GitConfigValuesTest, ReftableSettingsInOrderWithGitsLimits) {
  auto settings = [](const std::string& text) {
    auto c = ParseLocal(text);
    EXPECT_TRUE(c.ok());
    return ReadReftableSettings(*c);
  };
  auto ok = settings(
      "[reftable]\n\tblockSize = 1k\n\trestartInterval = 7\n\tindexObjects = no\n"
      "\tgeometricFactor = 3\n\tlockTimeout = -1\n[core]\n\tlogAllRefUpdates = Always\n");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->block_size, 1024u);
  EXPECT_EQ(ok->restart_interval, 7u);
  EXPECT_FALSE(ok->index_objects);
  EXPECT_EQ(ok->geometric_factor, 3u);
  EXPECT_EQ(ok->lock_timeout_ms, -1);
  EXPECT_EQ(ok->log_all_ref_updates, LogRefUpdates::kAlways);
  EXPECT_EQ(settings("[core]\nlogAllRefUpdates = false\n")->log_all_ref_updates,
            LogRefUpdates::kNone);
  EXPECT_EQ(settings("")->log_all_ref_updates, LogRefUpdates::kUnset);
  const std::pair<const char*, const char*> bad[] = {
      {"[reftable]\nblockSize = 16777216\n", "reftable block size cannot exceed 16MB"},
      {"[reftable]\nrestartInterval = 65536\n", "reftable block size cannot exceed 65535"},
      {"[reftable]\ngeometricFactor = 256\n", "reftable geometric factor cannot exceed 255"},
      {"[reftable]\nlockTimeout = -2\n",
       "reftable lock timeout does not support negative values other than -1"},
      {"[core]\nlogAllRefUpdates = weird\n",
       "bad boolean config value 'weird' for 'core.logallrefupdates'"},
      // Every entry is checked in order: a later good value does not excuse an earlier one,
      // and the first bad entry is the one reported.
      {"[reftable]\nblockSize = abc\nblockSize = 1k\nindexObjects = maybe\n",
       "bad numeric config value 'abc' for 'reftable.blocksize' in file .git/config: "
       "invalid unit"},
      {"[reftable]\nindexObjects = maybe\nblockSize = abc\n",
       "bad boolean config value 'maybe' for 'reftable.indexobjects'"},
  };
  for (const auto& [text, message] : bad) {
    EXPECT_EQ(settings(text).status().message(), message) << text;
  }
  EXPECT_TRUE(settings("[reftable]\nblockSize = 16777215\nrestartInterval = 65535\n").ok());
}

// ---------------------------------------------------------------------------------------------
// core.sharedRepository

TEST(SharedRepositoryTest, ModesAsGitComputesThem) {
  struct Case {
    const char* value;  // nullptr: unset
    uint32_t umask;
    uint32_t mode;
  };
  const Case cases[] = {
      {nullptr, 022, 0644}, {nullptr, 077, 0600}, {"umask", 027, 0640}, {"false", 022, 0644},
      {"0", 002, 0664},     {"group", 022, 0664}, {"group", 077, 0660}, {"true", 077, 0660},
      {"1", 022, 0664},     {"all", 077, 0664},   {"world", 022, 0664}, {"everybody", 0, 0666},
      {"2", 077, 0664},     {"0600", 0, 0600},    {"0640", 022, 0640},  {"640", 077, 0640},
      {"0666", 022, 0666},  {"0660", 0, 0660},    {"0644", 077, 0644},  {"0x1B6", 077, 0660},
      {"", 022, 0644},
  };
  for (const Case& c : cases) {
    GitConfig cfg;
    if (c.value) cfg.Add(Entry("core.sharedrepository", std::string(c.value)));
    auto mode = SharedFilePermissions(cfg, c.umask);
    ASSERT_TRUE(mode.ok()) << (c.value ? c.value : "(unset)");
    EXPECT_EQ(*mode, c.mode) << (c.value ? c.value : "(unset)") << " umask " << std::oct << c.umask;
  }
  GitConfig implicit;
  implicit.Add(Entry("core.sharedrepository", std::nullopt));
  EXPECT_EQ(*SharedFilePermissions(implicit, 077), 0660u) << "no value means group";
  const std::pair<const char*, const char*> bad[] = {
      {"weird", "bad boolean config value 'weird' for 'core.sharedrepository'"},
      {"Group", "bad boolean config value 'Group' for 'core.sharedrepository'"},
      {"0200",
       "problem with core.sharedRepository filemode value (0200).\nThe owner of files must "
       "always have read and write permissions."},
      {"3",
       "problem with core.sharedRepository filemode value (0003).\nThe owner of files must "
       "always have read and write permissions."},
  };
  for (const auto& [value, message] : bad) {
    GitConfig cfg;
    cfg.Add(Entry("core.sharedrepository", std::string(value)));
    EXPECT_EQ(SharedFilePermissions(cfg, 022).status().message(), message) << value;
  }
  // Executable files get the read bits as execute bits too (calc_shared_perm).
  EXPECT_EQ(ApplySharedRepository(0660, 0755), 0775u);
  EXPECT_EQ(ApplySharedRepository(-0640, 0700), 0750u);
  EXPECT_EQ(ApplySharedRepository(0664, 0444), 0444u) << "no write bits added to read-only files";
}

// ---------------------------------------------------------------------------------------------
// Levels and includes

class GitConfigLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    git_dir_ = tmp_.Subdir("repo/.git");
    home_ = tmp_.Subdir("home");
    repo_.common_dir = git_dir_;
    repo_.git_dir = git_dir_;
    repo_.work_tree = tmp_.path() + "/repo";
  }
  std::map<std::string, std::string> BaseVars() const {
    return {{"HOME", home_}, {"GIT_CONFIG_NOSYSTEM", "1"}};
  }
  Result<GitConfig> Load(std::map<std::string, std::string> vars) const {
    return LoadGitConfig(repo_, Env(std::move(vars)));
  }
  void Local(const std::string& text) const { WriteFileOrDie(git_dir_ + "/config", text); }

  TempDir tmp_{"gitcfg"};
  std::string git_dir_, home_;
  GitConfigRepository repo_;
};

TEST_F(GitConfigLoadTest, LevelsInGitsOrder) {
  std::string sys = tmp_.path() + "/system";
  WriteFileOrDie(sys, "[a]\n\tlevel = system\n");
  tmp_.Subdir("home/xdg/git");
  WriteFileOrDie(home_ + "/xdg/git/config", "[a]\n\tlevel = xdg\n");
  WriteFileOrDie(home_ + "/.gitconfig", "[a]\n\tlevel = home\n");
  Local("[a]\n\tlevel = local\n[extensions]\n\tworktreeConfig = true\n");
  WriteFileOrDie(git_dir_ + "/config.worktree", "[a]\n\tlevel = worktree\n");
  auto vars = BaseVars();
  vars.erase("GIT_CONFIG_NOSYSTEM");
  vars["GIT_CONFIG_SYSTEM"] = sys;
  vars["XDG_CONFIG_HOME"] = home_ + "/xdg";
  vars["GIT_CONFIG_COUNT"] = "2";
  vars["GIT_CONFIG_KEY_0"] = "A.Level";
  vars["GIT_CONFIG_VALUE_0"] = "count";
  vars["GIT_CONFIG_KEY_1"] = "a.Sub.Flag";
  vars["GIT_CONFIG_VALUE_1"] = "";
  vars["GIT_CONFIG_PARAMETERS"] = "'a.level'='param' 'a.implicit'= 'a.old=style' 'a.q'='it'\\''s'";
  auto c = Load(vars);
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<std::string> levels;
  for (const ConfigEntry* e : c->All("a.level")) levels.push_back(*e->value);
  EXPECT_EQ(levels, (std::vector<std::string>{"system", "xdg", "home", "local", "worktree", "count",
                                              "param"}));
  EXPECT_EQ(c->Last("a.level")->scope, ConfigScope::kCommand);
  EXPECT_EQ(c->Last("a.level")->file, "");
  EXPECT_EQ(c->Get("a.Sub.flag"), std::optional<std::string>(""));
  EXPECT_FALSE(c->Last("a.implicit")->value.has_value());
  EXPECT_EQ(c->Get("a.old"), std::optional<std::string>("style"));
  EXPECT_EQ(c->Get("a.q"), std::optional<std::string>("it's"));

  // GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL, and no config.worktree without the extension.
  Local("[a]\n\tlevel = local\n");
  WriteFileOrDie(tmp_.path() + "/global", "[a]\n\tlevel = global\n");
  auto d = Load({{"HOME", home_},
                 {"GIT_CONFIG_NOSYSTEM", "true"},
                 {"GIT_CONFIG_SYSTEM", sys},
                 {"GIT_CONFIG_GLOBAL", tmp_.path() + "/global"}});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(ListLines(*d), "a.level=global\na.level=local\n");
}

TEST_F(GitConfigLoadTest, CommandLineErrors) {
  const std::pair<std::map<std::string, std::string>, const char*> cases[] = {
      {{{"GIT_CONFIG_COUNT", "x"}}, "unable to parse command-line config"},
      {{{"GIT_CONFIG_COUNT", "1"}}, "unable to parse command-line config"},
      {{{"GIT_CONFIG_PARAMETERS", "'nodot'='x'"}}, "unable to parse command-line config"},
      {{{"GIT_CONFIG_PARAMETERS", "'a.1b'='x'"}}, "unable to parse command-line config"},
      {{{"GIT_CONFIG_PARAMETERS", "unquoted"}}, "unable to parse command-line config"},
      {{{"GIT_CONFIG_PARAMETERS", "'include.path'='relative'"}},
       "unable to parse command-line config"},
      {{{"GIT_CONFIG_NOSYSTEM", "sure"}},
       "bad boolean environment value 'sure' for 'GIT_CONFIG_NOSYSTEM'"},
  };
  for (const auto& [extra, message] : cases) {
    auto vars = BaseVars();
    for (const auto& [k, v] : extra) vars[k] = v;
    EXPECT_EQ(Load(vars).status().message(), message) << extra.begin()->second;
  }  // An absolute include from the command line is read; its own errors are its own.
  WriteFileOrDie(tmp_.path() + "/bad", "[x\n");
  WriteFileOrDie(tmp_.path() + "/good", "[x]\n\ty = 1\n");
  auto vars = BaseVars();
  vars["GIT_CONFIG_PARAMETERS"] = "'include.path'='" + tmp_.path() + "/good'";
  EXPECT_EQ(Load(vars)->Get("x.y"), std::optional<std::string>("1"));
  vars["GIT_CONFIG_PARAMETERS"] = "'include.path'='" + tmp_.path() + "/bad'";
  EXPECT_EQ(Load(vars).status().message(), "bad config line 1 in file " + tmp_.path() + "/bad");
}

TEST_F(GitConfigLoadTest, IncludesRelativeNestedAndHome) {
  tmp_.Subdir("repo/.git/inc");
  Local("[a]\n\tv = 1\n[include]\n\tpath = inc/one\n[a]\n\tv = 4\n[include]\n\tpath = missing\n");
  WriteFileOrDie(git_dir_ + "/inc/one", "[a]\n\tv = 2\n[include]\n\tpath = two\n");
  WriteFileOrDie(git_dir_ + "/inc/two", "[a]\n\tv = 3\n[include]\n\tpath = ~/three\n");
  WriteFileOrDie(home_ + "/three", "[reftable]\n\tblockSize = 1024\n");
  auto c = Load(BaseVars());
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<std::string> vs;
  for (const ConfigEntry* e : c->All("a.v")) vs.push_back(*e->value);
  EXPECT_EQ(vs, (std::vector<std::string>{"1", "2", "3", "4"})) << "included where the line is";
  EXPECT_EQ(c->Last("reftable.blocksize")->file, home_ + "/three");
  EXPECT_EQ(c->Last("a.v")->file, git_dir_ + "/config");
  EXPECT_EQ(c->All("a.v")[2]->file, git_dir_ + "/inc/two") << "relative to the including file";
  EXPECT_EQ(c->All("include.path").size(), 4u) << "the directives themselves are entries too";
}

TEST_F(GitConfigLoadTest, IncludeDepthAndCycles) {
  // Ten levels of nesting are allowed, the eleventh is not (git's MAX_INCLUDE_DEPTH).
  Local("[include]\n\tpath = n1\n");
  for (int i = 1; i <= 10; ++i) {
    std::string text = "[x]\n\tdepth = " + std::to_string(i) + "\n";
    if (i < 10) text += "[include]\n\tpath = n" + std::to_string(i + 1) + "\n";
    WriteFileOrDie(git_dir_ + "/n" + std::to_string(i), text);
  }
  auto ok = Load(BaseVars());
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->Get("x.depth"), std::optional<std::string>("10"));
  WriteFileOrDie(git_dir_ + "/n10", "[include]\n\tpath = n11\n");
  WriteFileOrDie(git_dir_ + "/n11", "[x]\n\tdepth = 11\n");
  EXPECT_EQ(Load(BaseVars()).status().message(),
            "exceeded maximum include depth (10) while including\n\t" + git_dir_ +
                "/n11\nfrom\n\t" + git_dir_ + "/n10\nThis might be due to circular includes.");
  Local("[include]\n\tpath = loop\n");
  WriteFileOrDie(git_dir_ + "/loop", "[include]\n\tpath = loop\n");
  EXPECT_EQ(Load(BaseVars()).status().message(),
            "exceeded maximum include depth (10) while including\n\t" + git_dir_ +
                "/loop\nfrom\n\t" + git_dir_ + "/loop\nThis might be due to circular includes.");
  // A directive without a value is a bad line of the including file.
  Local("[include]\n\tpath = missing\n[include]\n\tpath\n");
  EXPECT_EQ(Load(BaseVars()).status().message(),
            "bad config line 4 in file " + git_dir_ + "/config");
}

TEST_F(GitConfigLoadTest, IncludeIfGitdirWorktreeOnbranchHasconfig) {
  WriteFileOrDie(tmp_.path() + "/yes", "[r]\n\thit = yes\n");
  WriteFileOrDie(tmp_.path() + "/no", "[r]\n\thit = no\n");
  const std::string yes = tmp_.path() + "/yes", no = tmp_.path() + "/no";
  std::string real_repo = repo_.work_tree.value();
  struct Case {
    std::string condition;
    bool included;
  };
  const std::vector<Case> cases = {
      {"gitdir:" + git_dir_, true},
      {"gitdir:" + real_repo + "/", true},
      {"gitdir:" + tmp_.path() + "/", true},
      {"gitdir:repo/.git", true},
      {"gitdir:**/repo/**", true},
      {"gitdir:" + tmp_.path() + "/*/.git", true},
      {"gitdir:" + tmp_.path() + "/other/", false},
      {"gitdir:REPO/.git", false},
      {"gitdir/i:REPO/.GIT", true},
      {"gitdir:./", false},  // "./" is the including file's directory, and only below it
      {"gitdir:~/", false},
      {"worktree:" + real_repo, true},
      {"worktree:" + real_repo + "/sub", false},
      {"onbranch:main", true},
      {"onbranch:ma*", true},
      {"onbranch:feature/", false},
      {"onbranch:mai", false},
      {"hasconfig:remote.*.url:https://example.com/**", true},
      {"hasconfig:remote.*.url:git@*", false},
      {"unknown:x", false},
  };
  int head_reads = 0;
  repo_.head_target = [&]() -> Result<std::optional<std::string>> {
    ++head_reads;
    return std::optional<std::string>("refs/heads/main");
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.condition);
    Local("[remote \"origin\"]\n\turl = https://example.com/r.git\n[includeIf \"" + c.condition +
          "\"]\n\tpath = " + yes + "\n");
    auto cfg = Load(BaseVars());
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    EXPECT_EQ(cfg->Get("r.hit").has_value(), c.included);
  }
  EXPECT_EQ(head_reads, 4) << "HEAD is read only for onbranch conditions, once per load";
  repo_.head_target = [] {
    return Result<std::optional<std::string>>(std::optional<std::string>());
  };
  Local("[includeIf \"onbranch:**\"]\n\tpath = " + yes + "\n");
  EXPECT_FALSE(Load(BaseVars())->Get("r.hit").has_value()) << "detached HEAD: no branch";
  // A file included through hasconfig may not itself set remote URLs (git's second pass).
  WriteFileOrDie(no, "[remote \"x\"]\n\turl = https://example.com/y\n");
  Local(
      "[remote \"origin\"]\n\turl = https://example.com/r.git\n"
      "[includeIf \"hasconfig:remote.*.url:https://**\"]\n\tpath = " +
      no + "\n");
  EXPECT_EQ(Load(BaseVars()).status().message(),
            "remote URLs cannot be configured in file directly or indirectly included by "
            "includeIf.hasconfig:remote.*.url");
}

TEST(WildMatchTest, PathnameRules) {
  EXPECT_TRUE(WildMatchPath("a/*/c", "a/b/c"));
  EXPECT_FALSE(WildMatchPath("a/*", "a/b/c"));
  EXPECT_TRUE(WildMatchPath("a/**", "a/b/c"));
  EXPECT_TRUE(WildMatchPath("**/c", "a/b/c"));
  EXPECT_TRUE(WildMatchPath("a/**/c", "a/c"));
  EXPECT_TRUE(WildMatchPath("a/**/c", "a/x/y/c"));
  EXPECT_FALSE(WildMatchPath("a**c", "a/b/c")) << "** inside a segment is one star";
  EXPECT_TRUE(WildMatchPath("a?c", "abc"));
  EXPECT_FALSE(WildMatchPath("a?c", "a/c"));
  EXPECT_TRUE(WildMatchPath("[a-c]x", "bx"));
  EXPECT_TRUE(WildMatchPath("[!a-c]x", "dx"));
  EXPECT_TRUE(WildMatchPath("[]]", "]"));
  EXPECT_TRUE(WildMatchPath("[[:digit:]]", "7"));
  EXPECT_FALSE(WildMatchPath("[[:nope:]]", "7"));
  EXPECT_TRUE(WildMatchPath("\\*", "*"));
  EXPECT_FALSE(WildMatchPath("\\*", "x"));
  EXPECT_TRUE(WildMatchPath("ABC", "abc", true));
  EXPECT_FALSE(WildMatchPath("ABC", "abc", false));
  EXPECT_FALSE(WildMatchPath("[a", "a"));
}

// Without WM_PATHNAME '/' is an ordinary character (gc.<pattern>.reflogExpire).
TEST(WildMatchTest, PlainRules) {
  EXPECT_TRUE(WildMatch("a/*", "a/b/c"));
  EXPECT_TRUE(WildMatch("a*c", "a/b/c"));
  EXPECT_TRUE(WildMatch("a**c", "a/b/c"));
  EXPECT_TRUE(WildMatch("a?c", "a/c"));
  EXPECT_TRUE(WildMatch("a[/]c", "a/c"));
  EXPECT_TRUE(WildMatch("refs/heads/*", "refs/heads/topic/x"));
  EXPECT_FALSE(WildMatch("refs/heads/*", "refs/tags/v1"));
  EXPECT_TRUE(WildMatch("*", ""));
  EXPECT_FALSE(WildMatch("a*b", "a/c"));
}

// ---------------------------------------------------------------------------------------------
// GitRepo::Open

std::string MakeRepo(const TempDir& tmp, const std::string& config) {
  std::string g = tmp.Subdir("r/.git");
  tmp.Subdir("r/.git/reftable");
  WriteFileOrDie(g + "/HEAD", "ref: refs/heads/.invalid\n");
  WriteFileOrDie(g + "/reftable/tables.list", "");
  WriteFileOrDie(g + "/config", config);
  return g;
}

TEST(GitRepoConfigTest, WriteSettingsFailOpenForWritersOnly) {
  TempDir tmp("repocfg");
  std::string g = MakeRepo(tmp, "[core]\n\tbare = false\n[reftable]\n\tblockSize = abc\n");
  auto rw = GitRepo::Open(g, StackOptions());
  ASSERT_FALSE(rw.ok());
  EXPECT_EQ(rw.status().message(),
            "bad numeric config value 'abc' for 'reftable.blocksize' in file " + g +
                "/config: invalid unit");
  auto ro = GitRepo::Open(g, StackOptions(), GitRepoAccess::kReadOnly);
  ASSERT_TRUE(ro.ok()) << ro.status().message();
  EXPECT_EQ((*ro)->write_settings_status().message(), rw.status().message());
  EXPECT_EQ((*ro)->main_stack().options().write_options.block_size, kDefaultBlockSize);
  // Problems every git command dies on fail both.
  WriteFileOrDie(g + "/config", "[core]\n\tbare = maybe\n");
  EXPECT_EQ(GitRepo::Open(g, StackOptions(), GitRepoAccess::kReadOnly).status().message(),
            "bad boolean config value 'maybe' for 'core.bare'");
  WriteFileOrDie(g + "/config", "[core\n");
  EXPECT_EQ(GitRepo::Open(g, StackOptions(), GitRepoAccess::kReadOnly).status().message(),
            "bad config line 1 in file " + g + "/config");
}

TEST(GitRepoConfigTest, SettingsThroughIncludesAndFileMode) {
  TempDir tmp("repocfg");
  std::string g = MakeRepo(tmp, "[include]\n\tpath = more\n[core]\n\tsharedRepository = 0640\n");
  WriteFileOrDie(g + "/more",
                 "[reftable]\n\tblockSize = 1024\n\trestartInterval = 3\n"
                 "[core]\n\tlogAllRefUpdates = always\n");
  auto repo = GitRepo::Open(g, StackOptions());
  ASSERT_TRUE(repo.ok()) << repo.status().message();
  EXPECT_EQ((*repo)->main_stack().options().write_options.block_size, 1024u);
  EXPECT_EQ((*repo)->main_stack().options().write_options.restart_interval, 3u);
  EXPECT_EQ((*repo)->file_mode(), 0640u);
  EXPECT_EQ((*repo)->log_all_ref_updates(), LogRefUpdates::kAlways);
}

// ---------------------------------------------------------------------------------------------
// Against the real git

class GitAgreesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto git = testing::FindReftableGit(&why);
    if (!git) REFTAB_SKIP_WITHOUT_GIT(why);
    git_ = *git;
    home_ = tmp_.Subdir("home");
    template_ = tmp_.Subdir("template");
    ASSERT_EQ(Git(template_, {"init", "-q", "-b", "main", "--ref-format=reftable", "."}).exit_code,
              0);
    ASSERT_EQ(Git(template_, {"commit", "-q", "--allow-empty", "-m", "x"}).exit_code, 0);
    base_config_ = testutil::ReadFileOr(template_ + "/.git/config");
  }
  void TearDown() override {
    if (!git_.empty())
      std::printf("[ compared ] %d cases with %s, %d agree\n", compared_, git_.c_str(), agreed_);
  }

  std::map<std::string, std::string> GitEnv() const {
    return {{"HOME", home_},
            {"XDG_CONFIG_HOME", home_ + "/xdg"},
            {"GIT_CONFIG_NOSYSTEM", "1"},
            {"GIT_COMMITTER_NAME", "C"},
            {"GIT_COMMITTER_EMAIL", "c@example.com"},
            {"GIT_COMMITTER_DATE", "1700000000 +0000"},
            {"GIT_AUTHOR_NAME", "A"},
            {"GIT_AUTHOR_EMAIL", "a@example.com"},
            {"GIT_AUTHOR_DATE", "1700000000 +0000"},
            {"GIT_TEST_REFTABLE_AUTOCOMPACTION", "false"}};
  }
  testing::ProcessResult Git(const std::string& cwd, std::vector<std::string> args,
                             const std::map<std::string, std::string>& extra = {},
                             const std::string& umask = "") const {
    testing::ProcessOptions o;
    o.cwd = cwd;
    o.env = GitEnv();
    for (const auto& [k, v] : extra) o.env[k] = v;
    std::vector<std::string> argv = {git_};
    argv.insert(argv.end(), args.begin(), args.end());
    if (umask.empty()) return testing::RunProcess(argv, o);
    std::vector<std::string> sh = {"/bin/sh", "-c", "umask " + umask + " && exec \"$@\"", "sh"};
    sh.insert(sh.end(), argv.begin(), argv.end());
    return testing::RunProcess(sh, o);
  }
  // A fresh copy of the template repository with `extra` appended to its config; returns
  // the work tree.
  std::string Repo(const std::string& extra_config) {
    std::string dir = tmp_.Subdir("r" + std::to_string(++repos_));
    testutil::CopyDirContents(template_, dir);
    WriteFileOrDie(dir + "/.git/config", base_config_ + extra_config);
    return dir;
  }
  void Count(bool agree) {
    ++compared_;
    agreed_ += agree ? 1 : 0;
  }

  TempDir tmp_{"gitagree"};
  std::string git_, home_, template_, base_config_;
  int repos_ = 0, compared_ = 0, agreed_ = 0;
};

// Sets process variables for GitRepo::Open (which reads the process's), restoring them after.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      saved_.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) {
        setenv(k.c_str(), v->c_str(), 1);
      } else {
        unsetenv(k.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

struct ConfigCase {
  std::string config;                        // appended to the repository's config
  std::map<std::string, std::string> files;  // name (relative to the work tree) -> text
  std::map<std::string, std::string> env;
  std::string branch;  // checked out first (onbranch)
};

TEST_F(GitAgreesTest, ConfigValues) {
  const std::vector<ConfigCase> cases = {
      {"[Core]\n\tBare = false ; c\n\tq = \"a # b\" \n\te = \"t\\tx\\\\ \\\"q\\\"\"\n\tflag\n"
       "\tempty =\n\tsp =   a   b  \t\n\tmix = a\" b \"c\n\tcont = one\\\ntwo\n"
       "[remote \"Or\\\"ig\"]\n\turl = u\n[Branch.Main] Remote = o\r\n[m]\n\tv = 1\n\tv = 2\n",
       {},
       {},
       ""},
      {"[A.B.C]\n\tK = v\n[x \"\"]\n\ty = 1\n[x \"s p\"]z=\"q;#\" ; c\n[t]\n\tb = a\\bc\n"
       "\tn = a\\nb\n\tlast = end\\",
       {},
       {},
       ""},
      {"[a]k=1\n\n\t  \n# c\n; c\n[a] [b] k = 2\n[c]k=\"\"\n[d]\n\tk = \" lead\"\n", {}, {}, ""},
      {"[include]\n\tpath = inc/one\n[a]\n\tafter = 1\n[include]\n\tpath = missing\n",
       {{".git/inc/one", "[a]\n\tone = 1\n[include]\n\tpath = two\n"},
        {".git/inc/two", "[a]\n\ttwo = 2\n[include]\n\tpath = ~/three\n"},
        {"../home/three", "[a]\n\tthree = 3\n"}},
       {},
       ""},
      {"[includeIf \"gitdir:**/r*/.git\"]\n\tpath = ../yes\n[includeIf \"gitdir:/nowhere/\"]\n"
       "\tpath = ../no\n[includeIf \"gitdir/i:**/R*/.GIT\"]\n\tpath = ../yes-i\n"
       "[includeIf \"gitdir:./\"]\n\tpath = ../dot\n[includeIf \"worktree:**/r*\"]\n\tpath = "
       "../wt\n",
       {{"yes", "[a]\n\tyes = 1\n"},
        {"no", "[a]\n\tno = 1\n"},
        {"yes-i", "[a]\n\tyesi = 1\n"},
        {"dot", "[a]\n\tdot = 1\n"},
        {"wt", "[a]\n\twt = 1\n"}},
       {},
       ""},
      {"[includeIf \"onbranch:main\"]\n\tpath = ../main\n[includeIf \"onbranch:feature/\"]\n"
       "\tpath = ../feature\n",
       {{"main", "[a]\n\tmain = 1\n"}, {"feature", "[a]\n\tfeature = 1\n"}},
       {},
       ""},
      {"[includeIf \"onbranch:main\"]\n\tpath = ../main\n[includeIf \"onbranch:feature/\"]\n"
       "\tpath = ../feature\n",
       {{"main", "[a]\n\tmain = 1\n"}, {"feature", "[a]\n\tfeature = 1\n"}},
       {},
       "feature/x"},
      {"[remote \"origin\"]\n\turl = https://example.com/r.git\n"
       "[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = ../has\n"
       "[includeIf \"hasconfig:remote.*.url:git@*\"]\n\tpath = ../hasnot\n",
       {{"has", "[a]\n\thas = 1\n"}, {"hasnot", "[a]\n\thasnot = 1\n"}},
       {},
       ""},
      {"[extensions]\n\tworktreeConfig = true\n[a]\n\tlevel = local\n",
       {{".git/config.worktree", "[a]\n\tlevel = worktree\n"},
        {"../home/.gitconfig", "[a]\n\tlevel = home\n"},
        {"../home/xdg/git/config", "[a]\n\tlevel = xdg\n"}},
       {{"GIT_CONFIG_COUNT", "1"},
        {"GIT_CONFIG_KEY_0", "A.Sub.Level"},
        {"GIT_CONFIG_VALUE_0", "count"},
        {"GIT_CONFIG_PARAMETERS", "'a.level'='param' 'a.implicit'= 'a.old=style'"}},
       ""},
  };
  for (const ConfigCase& c : cases) {
    SCOPED_TRACE(c.config);
    std::string dir = Repo(c.config);
    for (const auto& [name, text] : c.files) {
      std::string path = dir + "/" + name;
      std::string parent = path.substr(0, path.rfind('/'));
      ASSERT_EQ(testing::RunProcess({"mkdir", "-p", parent}).exit_code, 0);
      WriteFileOrDie(path, text);
    }
    if (!c.branch.empty()) {
      ASSERT_EQ(Git(dir, {"checkout", "-q", "-b", c.branch}).exit_code, 0);
    }
    testing::ProcessResult git = Git(dir, {"config", "--list", "-z"}, c.env);
    ASSERT_EQ(git.exit_code, 0) << git.err;
    auto env = GitEnv();
    for (const auto& [k, v] : c.env) env[k] = v;
    GitConfigRepository where;
    where.common_dir = where.git_dir = dir + "/.git";
    where.work_tree = dir;
    where.head_target = [&]() -> Result<std::optional<std::string>> {
      auto repo = GitRepo::Open(dir + "/.git", StackOptions(), GitRepoAccess::kReadOnly);
      if (!repo.ok()) return repo.status();
      RefRecord head;
      bool found = false;
      REFTAB_RETURN_IF_ERROR((*repo)->ReadRef("HEAD", &head, &found));
      if (!found || head.value_type != RefValueType::kSymref) return std::optional<std::string>();
      return std::optional<std::string>(head.target);
    };
    auto ours = LoadGitConfig(where, Env(env));
    ASSERT_TRUE(ours.ok()) << ours.status().message();
    EXPECT_EQ(ListLines(*ours), GitListLines(git.out));
    Count(ListLines(*ours) == GitListLines(git.out));
  }
}

// In a linked worktree: gitdir: sees .git/worktrees/<id>, onbranch: the worktree's HEAD,
// config.worktree the worktree's own file; GitRepo::Open reads what git reads there.
TEST_F(GitAgreesTest, LinkedWorktreeConfig) {
  std::string dir = Repo(
      "[extensions]\n\tworktreeConfig = true\n"
      "[includeIf \"onbranch:side\"]\n\tpath = ../../side.inc\n"
      "[includeIf \"onbranch:main\"]\n\tpath = ../../main.inc\n"
      "[includeIf \"gitdir:**/worktrees/**\"]\n\tpath = ../../linked.inc\n");
  ASSERT_EQ(Git(dir, {"worktree", "add", "-q", "../wtree", "-b", "side"}).exit_code, 0);
  WriteFileOrDie(tmp_.path() + "/side.inc", "[a]\n\tside = 1\n");
  WriteFileOrDie(tmp_.path() + "/main.inc", "[a]\n\tmain = 1\n");
  WriteFileOrDie(tmp_.path() + "/linked.inc", "[a]\n\tlinked = 1\n");
  WriteFileOrDie(dir + "/.git/config.worktree", "[a]\n\tlevel = main-worktree\n");
  WriteFileOrDie(dir + "/.git/worktrees/wtree/config.worktree", "[a]\n\tlevel = linked\n");
  for (const std::string& at : {dir, tmp_.path() + "/wtree"}) {
    SCOPED_TRACE(at);
    testing::ProcessResult git = Git(at, {"config", "--list", "-z"});
    ASSERT_EQ(git.exit_code, 0) << git.err;
    const std::string g = at == dir ? dir + "/.git" : dir + "/.git/worktrees/wtree";
    auto repo = GitRepo::Open(g, StackOptions());
    ASSERT_TRUE(repo.ok()) << repo.status().message();
    EXPECT_EQ(ListLines((*repo)->config()), GitListLines(git.out));
    Count(ListLines((*repo)->config()) == GitListLines(git.out));
    const bool linked = at != dir;
    EXPECT_EQ((*repo)->config().Get("a.side").has_value(), linked);
    EXPECT_EQ((*repo)->config().Get("a.linked").has_value(), linked);
    EXPECT_EQ((*repo)->config().Get("a.main").has_value(), !linked);
    EXPECT_EQ((*repo)->config().Get("a.level"),
              std::optional<std::string>(linked ? "linked" : "main-worktree"));
  }
}

// git's stderr ends with "fatal: " + our message (an "error:" line may come first).
bool SameFatal(const std::string& git_err, const std::string& ours) {
  const std::string want = "fatal: " + ours + "\n";
  return git_err.size() >= want.size() &&
         git_err.compare(git_err.size() - want.size(), want.size(), want) == 0;
}

TEST_F(GitAgreesTest, ErrorsEveryCommandDiesOn) {
  const std::vector<ConfigCase> cases = {
      {"[core\n", {}, {}, ""},
      {"[core]\n\tx = \"unterminated\n", {}, {}, ""},
      {"[core]\n\tx = a\\qb\n", {}, {}, ""},
      {"[core]\n1x = a\n", {}, {}, ""},
      {"[a \"b]\n", {}, {}, ""},
      {"[core]\n\tx = \"a\\\nb\n", {}, {}, ""},
      {"[include]\n\tpath = missing\n[include]\n\tpath\n", {}, {}, ""},
      {"[include]\n\tpath = loop\n", {{".git/loop", "[include]\n\tpath = loop\n"}}, {}, ""},
      {"[include]\n\tpath = bad\n", {{".git/bad", "[x]\n\ty = \"\n"}}, {}, ""},
      {"[core]\n\tbare = maybe\n", {}, {}, ""},
      {"[core]\n\trepositoryFormatVersion = abc\n", {}, {}, ""},
      {"", {}, {{"GIT_CONFIG_PARAMETERS", "'nodot'='x'"}}, ""},
      {"", {}, {{"GIT_CONFIG_COUNT", "1"}}, ""},
  };
  for (const ConfigCase& c : cases) {
    SCOPED_TRACE(c.config);
    std::string dir = Repo(c.config);
    for (const auto& [name, text] : c.files) WriteFileOrDie(dir + "/" + name, text);
    const std::string g = dir + "/.git";
    testing::ProcessResult git = Git(dir, {"--git-dir=" + g, "for-each-ref"}, c.env);
    EXPECT_EQ(git.exit_code, 128) << git.err;
    ScopedEnv scoped(c.env);
    auto ours = GitRepo::Open(g, StackOptions(), GitRepoAccess::kReadOnly);
    ASSERT_FALSE(ours.ok());
    EXPECT_TRUE(SameFatal(git.err, ours.status().message()))
        << "git: " << git.err << "ours: " << ours.status().message();
    Count(git.exit_code == 128 && SameFatal(git.err, ours.status().message()));
  }
}

TEST_F(GitAgreesTest, WriteSettingErrorsStopWritersOnly) {
  const std::vector<ConfigCase> cases = {
      {"[reftable]\n\tblockSize = abc\n", {}, {}, ""},
      {"[reftable]\n\tblockSize = -1\n", {}, {}, ""},
      {"[reftable]\n\tblockSize\n", {}, {}, ""},
      {"[reftable]\n\tblockSize = 99999999999999999999\n", {}, {}, ""},
      {"[reftable]\n\tblockSize = 16777216\n", {}, {}, ""},
      {"[reftable]\n\trestartInterval = 70000\n", {}, {}, ""},
      {"[reftable]\n\tindexObjects = maybe\n", {}, {}, ""},
      {"[reftable]\n\tgeometricFactor = 300\n", {}, {}, ""},
      {"[reftable]\n\tlockTimeout = -5\n", {}, {}, ""},
      {"[reftable]\n\tlockTimeout = 1x\n", {}, {}, ""},
      {"[core]\n\tlogAllRefUpdates = weird\n", {}, {}, ""},
      {"[core]\n\tsharedRepository = weird\n", {}, {}, ""},
      {"[core]\n\tsharedRepository = 0200\n", {}, {}, ""},
      {"[core]\n\tsharedRepository = 3\n", {}, {}, ""},
      {"[reftable]\n\tindexObjects = maybe\n\tblockSize = abc\n[core]\n\tsharedRepository = no "
       "way\n",
       {},
       {},
       ""},
      {"[reftable]\n\tblockSize = abc\n\tblockSize = 4k\n", {}, {}, ""},
      {"[include]\n\tpath = more\n",
       {{".git/more", "[reftable]\n\tgeometricFactor = x\n"}},
       {},
       ""},
      {"", {}, {{"GIT_CONFIG_PARAMETERS", "'reftable.blockSize'='xyz'"}}, ""},
      {"",
       {},
       {{"GIT_CONFIG_COUNT", "1"},
        {"GIT_CONFIG_KEY_0", "reftable.indexObjects"},
        {"GIT_CONFIG_VALUE_0", "perhaps"}},
       ""},
  };
  for (const ConfigCase& c : cases) {
    SCOPED_TRACE(c.config);
    std::string dir = Repo(c.config);
    for (const auto& [name, text] : c.files) WriteFileOrDie(dir + "/" + name, text);
    const std::string g = dir + "/.git";
    testing::ProcessResult reader = Git(dir, {"--git-dir=" + g, "for-each-ref"}, c.env);
    testing::ProcessResult writer =
        Git(dir, {"--git-dir=" + g, "update-ref", "refs/heads/x", "HEAD"}, c.env);
    EXPECT_EQ(reader.exit_code, 0) << reader.err;
    EXPECT_EQ(writer.exit_code, 128) << writer.err;
    ScopedEnv scoped(c.env);
    auto ro = GitRepo::Open(g, StackOptions(), GitRepoAccess::kReadOnly);
    ASSERT_TRUE(ro.ok()) << ro.status().message();
    auto rw = GitRepo::Open(g, StackOptions());
    ASSERT_FALSE(rw.ok());
    EXPECT_EQ((*ro)->write_settings_status().message(), rw.status().message());
    EXPECT_TRUE(SameFatal(writer.err, rw.status().message()))
        << "git: " << writer.err << "ours: " << rw.status().message();
    Count(reader.exit_code == 0 && writer.exit_code == 128 &&
          SameFatal(writer.err, rw.status().message()));
  }
}

// The mode of the files git writes under reftable/ equals SharedFilePermissions.
TEST_F(GitAgreesTest, FileModes) {
  const char* values[] = {nullptr,     "umask", "false", "group", "true", "1",    "all",  "world",
                          "everybody", "2",     "0600",  "0640",  "0660", "0644", "0664", "0666"};
  const char* umasks[] = {"022", "077", "002", "027"};
  for (const char* value : values) {
    for (const char* um : umasks) {
      SCOPED_TRACE(std::string(value ? value : "(unset)") + " umask " + um);
      std::string config = value ? std::string("[core]\n\tsharedRepository = ") + value + "\n" : "";
      std::string dir = Repo(config);
      testing::ProcessResult w = Git(dir, {"update-ref", "refs/heads/n", "HEAD"}, {}, um);
      ASSERT_EQ(w.exit_code, 0) << w.err;
      std::string list = testutil::ReadFileOr(dir + "/.git/reftable/tables.list");
      std::string newest = list.substr(0, list.size() - 1);
      newest = newest.substr(newest.rfind('\n') + 1);
      struct stat table_st, list_st;
      ASSERT_EQ(stat((dir + "/.git/reftable/" + newest).c_str(), &table_st), 0) << newest;
      ASSERT_EQ(stat((dir + "/.git/reftable/tables.list").c_str(), &list_st), 0);
      auto cfg = GitConfig::ParseText(testutil::ReadFileOr(dir + "/.git/config"), "config");
      ASSERT_TRUE(cfg.ok());
      auto ours = SharedFilePermissions(*cfg, uint32_t(std::strtoul(um, nullptr, 8)));
      ASSERT_TRUE(ours.ok()) << ours.status().message();
      EXPECT_EQ(table_st.st_mode & 07777, *ours) << std::oct << (table_st.st_mode & 07777);
      EXPECT_EQ(list_st.st_mode & 07777, *ours) << std::oct << (list_st.st_mode & 07777);
      Count((table_st.st_mode & 07777) == *ours && (list_st.st_mode & 07777) == *ours);
    }
  }
  // `git init --shared=0600` as in the issue: git's own files are 0600; file_mode() agrees.
  std::string dir = tmp_.Subdir("shared0600");
  ASSERT_EQ(
      Git(dir, {"init", "-q", "--shared=0600", "--ref-format=reftable", "."}, {}, "022").exit_code,
      0);
  ASSERT_EQ(Git(dir, {"commit", "-q", "--allow-empty", "-m", "x"}, {}, "022").exit_code, 0);
  struct stat st;
  ASSERT_EQ(stat((dir + "/.git/reftable/tables.list").c_str(), &st), 0);
  auto repo = GitRepo::Open(dir + "/.git", StackOptions());
  ASSERT_TRUE(repo.ok()) << repo.status().message();
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ((*repo)->file_mode(), 0600u);
  Count((st.st_mode & 07777) == 0600u && (*repo)->file_mode() == 0600u);
}

// The case: settings behind include.path reach the writer (git wrote 1024-byte blocks,
// reftab 4096).
TEST_F(GitAgreesTest, BlockSizeThroughIncludeAsGitWritesIt) {
  std::string dir = Repo("[include]\n\tpath = reftable.inc\n");
  WriteFileOrDie(dir + "/.git/reftable.inc",
                 "[reftable]\n\tblockSize = 1024\n\trestartInterval = 4\n");
  ASSERT_EQ(Git(dir, {"update-ref", "refs/heads/n", "HEAD"}).exit_code, 0);
  auto repo = GitRepo::Open(dir + "/.git", StackOptions());
  ASSERT_TRUE(repo.ok()) << repo.status().message();
  const auto& tables = (*repo)->main_stack().snapshot()->tables();
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables.back()->header().block_size, 1024u) << "git's table";
  EXPECT_EQ((*repo)->main_stack().options().write_options.block_size, 1024u);
  EXPECT_EQ((*repo)->main_stack().options().write_options.restart_interval, 4u);
  Count(tables.back()->header().block_size ==
        (*repo)->main_stack().options().write_options.block_size);
}

}  // namespace
}  // namespace reftab

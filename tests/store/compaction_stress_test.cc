// Compaction under fire: reftab compacts one stack (CompactAll and AutoCompact, in their own
// process) while other processes append, clean and compact it; and, when a reftable-capable
// git is available, while git's own `update-ref --stdin` and `pack-refs` do so on a
// repository git created. The bug this guards against: a merged table that a concurrent clean
// deletes before the new tables.list names it, which leaves a list naming a missing file and
// a stack neither side can open.
//
// Outcomes only, never timing:
//   * every acknowledged transaction (Commit() returned OK, or git exited 0) is in the final
//     stack with its value;
//   * the stack opens at every check made while the others run, and at the end;
//   * at the end no table that tables.list names is missing.
// Bounded: each appender makes a fixed number of transactions; the compactors and cleaners
// loop until the appenders are done (and at most kMaxRounds times).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "store/git/repo.h"
#include "store/stack.h"
#include "tests/testutil/process.h"
#include "tests/testutil/real_git.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

constexpr int kTransactions = 40;  // per appender
constexpr int kMaxRounds = 20000;  // per compactor / cleaner: a bound, never reached

// Everything a child needs to know; children report through files and their exit status.
struct Plan {
  std::string stack_dir;  // the stack (a git repository's .git/reftable in the git runs)
  std::string git_dir;    // the git directory, or "" for a bare stack
  std::string work_tree;  // for `git -C`
  std::string git;        // the git binary, or ""
  std::string home;       // HOME for git
  std::string acks;       // directory of acknowledgement files, one per appender
  std::string stats;      // directory of per-looper counts, for the report
  std::string stop;       // exists once every appender is done
  std::string oid_hex;    // the value git appenders write ("" in bare runs)
};

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

StackOptions StressOptions() {
  StackOptions o;
  o.hash_id = HashId::kSha1;
  o.durability = Durability::kNone;
  o.lock_timeout_ms = 10000;
  o.auto_compact = true;
  return o;
}

// The stack a child works on: a bare stack, or the main stack of the git repository.
struct Opened {
  std::unique_ptr<Stack> bare;
  std::unique_ptr<GitRepo> repo;
  Stack* stack = nullptr;
};

Status OpenFor(const Plan& plan, const StackOptions& o, Opened* out) {
  if (plan.git_dir.empty()) {
    auto s = Stack::Open(plan.stack_dir, o);
    if (!s.ok()) return s.status();
    out->bare = std::move(*s);
    out->stack = out->bare.get();
    return Status::Ok();
  }
  auto r = GitRepo::Open(plan.git_dir, o);
  if (!r.ok()) return r.status();
  out->repo = std::move(*r);
  out->stack = &out->repo->main_stack();
  return Status::Ok();
}

std::string RefName(const std::string& who, int k) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "refs/heads/%s/k%03d", who.c_str(), k);
  return buf;
}

// The value a reftab appender writes: the git object in git runs, a test id otherwise.
ObjectId ValueFor(const Plan& plan, uint64_t n) {
  ObjectId id{};
  if (!plan.oid_hex.empty() && ParseHexId(plan.oid_hex, 20, &id)) return id;
  return testutil::TestId(n, 20);
}

// Appends one line to the child's acknowledgement file (O_APPEND, unbuffered: a line is
// there as soon as the transaction is acknowledged, whatever happens next).
void Acknowledge(int fd, const std::string& name, const ObjectId& value) {
  std::string line = name + " " + HexId(value, 20) + "\n";
  if (write(fd, line.data(), line.size()) != ssize_t(line.size())) _exit(90);
}

int OpenAckFile(const Plan& plan, const std::string& who) {
  int fd = open((plan.acks + "/" + who).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) _exit(91);
  return fd;
}

// A lock timeout is not a loss (the writer was told); anything else is the stack breaking.
bool Benign(const Status& s) {
  return s.ok() || s.code() == Code::kLockHeld || s.code() == Code::kOutdated;
}

[[noreturn]] void ReftabAppender(const Plan& plan, const std::string& who, int w) {
  Opened o;
  Status st = OpenFor(plan, StressOptions(), &o);
  if (!st.ok()) {
    std::fprintf(stderr, "%s: open: %s\n", who.c_str(), st.ToString().c_str());
    _exit(2);
  }
  int fd = OpenAckFile(plan, who);
  for (int k = 0; k < kTransactions; ++k) {
    ObjectId value = ValueFor(plan, uint64_t(w) * 1000 + uint64_t(k) + 1);
    Transaction tx = o.stack->NewTransaction();
    tx.Update(RefName(who, k), RefValue::Id(value), RefValue::Absent());
    st = tx.Commit();
    if (st.ok()) Acknowledge(fd, RefName(who, k), value);
    if (!Benign(st)) {
      std::fprintf(stderr, "%s: transaction %d: %s\n", who.c_str(), k, st.ToString().c_str());
      _exit(2);
    }
  }
  _exit(0);
}

[[noreturn]] void GitAppender(const Plan& plan, const std::string& who) {
  int fd = OpenAckFile(plan, who);
  ObjectId value{};
  if (!ParseHexId(plan.oid_hex, 20, &value)) _exit(92);
  for (int k = 0; k < kTransactions; ++k) {
    std::string input = "create " + RefName(who, k) + " " + plan.oid_hex + "\n";
    int rc = testutil::RunProgram(plan.git, {"-C", plan.work_tree, "update-ref", "--stdin"},
                                  plan.home, input);
    if (rc == 0) Acknowledge(fd, RefName(who, k), value);
  }
  _exit(0);
}

// Loops `step` until the appenders are done; a step that is not benign ends the child.
[[noreturn]] void Loop(const Plan& plan, const std::string& who, int64_t lock_timeout_ms,
                       const std::function<Status(Stack&, int)>& step) {
  StackOptions opts = StressOptions();
  opts.lock_timeout_ms = lock_timeout_ms;
  Opened o;
  Status st = OpenFor(plan, opts, &o);
  if (!st.ok()) {
    std::fprintf(stderr, "%s: open: %s\n", who.c_str(), st.ToString().c_str());
    _exit(2);
  }
  int ok = 0, lost_race = 0;
  for (int i = 0; i < kMaxRounds && !Exists(plan.stop); ++i) {
    st = o.stack->ReloadIfChanged();
    if (st.ok()) st = step(*o.stack, i);
    if (!Benign(st)) {
      std::fprintf(stderr, "%s: round %d: %s\n", who.c_str(), i, st.ToString().c_str());
      _exit(2);
    }
    ++(st.ok() ? ok : lost_race);
    // A short pause: a loop that retakes tables.list.lock at once would starve the
    // appenders, which back off between attempts as git's writers do.
    usleep(500);
  }
  std::string line = who + ": " + std::to_string(ok) + " ok, " + std::to_string(lost_race) +
                     " lost a race for a lock; ";
  int fd = open((plan.stats + "/" + who).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, line.data(), line.size()) != ssize_t(line.size())) _exit(93);
  close(fd);
  _exit(0);
}

// reftab's compactor under test: full and geometric compactions, alternately.
Status CompactStep(Stack& s, int i) { return i % 2 == 0 ? s.CompactAll() : s.AutoCompact(); }
// Another compactor: a random range.
Status RangeStep(Stack& s, int i) {
  size_t n = s.names().size();
  if (n < 2) return Status::Ok();
  std::minstd_rand rng(uint32_t(i) * 7919u + uint32_t(getpid()));
  size_t first = rng() % (n - 1);
  size_t last = first + 1 + rng() % (n - first - 1);
  Status st = s.CompactRange(first, last);
  // The stack may have shrunk between picking the range and compacting it.
  return st.code() == Code::kInvalidArgument ? Status::Ok() : st;
}
Status CleanStep(Stack& s, int) { return s.Clean(); }

[[noreturn]] void GitPacker(const Plan& plan) {
  for (int i = 0; i < kMaxRounds && !Exists(plan.stop); ++i) {
    // Failing to get the lock is fine; breakage shows in the checks. (Starting git takes
    // long enough to need no pause.)
    (void)testutil::RunProgram(plan.git, {"-C", plan.work_tree, "pack-refs", "--all"}, plan.home);
  }
  _exit(0);
}

struct Verdict {
  int checks = 0;
  int open_failures = 0;
  std::string first_open_failure;
  int acknowledged = 0;
  int missing = 0;
  std::string first_missing;
  std::vector<std::string> missing_tables;
  bool final_open = false;
  std::string final_error;
};

// While the children run: a fresh Stack object must always open (Reload() already retries
// when a table vanished because the list changed; a list that names a missing table and
// stays that way fails it).
void CheckOpens(const Plan& plan, Verdict* v) {
  ++v->checks;
  auto s = Stack::Open(plan.stack_dir, StressOptions());
  if (s.ok()) return;
  if (v->open_failures++ == 0) v->first_open_failure = s.status().ToString();
}

// The acknowledged refs, as (name, hex value).
std::vector<std::pair<std::string, std::string>> ReadAcks(const Plan& plan) {
  std::vector<std::pair<std::string, std::string>> acks;
  for (const std::string& who : testutil::ListDirSorted(plan.acks)) {
    std::string text = testutil::ReadFileOr(plan.acks + "/" + who);
    for (size_t pos = 0; pos < text.size();) {
      size_t nl = text.find('\n', pos);
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      size_t space = line.find(' ');
      acks.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
  }
  return acks;
}

// After the children: the listed tables exist, the stack opens and holds every acknowledged
// ref (a stack that does not open has lost them all).
void CheckFinal(const Plan& plan, Verdict* v) {
  std::vector<std::string> listed;
  Status parsed = ParseTablesList(testutil::ReadFileOr(plan.stack_dir + "/tables.list"), &listed);
  if (!parsed.ok()) v->missing_tables.push_back("(tables.list: " + parsed.ToString() + ")");
  for (const std::string& t : listed) {
    if (!Exists(plan.stack_dir + "/" + t)) v->missing_tables.push_back(t);
  }
  auto acks = ReadAcks(plan);
  v->acknowledged = int(acks.size());
  auto s = Stack::Open(plan.stack_dir, StressOptions());
  v->final_open = s.ok();
  if (!s.ok()) v->final_error = s.status().ToString();
  std::shared_ptr<const Snapshot> snap = s.ok() ? (*s)->snapshot() : nullptr;
  for (const auto& [name, hex] : acks) {
    RefRecord r;
    bool found = false;
    if (!snap || !snap->ReadRef(name, &r, &found).ok() || !found || HexId(r.value, 20) != hex) {
      if (v->missing++ == 0) v->first_missing = name;
    }
  }
}

// Forks one child per role, checks the stack while they run, then judges.
class StressRun {
 public:
  explicit StressRun(Plan plan) : plan_(std::move(plan)) {}

  void Appender(std::function<void()> main) { appenders_.push_back(Fork(std::move(main))); }
  void Looper(std::function<void()> main) { loopers_.push_back(Fork(std::move(main))); }

  // Waits for everything; returns the verdict and the number of children that failed.
  Verdict Finish(int* failed_children) {
    Verdict v;
    *failed_children = 0;
    size_t running = appenders_.size();
    std::vector<bool> done(appenders_.size(), false);
    while (running > 0) {
      CheckOpens(plan_, &v);
      for (size_t i = 0; i < appenders_.size(); ++i) {
        int status = 0;
        if (done[i] || waitpid(appenders_[i], &status, WNOHANG) != appenders_[i]) continue;
        done[i] = true;
        --running;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++*failed_children;
      }
      usleep(2000);
    }
    testutil::WriteFileOrDie(plan_.stop, "");
    for (pid_t pid : loopers_) {
      int status = 0;
      if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++*failed_children;
      }
    }
    CheckFinal(plan_, &v);
    return v;
  }

 private:
  pid_t Fork(std::function<void()> main) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      main();
      _exit(0);
    }
    EXPECT_GT(pid, 0);
    return pid;
  }

  Plan plan_;
  std::vector<pid_t> appenders_;
  std::vector<pid_t> loopers_;
};

void Report(const char* what, const Plan& plan, const Verdict& v, int failed_children) {
  std::string loops;
  for (const std::string& who : testutil::ListDirSorted(plan.stats)) {
    loops += testutil::ReadFileOr(plan.stats + "/" + who);
  }
  std::printf(
      "%s: %d acknowledged, %d missing; %d open checks, %d failed; %zu listed tables "
      "missing at the end; %d children failed; %s\n",
      what, v.acknowledged, v.missing, v.checks, v.open_failures, v.missing_tables.size(),
      failed_children, loops.c_str());
  EXPECT_TRUE(v.final_open) << v.final_error;
  EXPECT_EQ(v.missing, 0) << "first lost: " << v.first_missing;
  EXPECT_EQ(v.open_failures, 0) << "first: " << v.first_open_failure;
  EXPECT_TRUE(v.missing_tables.empty())
      << "tables.list names missing " << (v.missing_tables.empty() ? "" : v.missing_tables[0]);
  EXPECT_EQ(failed_children, 0) << "see the children's messages above";
  EXPECT_GT(v.acknowledged, 0);
}

TEST(CompactionStressTest, ReftabCompactsWhileOthersAppendCleanAndCompact) {
  testutil::TempDir tmp("compaction-stress");
  Plan plan;
  plan.stack_dir = tmp.Subdir("stack");
  plan.acks = tmp.Subdir("acks");
  plan.stats = tmp.Subdir("stats");
  plan.stop = tmp.path() + "/STOP";
  StressRun run(plan);
  for (int w = 0; w < 3; ++w) {
    run.Appender([&plan, w] { ReftabAppender(plan, "a" + std::to_string(w), w); });
  }
  run.Looper([&plan] { Loop(plan, "compactor", 10000, CompactStep); });
  run.Looper([&plan] { Loop(plan, "range-compactor", 10000, RangeStep); });
  run.Looper([&plan] { Loop(plan, "cleaner", 0, CleanStep); });
  int failed = 0;
  Verdict v = run.Finish(&failed);
  Report("reftab only", plan, v, failed);
}

TEST(CompactionStressTest, ReftabCompactsWhileGitAppendsAndPacks) {
  std::string why;
  const std::optional<std::string> found = testing::FindReftableGit(&why);
  if (!found) REFTAB_SKIP_WITHOUT_GIT(why);
  const std::string git = *found;
  testutil::TempDir tmp("compaction-stress-git");
  Plan plan;
  plan.git = git;
  plan.home = tmp.Subdir("home");
  plan.work_tree = tmp.path() + "/repo";
  ASSERT_EQ(
      testutil::RunProgram(git, {"init", "-q", "--ref-format=reftable", plan.work_tree}, plan.home),
      0);
  // Both sides wait long for tables.list.lock, so that nearly every write lands.
  ASSERT_EQ(testutil::RunProgram(
                git, {"-C", plan.work_tree, "config", "reftable.lockTimeout", "10000"}, plan.home),
            0);
  std::string tree, commit;
  ASSERT_EQ(testutil::RunProgram(git, {"-C", plan.work_tree, "mktree"}, plan.home, "", &tree), 0);
  tree = tree.substr(0, 40);
  ASSERT_EQ(testutil::RunProgram(git, {"-C", plan.work_tree, "commit-tree", "-m", "x", tree},
                                 plan.home, "", &commit),
            0);
  plan.oid_hex = commit.substr(0, 40);
  plan.git_dir = plan.work_tree + "/.git";
  plan.stack_dir = plan.git_dir + "/reftable";
  plan.acks = tmp.Subdir("acks");
  plan.stats = tmp.Subdir("stats");
  plan.stop = tmp.path() + "/STOP";

  StressRun run(plan);
  for (int w = 0; w < 2; ++w) {
    run.Appender([&plan, w] { ReftabAppender(plan, "r" + std::to_string(w), w); });
    run.Appender([&plan, w] { GitAppender(plan, "g" + std::to_string(w)); });
  }
  run.Looper([&plan] { Loop(plan, "compactor", 10000, CompactStep); });
  run.Looper([&plan] { Loop(plan, "cleaner", 0, CleanStep); });
  run.Looper([&plan] { GitPacker(plan); });
  int failed = 0;
  Verdict v = run.Finish(&failed);
  Report("reftab with git", plan, v, failed);
  // git must still read the repository, and see every ref.
  std::string listing;
  EXPECT_EQ(testutil::RunProgram(git, {"-C", plan.work_tree, "for-each-ref", "--format=%(refname)"},
                                 plan.home, "", &listing),
            0)
      << listing;
  int lines = 0;
  for (char c : listing) lines += c == '\n';
  EXPECT_EQ(lines, v.acknowledged) << listing.substr(0, 500);
}

}  // namespace
}  // namespace reftab

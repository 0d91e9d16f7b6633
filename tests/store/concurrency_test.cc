// Several processes on one stack at once (LESSONS.md §2.1, §2.6): writer processes commit
// transactions with a generous lock timeout while auto-compaction runs after every commit, a
// compactor process runs full and range compactions in a loop, and readers (threads in this
// process and a reader process) keep checking that every snapshot they load is consistent.
//
// Each transaction k of writer w creates refs/heads/w<w>/k<kkk> and moves refs/counters/w<w>
// from k-1 to k (expected old value checked). So in every consistent snapshot, for each
// writer, the branch set is exactly {0 .. counter}: prefix-closed and in step with the
// counter. At the end every update must have landed. Outcomes only, never timing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

constexpr int kWriters = 4;
constexpr int kTransactions = 50;

uint64_t Encode(int w, int k) { return uint64_t(w) * 100000 + uint64_t(k) + 1; }
uint64_t Decode(const ObjectId& id, size_t hs) {
  uint64_t n = 0;
  for (size_t i = hs - 8; i < hs; ++i) n = (n << 8) | id[i];
  return n;
}

std::string BranchName(int w, int k) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "refs/heads/w%d/k%03d", w, k);
  return buf;
}
std::string CounterName(int w) { return "refs/counters/w" + std::to_string(w); }

StackOptions SharedOptions() {
  StackOptions o;
  o.hash_id = HashId::kSha1;
  o.durability = Durability::kNone;
  o.lock_timeout_ms = 10000;
  o.auto_compact = true;
  return o;
}

// "" if the snapshot is consistent, else what is wrong.
std::string CheckSnapshot(const Snapshot& snap, int* total_branches) {
  const size_t hs = snap.hash_size();
  std::map<int, std::set<int>> branches;
  std::map<int, int> counters;
  MergedRefIterator it = snap.NewRefIterator();
  it.set_suppress_deletions(true);
  if (!it.SeekToFirst().ok()) return "seek failed";
  RefRecord r;
  while (it.Next(&r)) {
    int w = 0, k = 0;
    if (std::sscanf(r.refname.c_str(), "refs/heads/w%d/k%d", &w, &k) == 2) {
      if (Decode(r.value, hs) != Encode(w, k)) return "wrong value for " + r.refname;
      branches[w].insert(k);
    } else if (std::sscanf(r.refname.c_str(), "refs/counters/w%d", &w) == 1) {
      counters[w] = int(Decode(r.value, hs) - Encode(w, 0));
    } else {
      return "unexpected ref " + r.refname;
    }
  }
  if (!it.status().ok()) return "iteration failed: " + it.status().ToString();
  *total_branches = 0;
  for (int w = 0; w < kWriters; ++w) {
    auto c = counters.find(w);
    const std::set<int>& b = branches[w];
    *total_branches += int(b.size());
    if (c == counters.end()) {
      if (!b.empty()) return "branches of writer " + std::to_string(w) + " without its counter";
      continue;
    }
    if (int(b.size()) != c->second + 1 || *b.begin() != 0 || *b.rbegin() != c->second) {
      return "writer " + std::to_string(w) + ": counter " + std::to_string(c->second) + " but " +
             std::to_string(b.size()) + " branches";
    }
    // The exact lookup agrees with the scan.
    RefRecord rec;
    bool found = false;
    if (!snap.ReadRef(CounterName(w), &rec, &found).ok() || !found ||
        int(Decode(rec.value, hs) - Encode(w, 0)) != c->second) {
      return "ReadRef disagrees for " + CounterName(w);
    }
  }
  return "";
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Child processes report through their exit status and stderr; they never return.
[[noreturn]] void WriterMain(const std::string& dir, int w) {
  auto stack = Stack::Open(dir, SharedOptions());
  if (!stack.ok()) {
    std::fprintf(stderr, "writer %d: open: %s\n", w, stack.status().ToString().c_str());
    _exit(10);
  }
  for (int k = 0; k < kTransactions; ++k) {
    Transaction tx = (*stack)->NewTransaction();
    tx.Update(BranchName(w, k), storetest::IdValue(Encode(w, k)), RefValue::Absent());
    tx.Update(CounterName(w), storetest::IdValue(Encode(w, k)),
              k == 0 ? RefValue::Absent() : storetest::IdValue(Encode(w, k - 1)),
              storetest::TestLog(1700000000 + uint64_t(k), "count " + std::to_string(k)));
    Status st = tx.Commit();
    if (!st.ok()) {
      std::fprintf(stderr, "writer %d: transaction %d: %s\n", w, k, st.ToString().c_str());
      _exit(11);
    }
  }
  _exit(0);
}

// Writes "<ok> <lockheld>" to fd when told to stop.
[[noreturn]] void CompactorMain(const std::string& dir, const std::string& stop, int fd) {
  auto stack = Stack::Open(dir, SharedOptions());
  if (!stack.ok()) _exit(20);
  int ok = 0, held = 0, i = 0;
  while (!Exists(stop)) {
    Stack& s = **stack;
    Status st;
    if (!s.ReloadIfChanged().ok()) _exit(21);
    bool range = i++ % 3 == 2 && s.names().size() >= 2;
    if (range) {
      st = s.CompactRange(0, s.names().size() / 2);
    } else {
      st = s.CompactAll();
    }
    if (st.ok()) {
      ++ok;
    } else if (st.code() == Code::kLockHeld || st.code() == Code::kOutdated ||
               (range && st.code() == Code::kInvalidArgument)) {
      // A concurrent auto-compaction holds some of the tables, or shrank the stack below
      // the range picked a moment ago.
      ++held;
    } else {
      std::fprintf(stderr, "compactor: %s\n", st.ToString().c_str());
      _exit(22);
    }
    usleep(1000);
  }
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%d %d", ok, held);
  if (write(fd, buf, size_t(n)) != n) _exit(23);
  _exit(0);
}

[[noreturn]] void ReaderMain(const std::string& dir, const std::string& stop, int fd) {
  auto stack = Stack::Open(dir, SharedOptions());
  if (!stack.ok()) _exit(30);
  int checked = 0;
  for (bool last = false; !last;) {
    last = Exists(stop);  // one more check after the writers are done
    Status st = (*stack)->ReloadIfChanged();
    if (!st.ok()) {
      std::fprintf(stderr, "reader process: reload: %s\n", st.ToString().c_str());
      _exit(31);
    }
    int branches = 0;
    std::string err = CheckSnapshot(*(*stack)->snapshot(), &branches);
    if (!err.empty()) {
      std::fprintf(stderr, "reader process: %s\n", err.c_str());
      _exit(32);
    }
    ++checked;
  }
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%d", checked);
  if (write(fd, buf, size_t(n)) != n) _exit(33);
  _exit(0);
}

std::string ReadAllFd(int fd) {
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  return out;
}

TEST(ConcurrencyTest, ConcurrentWritersAllLandAndReadersSeeConsistentSnapshots) {
  testutil::TempDir tmp("concurrency");
  const std::string dir = tmp.Subdir("stack");
  const std::string stop = tmp.path() + "/STOP";
  int compactor_pipe[2], reader_pipe[2];
  ASSERT_EQ(pipe(compactor_pipe), 0);
  ASSERT_EQ(pipe(reader_pipe), 0);
  std::fflush(nullptr);

  // Fork every child before starting any thread.
  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) WriterMain(dir, w);
    writers.push_back(pid);
  }
  pid_t compactor = fork();
  ASSERT_GE(compactor, 0);
  if (compactor == 0) {
    close(compactor_pipe[0]);
    CompactorMain(dir, stop, compactor_pipe[1]);
  }
  pid_t reader = fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    close(reader_pipe[0]);
    ReaderMain(dir, stop, reader_pipe[1]);
  }
  close(compactor_pipe[1]);
  close(reader_pipe[1]);

  // Reader threads here, each with its own Stack object.
  std::atomic<bool> done{false};
  std::atomic<int> thread_checks{0};
  std::vector<std::string> thread_errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      auto stack = Stack::Open(dir, SharedOptions());
      if (!stack.ok()) {
        thread_errors[size_t(t)] = stack.status().ToString();
        return;
      }
      int last_total = 0;
      for (bool last = false; !last;) {
        last = done.load();
        Status st = (*stack)->ReloadIfChanged();
        if (!st.ok()) {
          thread_errors[size_t(t)] = "reload: " + st.ToString();
          return;
        }
        int total = 0;
        std::string err = CheckSnapshot(*(*stack)->snapshot(), &total);
        if (err.empty() && total < last_total) err = "a later snapshot lost updates";
        if (!err.empty()) {
          thread_errors[size_t(t)] = err;
          return;
        }
        last_total = total;
        ++thread_checks;
      }
    });
  }

  int writer_failures = 0;
  for (pid_t pid : writers) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++writer_failures;
  }
  testutil::WriteFileOrDie(stop, "");
  done = true;
  for (auto& t : threads) t.join();
  int status = 0;
  ASSERT_EQ(waitpid(compactor, &status, 0), compactor);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "compactor status " << status;
  ASSERT_EQ(waitpid(reader, &status, 0), reader);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "reader process status " << status;
  std::string compactions = ReadAllFd(compactor_pipe[0]);
  std::string reader_checks = ReadAllFd(reader_pipe[0]);
  close(compactor_pipe[0]);
  close(reader_pipe[0]);

  EXPECT_EQ(writer_failures, 0);
  for (const std::string& e : thread_errors) EXPECT_EQ(e, "");

  // Every update landed, each with its own update index.
  auto stack = storetest::OpenOrDie(dir, SharedOptions());
  ASSERT_TRUE(stack);
  auto snap = stack->snapshot();
  int total = 0;
  EXPECT_EQ(CheckSnapshot(*snap, &total), "");
  EXPECT_EQ(total, kWriters * kTransactions);
  std::set<uint64_t> indexes;
  for (int w = 0; w < kWriters; ++w) {
    RefRecord r;
    bool found = false;
    ASSERT_TRUE(snap->ReadRef(CounterName(w), &r, &found).ok());
    ASSERT_TRUE(found);
    EXPECT_EQ(Decode(r.value, 20), Encode(w, kTransactions - 1));
    for (int k = 0; k < kTransactions; ++k) {
      ASSERT_TRUE(snap->ReadRef(BranchName(w, k), &r, &found).ok());
      ASSERT_TRUE(found) << BranchName(w, k);
      indexes.insert(r.update_index);
    }
    // The counter's reflog has one entry per transaction, newest first.
    MergedLogIterator logs = snap->NewLogIterator();
    logs.set_suppress_deletions(true);
    ASSERT_TRUE(logs.Seek(CounterName(w)).ok());
    LogRecord l;
    int entries = 0;
    uint64_t prev = UINT64_MAX;
    while (logs.Next(&l) && l.refname == CounterName(w)) {
      EXPECT_LT(l.update_index, prev);
      prev = l.update_index;
      ++entries;
    }
    EXPECT_EQ(entries, kTransactions);
  }
  EXPECT_EQ(indexes.size(), size_t(kWriters * kTransactions)) << "update indexes are unique";
  EXPECT_EQ(snap->max_update_index(), uint64_t(kWriters * kTransactions));
  EXPECT_TRUE(testutil::StrayFiles(testutil::CaptureStack(dir)).empty())
      << "no locks, temporary files or unlisted tables remain";
  std::printf(
      "concurrency: %d writer processes x %d transactions = %d updates landed; "
      "compactor (ok, lock-held) = (%s); reader process checked %s snapshots, reader "
      "threads %d; final stack has %zu tables\n",
      kWriters, kTransactions, total, compactions.c_str(), reader_checks.c_str(),
      thread_checks.load(), stack->names().size());
}

}  // namespace
}  // namespace reftab

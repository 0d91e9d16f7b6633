// JGit as an independent reader of stacks we write (../shared/tools/jgit-harness, Debian's
// libjgit-java 4.11): after transactions (symrefs, peeled tags, deletions, reflogs, a raw
// log tombstone) and compactions (a range that keeps tombstones, then everything), the
// harness's `dump-stack` of the directory must equal our own merged view, with and without
// deletions. Known harness/JGit 4.11 bugs are avoided (README): log time zones are masked
// (--mask-log-tz, bug 1), names are ASCII, the stack is SHA-1 (bug 6), and only scans are
// used (bugs 3 and 4 affect seeks).
//
// Skipped when java, the JGit jar or the harness jar (built by the harness's build.sh) is
// missing, so CI without them still passes.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

bool IsFile(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Env(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// Runs a shell command, returning its stdout and exit status.
std::string RunCommand(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

// The harness's quoting of strings (Main.quote): \\ \" \n \t \r, other controls as \xHH.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out.push_back(char(c));
        }
    }
  }
  return out + "\"";
}

// Our merged view in the harness's dump format (README "Record format").
std::string HarnessDump(const Snapshot& snap, bool include_deletes) {
  const size_t hs = snap.hash_size();
  std::string out;
  MergedRefIterator refs = snap.NewRefIterator();
  refs.set_suppress_deletions(!include_deletes);
  EXPECT_TRUE(refs.SeekToFirst().ok());
  RefRecord r;
  while (refs.Next(&r)) {
    out += r.refname + " ";
    switch (r.value_type) {
      case RefValueType::kDeletion: out += "0 - -"; break;
      case RefValueType::kVal1: out += "1 " + HexId(r.value, hs) + " -"; break;
      case RefValueType::kVal2: out += "2 " + HexId(r.value, hs) + " " + HexId(r.peeled, hs); break;
      case RefValueType::kSymref: out += "3 - " + r.target; break;
    }
    // Appended, not " " + std::to_string(...): g++ 12 -O3 misreads that (-Wrestrict).
    out += ' ';
    out += std::to_string(r.update_index);
    out += '\n';
  }
  MergedLogIterator logs = snap.NewLogIterator();
  logs.set_suppress_deletions(!include_deletes);
  EXPECT_TRUE(logs.SeekToFirst().ok());
  LogRecord l;
  while (logs.Next(&l)) {
    out += "log: " + l.refname + " " + std::to_string(l.update_index);
    if (l.is_deletion()) {
      out += " 0\n";
      continue;
    }
    out += " 1 " + HexId(l.old_id, hs) + " " + HexId(l.new_id, hs) + " " + std::to_string(l.time) +
           " ? " + Quote(l.name) + " " + Quote(l.email) + " " + Quote(l.message) + "\n";
  }
  return out;
}

class JGitInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string root = Env("REFTAB_SOURCE_ROOT", "..");
    harness_ = root + "/../shared/tools/jgit-harness/jgit-reftable";
    std::string cache = Env("XDG_CACHE_HOME", Env("HOME", "/nonexistent") + "/.cache");
    std::string jar = Env("JGIT_HARNESS_BUILD", cache + "/jgit-harness") + "/jgit-harness.jar";
    std::string jgit = Env("JGIT_JAR", "/usr/share/java/org.eclipse.jgit.jar");
    int status = 0;
    RunCommand("command -v java >/dev/null 2>&1", &status);
    if (status != 0) GTEST_SKIP() << "java is not installed";
    if (!IsFile(harness_)) GTEST_SKIP() << "no harness at " << harness_;
    if (!IsFile(jgit))
      GTEST_SKIP() << "no JGit jar at " << jgit << " (apt-get install libjgit-java)";
    if (!IsFile(jar)) GTEST_SKIP() << "no harness jar at " << jar << " (run its build.sh)";
  }

  // JGit's dump of the stack in `dir`.
  std::string JGitDump(const std::string& dir, bool include_deletes) {
    int status = 0;
    std::string out =
        RunCommand("JAVA_OPTS='-XX:+UseSerialGC -Xmx256m' " + ShellQuote(harness_) +
                       " dump-stack --mask-log-tz" +
                       (include_deletes ? " --include-deletes " : " ") + ShellQuote(dir) + " 2>&1",
                   &status);
    EXPECT_EQ(status, 0) << out;
    return out;
  }

  void ExpectSameView(Stack& s, const std::string& when) {
    SCOPED_TRACE(when);
    ASSERT_TRUE(s.ReloadIfChanged().ok());
    auto snap = s.snapshot();
    EXPECT_EQ(JGitDump(s.dir(), false), HarnessDump(*snap, false));
    EXPECT_EQ(JGitDump(s.dir(), true), HarnessDump(*snap, true));
    ++compared_;
  }

  std::string harness_;
  int compared_ = 0;
};

TEST_F(JGitInteropTest, JGitReadsOurStacksAsWeDo) {
  testutil::TempDir tmp("jgit");
  StackOptions o = storetest::TestOptions();
  o.write_options.block_size = 4096;
  auto s = storetest::OpenOrDie(tmp.path(), o);
  ASSERT_TRUE(s);
  const size_t hs = 20;
  auto id = [&](uint64_t n) { return testutil::TestId(n, hs); };
  {
    Transaction tx = s->NewTransaction();
    tx.Update("HEAD", RefValue::Symref("refs/heads/main"), std::nullopt, storetest::TestLog(1, ""));
    tx.Update("refs/heads/main", RefValue::Id(id(1)), RefValue::Absent(),
              storetest::TestLog(1700000001, "commit (initial): first"));
    for (int i = 0; i < 150; ++i) {  // several ref blocks
      tx.Update("refs/heads/feature/topic-" + std::to_string(1000 + i),
                RefValue::Id(id(100 + uint64_t(i))), std::nullopt,
                storetest::TestLog(1700000100 + uint64_t(i), "branch: Created from main"));
    }
    ASSERT_TRUE(tx.Commit().ok());
  }
  {
    Transaction tx = s->NewTransaction();
    tx.Update("refs/tags/v1.0", RefValue::Peeled(id(7), id(1)));
    tx.Update("refs/tags/light", RefValue::Id(id(1)));
    tx.Update("refs/heads/main", RefValue::Id(id(2)), RefValue::Id(id(1)),
              storetest::TestLog(1700000200, "commit: \"quoted\" and \\ back\tslash"));
    ASSERT_TRUE(tx.Commit().ok());
  }
  ASSERT_TRUE(storetest::Del(*s, "refs/heads/feature/topic-1003").ok());
  ASSERT_TRUE(storetest::Del(*s, "refs/tags/light").ok());
  {
    // A rewritten reflog: a log tombstone for an old entry plus a rewritten one.
    Transaction tx = s->NewTransaction();
    LogRecord tomb;
    tomb.refname = "refs/heads/main";
    tomb.update_index = 1;
    tx.AddLogRecord(tomb, /*keep_update_index=*/true);
    tx.Update("refs/heads/main", RefValue::Id(id(3)), RefValue::Id(id(2)),
              storetest::TestLog(1700000300, "reset: moving to HEAD~1"));
    ASSERT_TRUE(tx.Commit().ok());
  }
  ASSERT_TRUE(storetest::Put(*s, "refs/remotes/origin/main", 9).ok());
  ASSERT_EQ(s->names().size(), 6u);
  ExpectSameView(*s, "six tables");
  ASSERT_TRUE(s->CompactRange(2, 4).ok());  // keeps the tombstones
  ExpectSameView(*s, "after a range compaction");
  ASSERT_TRUE(storetest::Put(*s, "refs/heads/late", 10).ok());
  ASSERT_TRUE(s->CompactAll().ok());
  ExpectSameView(*s, "after a full compaction");
  EXPECT_EQ(compared_, 3);
  std::printf(
      "jgit interop: JGit's dump-stack matched ours for %d stack states (with and without "
      "deletions)\n",
      compared_);
}

}  // namespace
}  // namespace reftab

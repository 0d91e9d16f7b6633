#include "tests/testutil/golden_util.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <sstream>

#include "cli/git_format.h"
#include "store/block_dump.h"
#include "tests/testutil/fixtures.h"

namespace reftab::golden {
namespace {

namespace fs = std::filesystem;

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// "<fixture>/reftable/<table>.ref" -> "<fixture>" relative to the git fixtures folder.
std::string FixtureOf(const std::string& git_dir, const std::string& table_path) {
  return fs::relative(fs::path(table_path).parent_path().parent_path(), git_dir).string();
}

void AddGitTables(const std::string& git_dir, std::vector<FixtureTable>* out) {
  for (const std::string& path : testutil::FindFiles(git_dir, ".ref")) {
    if (fs::path(path).parent_path().filename() != "reftable") continue;
    std::string fixture_dir = fs::path(path).parent_path().parent_path().string();
    std::string expected = fixture_dir + "/expected/tables/" + FileName(path);
    FixtureTable t;
    t.expected_dump = WithOptionalGz(expected + ".table.txt");
    if (t.expected_dump.empty()) continue;
    t.expected_blocks = WithOptionalGz(expected + ".blocks.txt");
    t.name = GtestName("git_" + FixtureOf(git_dir, path) + "_" + FileName(path));
    t.path = path;
    t.meta = testutil::ReadFileOrDie(fixture_dir + "/expected/meta.txt");
    t.written_by_git = true;
    out->push_back(t);
  }
}

void AddJgitTables(const std::string& jgit_dir, std::vector<FixtureTable>* out) {
  for (const std::string& path : testutil::FindFiles(jgit_dir, ".ref")) {
    std::string base = path.substr(0, path.size() - 4);
    FixtureTable t;
    t.expected_dump = WithOptionalGz(base + ".git-dump.txt");
    if (t.expected_dump.empty()) continue;
    t.name = GtestName("jgit_" + FileName(base));
    t.path = path;
    out->push_back(t);
  }
}

}  // namespace

std::string GtestName(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

std::string WithOptionalGz(const std::string& base) {
  if (testutil::FileExists(base)) return base;
  if (testutil::FileExists(base + ".gz")) return base + ".gz";
  return "";
}

std::vector<FixtureTable> AllFixtureTables() {
  std::vector<FixtureTable> out;
  std::string dir = testutil::FixturesDir();
  if (testutil::FileExists(dir + "/git")) AddGitTables(dir + "/git", &out);
  if (testutil::FileExists(dir + "/jgit")) AddJgitTables(dir + "/jgit", &out);
  return out;
}

std::vector<FixtureTable> FixtureTablesOrPlaceholder(bool git_only) {
  std::vector<FixtureTable> tables;
  for (FixtureTable& t : AllFixtureTables()) {
    if (t.written_by_git || !git_only) tables.push_back(std::move(t));
  }
  if (tables.empty()) tables.push_back(FixtureTable{"NoFixtures", "", "", "", "", false});
  return tables;
}

std::string DescribeDifference(const std::string& ours, const std::string& theirs) {
  if (ours == theirs) return "";
  size_t at = 0;
  while (at < ours.size() && at < theirs.size() && ours[at] == theirs[at]) ++at;
  size_t from = at > 200 ? at - 200 : 0;
  return "first difference at byte " + std::to_string(at) + " (sizes " +
         std::to_string(ours.size()) + " and " + std::to_string(theirs.size()) + ")\n--- ours:\n" +
         ours.substr(from, 400) + "\n--- expected:\n" + theirs.substr(from, 400);
}

std::vector<FixtureStack> AllFixtureStacks() {
  std::vector<FixtureStack> out;
  std::string git_dir = testutil::FixturesDir() + "/git";
  if (!testutil::FileExists(git_dir)) return out;
  for (const char* suffix : {"/expected/stack.dump.txt", "/expected/stack.dump.txt.gz"}) {
    for (const std::string& path : testutil::FindFiles(git_dir, suffix)) {
      std::string fixture_dir = fs::path(path).parent_path().parent_path().string();
      out.push_back(FixtureStack{GtestName(fs::relative(fixture_dir, git_dir).string()),
                                 fixture_dir + "/reftable", path});
    }
  }
  return out;
}

std::unique_ptr<TableReader> OpenTableOrFail(const std::string& path) {
  auto table = TableReader::OpenBytes(FileName(path), testutil::ReadFileOrDie(path));
  EXPECT_TRUE(table.ok()) << path << ": " << table.status().ToString();
  if (!table.ok()) return nullptr;
  return std::move(*table);
}

std::string DumpTableGit(const TableReader& table) {
  std::string out;
  TableRefIterator refs(&table);
  EXPECT_TRUE(refs.SeekToFirst().ok());
  RefRecord ref;
  while (refs.Next(&ref)) cli::AppendRefGit(ref, table.hash_size(), &out);
  EXPECT_TRUE(refs.status().ok()) << refs.status().ToString();
  TableLogIterator logs(&table);
  EXPECT_TRUE(logs.SeekToFirst().ok());
  LogRecord log;
  while (logs.Next(&log)) cli::AppendLogGit(log, table.hash_size(), &out);
  EXPECT_TRUE(logs.status().ok()) << logs.status().ToString();
  return out;
}

std::string DumpBlocksGit(const TableReader& table) {
  std::string out;
  Status s = AppendBlockDump(table, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

std::string DumpStackGit(const Snapshot& snapshot) {
  std::string out;
  MergedRefIterator refs = snapshot.NewRefIterator();
  EXPECT_TRUE(refs.SeekToFirst().ok());
  RefRecord ref;
  while (refs.Next(&ref)) cli::AppendRefGit(ref, snapshot.hash_size(), &out);
  EXPECT_TRUE(refs.status().ok()) << refs.status().ToString();
  MergedLogIterator logs = snapshot.NewLogIterator();
  EXPECT_TRUE(logs.SeekToFirst().ok());
  LogRecord log;
  while (logs.Next(&log)) cli::AppendLogGit(log, snapshot.hash_size(), &out);
  EXPECT_TRUE(logs.status().ok()) << logs.status().ToString();
  return out;
}

WriteOptions GitWriteOptions(const TableReader& table, const std::string& meta) {
  WriteOptions opts;
  opts.block_size = table.header().block_size;
  opts.hash_id = table.hash_id();
  opts.exact_log_message = true;  // the table holds messages as git already normalized them
  std::istringstream lines(meta);
  for (std::string line; std::getline(lines, line);) {
    const std::string interval = "  reftable.restartinterval=";
    if (line.rfind(interval, 0) == 0) {
      opts.restart_interval = uint32_t(std::stoul(line.substr(interval.size())));
    }
    if (line == "  reftable.indexobjects=false") opts.index_objects = false;
  }
  return opts;
}

std::string RewriteTable(const TableReader& table, const WriteOptions& opts) {
  std::string out;
  StringSink sink(&out);
  TableWriter w(opts, &sink);
  EXPECT_TRUE(w.SetLimits(table.min_update_index(), table.max_update_index()).ok());
  TableRefIterator refs(&table);
  EXPECT_TRUE(refs.SeekToFirst().ok());
  RefRecord ref;
  while (refs.Next(&ref)) {
    Status s = w.AddRef(ref);
    EXPECT_TRUE(s.ok()) << ref.refname << ": " << s.ToString();
  }
  TableLogIterator logs(&table);
  EXPECT_TRUE(logs.SeekToFirst().ok());
  LogRecord log;
  while (logs.Next(&log)) {
    Status s = w.AddLog(log);
    EXPECT_TRUE(s.ok()) << log.refname << ": " << s.ToString();
  }
  Status s = w.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

}  // namespace reftab::golden

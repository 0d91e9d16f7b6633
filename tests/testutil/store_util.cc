#include "tests/testutil/store_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/kv/kv_log_format.h"

namespace reftab::testutil {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
  std::string templ = "/tmp/reftab-" + tag + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  char* p = mkdtemp(buf.data());
  EXPECT_NE(p, nullptr) << "mkdtemp failed";
  path_ = p ? p : "/tmp";
}

TempDir::~TempDir() {
  if (path_ == "/tmp" || path_.empty()) return;
  std::error_code ec;
  // Make everything writable first, in case a test copied read-only fixtures.
  for (auto it = fs::recursive_directory_iterator(path_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(path_, ec);
}

std::string TempDir::Subdir(const std::string& name) const {
  std::string p = path_ + "/" + name;
  std::error_code ec;
  fs::create_directories(p, ec);
  EXPECT_FALSE(ec) << "cannot create " << p;
  return p;
}

std::vector<std::string> ListDirSorted(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadFileOr(const std::string& path, const std::string& fallback) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) return fallback;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileOrDie(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(out.good()) << "cannot write " << path;
  out << contents;
  out.close();
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

void CopyDirContents(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  ASSERT_FALSE(ec) << "cannot create " << to;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  ASSERT_FALSE(ec) << "cannot copy " << from << " to " << to << ": " << ec.message();
  fs::permissions(to, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto it = fs::recursive_directory_iterator(to, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    fs::perms add = it->is_directory(ec2) ? fs::perms::owner_all
                                          : fs::perms::owner_read | fs::perms::owner_write;
    fs::permissions(it->path(), add, fs::perm_options::add, ec2);
  }
}

void ClearDir(const std::string& dir) {
  std::error_code ec;
  for (const std::string& n : ListDirSorted(dir)) fs::remove_all(dir + "/" + n, ec);
}

ObjectId TestId(uint64_t n, size_t hash_size) {
  ObjectId id{};
  uint64_t x = n * 0x9E3779B97F4A7C15ull + 0x1234567;
  for (size_t i = 0; i < hash_size; ++i) {
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    id[i] = uint8_t(x);
  }
  // Keep n readable and the id unique: the last 8 bytes hold n itself.
  for (size_t i = 0; i < 8; ++i) id[hash_size - 1 - i] = uint8_t(n >> (8 * i));
  id[0] |= 1;  // never all zeros
  return id;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string FormatRef(const RefRecord& r, size_t hs) {
  std::string out = "ref " + r.refname + " @" + std::to_string(r.update_index);
  switch (r.value_type) {
    case RefValueType::kDeletion: out += " delete"; break;
    case RefValueType::kVal1: out += " val1 " + HexId(r.value, hs); break;
    case RefValueType::kVal2:
      out += " val2 " + HexId(r.value, hs) + " ^" + HexId(r.peeled, hs);
      break;
    case RefValueType::kSymref: out += " -> " + r.target; break;
  }
  return out;
}

std::string FormatLog(const LogRecord& l, size_t hs) {
  std::string out = "log " + l.refname + " @" + std::to_string(l.update_index);
  if (l.is_deletion()) return out + " delete";
  out += " " + HexId(l.old_id, hs) + " " + HexId(l.new_id, hs) + " " + l.name + " <" + l.email +
         "> " + std::to_string(l.time) + " " + std::to_string(l.tz_offset) + " [";
  for (char c : l.message) {
    if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out + "]";
}

std::string DumpRefs(const Snapshot& snap, bool include_deletions) {
  std::string out;
  MergedRefIterator it = snap.NewRefIterator();
  it.set_suppress_deletions(!include_deletions);
  EXPECT_TRUE(it.SeekToFirst().ok());
  RefRecord r;
  while (it.Next(&r)) out += FormatRef(r, snap.hash_size()) + "\n";
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  if (!it.status().ok()) out += "ERROR " + it.status().ToString() + "\n";
  return out;
}

std::string DumpLogs(const Snapshot& snap, bool include_deletions) {
  std::string out;
  MergedLogIterator it = snap.NewLogIterator();
  it.set_suppress_deletions(!include_deletions);
  EXPECT_TRUE(it.SeekToFirst().ok());
  LogRecord l;
  while (it.Next(&l)) out += FormatLog(l, snap.hash_size()) + "\n";
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  if (!it.status().ok()) out += "ERROR " + it.status().ToString() + "\n";
  return out;
}

std::string DumpSnapshot(const Snapshot& snap, bool include_deletions) {
  return DumpRefs(snap, include_deletions) + DumpLogs(snap, include_deletions);
}

StackState CaptureStack(const std::string& dir, const StackOptions& options) {
  StackState s;
  s.list = ReadFileOr(dir + "/tables.list");
  s.files = ListDirSorted(dir);
  StackOptions o = options;
  o.fs = nullptr;
  auto stack = Stack::Open(dir, o);
  s.open_ok = stack.ok();
  if (!stack.ok()) {
    s.open_error = stack.status().ToString();
    return s;
  }
  s.names = (*stack)->names();
  auto snap = (*stack)->snapshot();
  s.merged = DumpSnapshot(*snap, true);
  s.live = DumpSnapshot(*snap, false);
  for (const auto& t : snap->tables())
    s.ranges.emplace_back(t->min_update_index(), t->max_update_index());
  return s;
}

std::vector<std::string> StrayFiles(const StackState& s) {
  std::vector<std::string> out;
  for (const std::string& f : s.files) {
    if (f == "tables.list") continue;
    if (std::find(s.names.begin(), s.names.end(), f) != s.names.end()) continue;
    out.push_back(f);
  }
  return out;
}

std::vector<RefRecord> ScanRefs(const TableReader& table) {
  std::vector<RefRecord> out;
  TableRefIterator it(&table);
  EXPECT_TRUE(it.SeekToFirst().ok());
  RefRecord r;
  while (it.Next(&r)) out.push_back(r);
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return out;
}

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}

void ExpectFreshKvLog(const std::string& path) {
  const std::string log = ReadFileOr(path, "<unreadable>");
  EXPECT_EQ(log.size(), kKvLogHeaderSize) << path;
  EXPECT_EQ(log.substr(0, kKvLogMagic.size()), kKvLogMagic) << path;
}

}  // namespace reftab::testutil

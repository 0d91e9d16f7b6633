// reftab-ablate [--dir DATASET] [--reps N] [--only WORD]
//
// Every speed technique of the library, measured on and off side by side in one process on
// the benchmark dataset (reftab-bench gen; default ${REFTAB_BENCH_DIR:-/tmp/reftab-bench}). The
// two variants of a technique run alternately, rep after rep, so that the noise of a shared
// machine hits both alike; each line reports the median ns per op of both and their ratio.
// Before timing, every pair is checked to produce the same result (bytes, keys or records).
//
// Techniques (see perf/RESULTS.md for the numbers and store/, format/ for the code):
//   appender        BlockWriter::Add (reserve once, unchecked puts) vs a per-field
//                   bounds-checked writer (perf/naive.h)
//   bypass          merged iterator with and without the single-child bypass
//   lazy-advance    merged iterator advancing the returned child lazily vs eagerly
//   ovc             merged iterator with offset-value codes vs string comparisons
//   merge-order     repeated whole scans of one snapshot replaying the merge order the
//                   second one recorded (store/merge_order.h) vs merging every time
//   in-place-keys   BlockIterator vs a decoder building a fresh std::string per key
//   prefix-length   prefix scan with the prefix length computed once vs strlen per ref
//   lookup          Snapshot::ReadRef vs seek-and-next through a merged iterator (new or
//                   reused)
//   accelerators    Snapshot::ReadRef with the per-table filters and flattened ref
//                   indexes allowed to build vs without them
//   readahead       one forward scan of a table file, decoding blocks from a window read
//                   with pread (SectionCursor::set_readahead) vs from the file's mapping:
//                   of a file written just before each scan (its pages are in the page
//                   cache but were never mapped: what a scan after a compaction meets), and
//                   of the dataset's table, scanned before
//   block-copy      the merge of tables whose key ranges do not overlap (a key/value store
//                   filled in key order), by copying their ref blocks (store/disjoint_merge.h)
//                   vs record by record; tables held in memory, so that the figure is the
//                   merge's work and not the first touch of a mapped file's pages
// Inlining and tracing need differently compiled code: perf/variants.sh measures those.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/block_writer.h"
#include "format/record_codec.h"
#include "perf/naive.h"
#include "store/disjoint_merge.h"
#include "store/merge_cursor.h"
#include "store/snapshot_access.h"
#include "store/stack.h"
#include "store/table_writer.h"

namespace reftab {
namespace {

using Clock = std::chrono::steady_clock;

// The merged iterator's techniques, switched off one at a time (Off::kNothing is the
// production merge itself).
enum class Off { kNothing, kBypass, kLazyAdvance, kOffsetValueCodes };
template <Off off>
using MergedWithout = MergeCursor<
    TableRefCursor, RefRecord,
    MergeTechniques<off != Off::kBypass, off != Off::kLazyAdvance, off != Off::kOffsetValueCodes>>;

// One timed variant: runs the workload once and returns a checksum; `ops` per run.
struct Variant {
  std::string name;
  std::function<uint64_t()> run;
  std::function<void()> prepare = {};  // if set, runs before each run, untimed
};

int g_reps = 7;
std::string g_only;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs `on` and `off` alternately and prints one line. Returns false on a result mismatch.
bool Compare(const char* technique, const char* workload, uint64_t ops, const Variant& on,
             const Variant& off) {
  if (!g_only.empty() && std::string(technique).find(g_only) == std::string::npos) return true;
  auto run = [](const Variant& v) {
    if (v.prepare) v.prepare();
    return v.run();
  };
  uint64_t check_on = run(on), check_off = run(off);  // also warms caches
  bool same = check_on == check_off;
  std::vector<double> t_on, t_off;
  for (int r = 0; r < g_reps; ++r) {
    for (int which = 0; which < 2; ++which) {
      // Alternate which variant goes first, so neither always runs on a warmer machine.
      bool first_on = (r % 2 == 0) == (which == 0);
      const Variant& v = first_on ? on : off;
      if (v.prepare) v.prepare();
      auto t0 = Clock::now();
      uint64_t c = v.run();
      double ns =
          double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()) /
          double(ops);
      (first_on ? t_on : t_off).push_back(ns);
      same = same && c == (first_on ? check_on : check_off);
    }
  }
  double m_on = Median(t_on), m_off = Median(t_off);
  std::printf("| %-13s | %-34s | %-18s %9.2f | %-26s %9.2f | %5.2fx | %s |\n", technique, workload,
              on.name.c_str(), m_on, off.name.c_str(), m_off, m_off / m_on,
              same ? "same result" : "MISMATCH");
  std::fflush(stdout);
  return same;
}

std::vector<std::string> ReadNames(const std::string& path, size_t limit) {
  std::vector<std::string> names;
  std::ifstream in(path);
  std::string line;
  while (names.size() < limit && std::getline(in, line)) {
    size_t sp = line.find(' ');
    if (sp != std::string::npos) names.push_back(line.substr(sp + 1));
  }
  return names;
}

struct Input {  // IN.txt, compact
  std::string arena;
  std::vector<uint32_t> ends;
  std::vector<ObjectId> ids;
  std::string_view name(size_t i) const {
    uint32_t b = i ? ends[i - 1] : 0;
    return std::string_view(arena.data() + b, ends[i] - b);
  }
};

bool ReadInput(const std::string& path, Input* in) {
  std::ifstream f(path);
  if (!f) return false;
  std::string line;
  while (std::getline(f, line)) {
    size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    ObjectId id{};
    if (!ParseHexId(std::string_view(line).substr(0, sp), kSha1Size, &id)) return false;
    in->ids.push_back(id);
    in->arena.append(line, sp + 1, std::string::npos);
    in->ends.push_back(uint32_t(in->arena.size()));
  }
  return !in->ends.empty();
}

Result<std::vector<std::shared_ptr<const TableReader>>> OpenTables(const std::string& dir) {
  auto stack = Stack::Open(dir, StackOptions{});
  if (!stack.ok()) return stack.status();
  return (*stack)->snapshot()->tables();
}

std::vector<const TableReader*> Raw(const std::vector<std::shared_ptr<const TableReader>>& t) {
  std::vector<const TableReader*> raw;
  for (const auto& p : t) raw.push_back(p.get());
  return raw;
}

// Scans `it` from its first record to the end; returns a checksum of what it read.
template <class Cursor>
uint64_t ScanAll(Cursor& it) {
  Status s = it.SeekToFirst();
  RefRecord r;
  uint64_t n = 0, check = 0;
  while (s.ok() && it.Next(&r)) {
    ++n;
    check += r.refname.size() + r.value[0];
  }
  if (!s.ok() || !it.status().ok()) return ~uint64_t(0);
  return n * 1000003 + check;
}

// Full scan through a merged iterator with one technique off (or none).
template <Off off>
uint64_t ScanMerged(const std::vector<const TableReader*>& tables) {
  MergedWithout<off> it(tables);
  return ScanAll(it);
}

// Full scan of a snapshot as the library's listings make it: with its memo of the merge
// order (null: without).
uint64_t ScanSnapshot(const Snapshot& snap, MergeOrderMemo* memo) {
  RefMergeCursor it(snap.readers());
  it.set_merge_order(memo);
  return ScanAll(it);
}

// Exact lookups through Snapshot::ReadRef; returns a checksum of what was found.
uint64_t SnapshotLookups(const std::vector<std::shared_ptr<const TableReader>>& tables,
                         const std::vector<std::string>& names) {
  Snapshot snap(tables, HashId::kSha1);
  RefRecord r;
  uint64_t found = 0, check = 0;
  for (const std::string& name : names) {
    bool f = false;
    if (!snap.ReadRef(name, &r, &f).ok()) return ~uint64_t(0);
    if (f) {
      ++found;
      check += r.value[0];
    }
  }
  return found * 1000003 + check;
}

// Exact lookups as seek-and-next through one reused merged iterator.
template <Off off>
uint64_t SeekNextLookups(const std::vector<const TableReader*>& tables,
                         const std::vector<std::string>& names) {
  MergedWithout<off> it(tables);
  it.set_suppress_deletions(true);
  RefRecord r;
  uint64_t found = 0, check = 0;
  for (const std::string& name : names) {
    if (!it.Seek(name).ok()) return ~uint64_t(0);
    if (it.Next(&r) && r.refname == name) {
      ++found;
      check += r.value[0];
    }
  }
  return found * 1000003 + check;
}

}  // namespace

int Main(int argc, char** argv) {
  const char* env_dir = std::getenv("REFTAB_BENCH_DIR");
  std::string dir = env_dir ? env_dir : "/tmp/reftab-bench";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--reps" && i + 1 < argc) {
      g_reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--only" && i + 1 < argc) {
      g_only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: reftab-ablate [--dir DATASET] [--reps N] [--only WORD]\n");
      return 2;
    }
  }
  auto one_tables = OpenTables(dir + "/one");
  auto stack_tables = OpenTables(dir + "/stack");
  if (!one_tables.ok() || !stack_tables.ok()) {
    std::fprintf(stderr, "reftab-ablate: no dataset in %s (run `reftab-bench gen %s`)\n",
                 dir.c_str(), dir.c_str());
    return 1;
  }
  const std::vector<const TableReader*> one = Raw(*one_tables), stack = Raw(*stack_tables);
  const TableReader& table = *one[0];
  std::vector<std::string> names = ReadNames(dir + "/NAMES.txt", 100000);
  Input input;
  if (!ReadInput(dir + "/IN.txt", &input) || names.empty()) {
    std::fprintf(stderr, "reftab-ablate: cannot read IN.txt / NAMES.txt in %s\n", dir.c_str());
    return 1;
  }
  const size_t refs = input.ends.size();
  bool ok = true;
  std::printf("reftab-ablate: %s, %d reps per variant, median ns per op\n\n", dir.c_str(), g_reps);
  std::printf(
      "| technique     | workload                           | on                 "
      " ns/op | off                           ns/op | off/on | check |\n");
  std::printf("|---|---|---|---|---|---|\n");

  // ---- block copy: 10 tables of 20,000 key/value entries each (16-byte keys, 100-byte
  // values, as reftab-kv-bench writes them), key ranges one after the other, merged into one.
  {
    std::vector<std::unique_ptr<TableReader>> held;
    std::vector<const TableReader*> disjoint;
    constexpr int kTables = 10, kPerTable = 20000;
    std::string value(100, '\0');
    for (int t = 0; t < kTables && ok; ++t) {
      std::string bytes;
      StringSink sink(&bytes);
      WriteOptions o;
      o.index_objects = false;
      TableWriter w(o, &sink);
      ok &= w.SetLimits(uint64_t(t) + 1, uint64_t(t) + 1).ok();
      RefRecord r;
      r.update_index = uint64_t(t) + 1;
      r.value_type = RefValueType::kSymref;
      for (int i = t * kPerTable; i < (t + 1) * kPerTable; ++i) {
        char key[24];
        std::snprintf(key, sizeof key, "%016d", i);
        for (size_t b = 0; b < value.size(); ++b) value[b] = char(i * 31 + int(b) * 7);
        r.refname = key;
        r.target = value;
        ok &= w.AddRef(r).ok();
      }
      ok &= w.Finish().ok();
      auto table = TableReader::OpenBytes("disjoint-" + std::to_string(t), std::move(bytes));
      if (!table.ok()) return 1;
      disjoint.push_back(table->get());
      held.push_back(std::move(*table));
    }
    std::vector<const TableReader*> order;
    ok &= OrderDisjointTables(disjoint, &order).ok() && order.size() == disjoint.size();
    // Each returns the refs it wrote. The merged table's bytes are counted, not kept: what
    // differs is the merge's work, not where its output goes.
    class CountingSink final : public WritableFile {
     public:
      Status Append(std::string_view data) override {
        bytes += data.size();
        return Status::Ok();
      }
      Status Sync() override { return Status::Ok(); }
      Status Close() override { return Status::Ok(); }
      uint64_t bytes = 0;
    };
    auto merge = [&](bool copy) {
      CountingSink sink;
      WriteOptions o;
      o.index_objects = false;
      TableWriter w(o, &sink);
      if (!w.SetLimits(1, kTables).ok()) return ~uint64_t(0);
      if (copy) {
        bool copied = false;
        if (!WriteDisjointTables(w, order, /*drop_tombstones=*/true, {}, &copied).ok() || !copied)
          return ~uint64_t(0);
      } else {
        RefMergeCursor refs(disjoint);
        refs.set_suppress_deletions(true);
        if (!refs.SeekToFirst().ok()) return ~uint64_t(0);
        RefRecord r;
        while (refs.Next(&r)) {
          if (!w.AddRef(r).ok()) return ~uint64_t(0);
        }
      }
      if (!w.Finish().ok()) return ~uint64_t(0);
      return w.stats().ref_records;
    };
    ok &= Compare("block-copy", "merge 10 disjoint tables (200k kv)", kTables * kPerTable,
                  {"copy blocks", [&] { return merge(true); }},
                  {"record by record", [&] { return merge(false); }});
  }

  // ---- appender: encode every ref of IN.txt into 4 KiB ref blocks.
  {
    auto production = [&](std::string* out) {
      BlockWriter w(kDefaultBlockSize, kDefaultRestartInterval);
      w.Start(BlockType::kRef, "");
      RefRecord r;
      r.value_type = RefValueType::kVal1;
      uint64_t bytes = 0;
      for (size_t i = 0; i < refs; ++i) {
        std::string_view key = input.name(i);
        r.value = input.ids[i];
        auto enc = [&](Appender& a) { codec::PutRefValue(a, r, 0, kSha1Size); };
        size_t max = codec::RefValueMaxSize(r, kSha1Size);
        if (w.Add(key, 1, max, enc) != AddResult::kAdded) {
          std::string_view b = w.Finish();
          bytes += b.size();
          if (out) out->append(b);
          w.Start(BlockType::kRef, "");
          (void)w.Add(key, 1, max, enc);
        }
      }
      std::string_view b = w.Finish();
      if (out) out->append(b);
      return bytes + b.size();
    };
    auto checked = [&](std::string* out) {
      naive::CheckedBlockWriter w(kDefaultBlockSize, kDefaultRestartInterval);
      w.Start(BlockType::kRef);
      uint64_t bytes = 0;
      for (size_t i = 0; i < refs; ++i) {
        std::string_view key = input.name(i);
        if (!w.AddVal1(key, 0, input.ids[i].data(), kSha1Size)) {
          std::string_view b = w.Finish();
          bytes += b.size();
          if (out) out->append(b);
          w.Start(BlockType::kRef);
          (void)w.AddVal1(key, 0, input.ids[i].data(), kSha1Size);
        }
      }
      std::string_view b = w.Finish();
      if (out) out->append(b);
      return bytes + b.size();
    };
    std::string a, b;
    production(&a);
    checked(&b);
    if (a != b) {
      std::printf("appender: the two writers produce different blocks\n");
      ok = false;
    }
    ok &= Compare("appender", "encode 1M refs into ref blocks", refs,
                  {"reserve+unchecked", [&] { return production(nullptr); }},
                  {"bounds check per field", [&] { return checked(nullptr); }});
  }

  // ---- readahead: the dataset's one-table file, written again under a new name before
  // each scan of the first workload. The copies stay until the end: their pages are new
  // to the page cache and to this process (a removed file's pages would be reused).
  {
    auto bytes = PosixFileSystem()->ReadFile(table.name());
    std::vector<std::string> written;
    std::unique_ptr<TableReader> fresh;
    auto write_fresh = [&] {
      fresh.reset();
      const std::string path = dir + "/readahead-" + std::to_string(written.size()) + ".ref";
      std::remove(path.c_str());
      written.push_back(path);
      auto out = PosixFileSystem()->Create(path, /*exclusive=*/true);
      if (!bytes.ok() || !out.ok() || !(*out)->Append(*bytes).ok() || !(*out)->Close().ok()) return;
      auto in = PosixFileSystem()->OpenRead(path);
      if (!in.ok()) return;
      auto t = TableReader::Open(std::move(*in));
      if (t.ok()) fresh = std::move(*t);
    };
    auto scan = [](const TableReader* t, bool ahead) -> uint64_t {
      if (t == nullptr) return 0;
      TableRefCursor c(t);
      c.set_readahead(ahead);
      if (!c.SeekToFirst().ok()) return 0;
      RefRecord r;
      uint64_t n = 0, check = 0;
      while (c.Next(&r)) {
        ++n;
        check += r.value[0];
      }
      return c.status().ok() ? n * 1000003 + check : 0;
    };
    ok &= Compare("readahead", "scan a table file just written", refs + 1,
                  {"read ahead", [&] { return scan(fresh.get(), true); }, write_fresh},
                  {"through the mapping", [&] { return scan(fresh.get(), false); }, write_fresh});
    ok &= Compare("readahead", "scan a table file scanned before", refs + 1,
                  {"read ahead", [&] { return scan(&table, true); }},
                  {"through the mapping", [&] { return scan(&table, false); }});
    fresh.reset();
    for (const std::string& path : written) std::remove(path.c_str());
  }

  // ---- merged iterator techniques.
  {
    // One big base table plus two small tables that run out after a few records: the
    // shape the bypass is for (a repacked repository with a few recent updates).
    std::vector<std::unique_ptr<TableReader>> small;
    for (int t = 0; t < 2; ++t) {
      std::string bytes;
      StringSink sink(&bytes);
      TableWriter w(WriteOptions{}, &sink);
      (void)w.SetLimits(2 + uint64_t(t), 2 + uint64_t(t));
      for (int i = 0; i < 50; ++i) {
        RefRecord r;
        char name[64];
        std::snprintf(name, sizeof name, "refs/changes/%d/%02d", t, i);
        r.refname = name;
        r.update_index = 2 + uint64_t(t);
        r.value_type = RefValueType::kVal1;
        r.value = input.ids[size_t(i)];
        (void)w.AddRef(r);
      }
      (void)w.Finish();
      auto opened = TableReader::OpenBytes("small" + std::to_string(t), bytes);
      if (opened.ok()) small.push_back(std::move(*opened));
    }
    std::vector<const TableReader*> base_plus = one;
    for (const auto& s : small) base_plus.push_back(s.get());
    const uint64_t base_refs = refs + 1 + 100;
    ok &= Compare("bypass", "scan base table + 2 small tables", base_refs,
                  {"bypass", [&] { return ScanMerged<Off::kNothing>(base_plus); }},
                  {"no bypass", [&] { return ScanMerged<Off::kBypass>(base_plus); }});
    ok &= Compare("bypass", "scan one table", refs + 1,
                  {"bypass", [&] { return ScanMerged<Off::kNothing>(one); }},
                  {"no bypass", [&] { return ScanMerged<Off::kBypass>(one); }});

    std::vector<std::string> some(names.begin(),
                                  names.begin() + std::min<size_t>(20000, names.size()));
    ok &= Compare("lazy-advance", "seek+next lookups, 9-table stack", some.size(),
                  {"lazy", [&] { return SeekNextLookups<Off::kNothing>(stack, some); }},
                  {"eager", [&] { return SeekNextLookups<Off::kLazyAdvance>(stack, some); }});
    ok &= Compare("lazy-advance", "scan 9-table stack", refs + 1,
                  {"lazy", [&] { return ScanMerged<Off::kNothing>(stack); }},
                  {"eager", [&] { return ScanMerged<Off::kLazyAdvance>(stack); }});
    ok &= Compare("ovc", "scan 9-table stack", refs + 1,
                  {"offset-value codes", [&] { return ScanMerged<Off::kNothing>(stack); }},
                  {"string compares", [&] { return ScanMerged<Off::kOffsetValueCodes>(stack); }});

    // Two whole scans first, so that the memo holds the order before the timed reps.
    Snapshot snap(*stack_tables, HashId::kSha1);
    MergeOrderMemo* memo = SnapshotAccess::RefOrder(snap);
    ScanSnapshot(snap, memo);
    ScanSnapshot(snap, memo);
    ok &= Compare("merge-order", "repeated scans of the 9-table stack", refs + 1,
                  {"replayed order", [&] { return ScanSnapshot(snap, memo); }},
                  {"merged each time", [&] { return ScanSnapshot(snap, nullptr); }});
  }

  // ---- in-place key decoding: walk every ref block of the single table.
  {
    std::vector<BlockView> blocks;
    (void)table.ForEachBlock([&](const BlockView& b) {
      if (b.type == BlockType::kRef) blocks.push_back(b);
      return Status::Ok();
    });
    auto in_place = [&] {
      uint64_t check = 0;
      BlockIterator it;
      for (const BlockView& b : blocks) {
        it.Init(b, kSha1Size);
        while (it.NextKey()) {
          std::string_view k = it.key();
          check += k.size() + uint8_t(k.back());
          ByteReader in = it.value();
          (void)SkipValue(in, BlockType::kRef, it.value_type(), kSha1Size);
          it.ValueDone(in);
        }
      }
      return check;
    };
    auto allocating = [&] {
      uint64_t check = 0;
      for (const BlockView& b : blocks) {
        naive::AllocatingBlockIterator it(b);
        while (it.NextKey()) {
          const std::string& k = it.key();
          check += k.size() + uint8_t(k.back());
          ByteReader in = it.value();
          (void)SkipValue(in, BlockType::kRef, it.value_type(), kSha1Size);
          it.ValueDone(in);
        }
      }
      return check;
    };
    ok &= Compare("in-place-keys", "decode every key of the table", refs + 1,
                  {"in place", in_place}, {"new string per key", allocating});
  }

  // ---- precomputed prefix length in a prefix scan (git 43f70eaea0).
  {
    const char* prefix = "refs/tags/";
    auto scan = [&](bool precomputed) {
      RefMergeCursor it(one);
      std::string_view p(prefix);
      Status s = it.Seek(p);
      RefRecord r;
      uint64_t n = 0;
      while (s.ok() && it.Next(&r)) {
        bool in = precomputed ? r.refname.compare(0, p.size(), p) == 0
                              : std::strncmp(r.refname.c_str(), prefix, std::strlen(prefix)) == 0;
        if (!in) break;
        n += 1 + r.value[0];
      }
      return n;
    };
    ok &= Compare("prefix-length", "prefix scan refs/tags/ (200k)", 200000,
                  {"length once", [&] { return scan(true); }},
                  {"strlen per ref", [&] { return scan(false); }});
  }

  // ---- exact lookups: the fast path against seek-and-next.
  {
    auto fast = [&](const std::vector<std::shared_ptr<const TableReader>>& tables) {
      return SnapshotLookups(tables, names);
    };
    auto fresh_iterator = [&](const std::vector<const TableReader*>& tables) {
      RefRecord r;
      uint64_t found = 0, check = 0;
      for (const std::string& name : names) {
        RefMergeCursor it(tables);
        it.set_suppress_deletions(true);
        if (!it.Seek(name).ok()) return ~uint64_t(0);
        if (it.Next(&r) && r.refname == name) {
          ++found;
          check += r.value[0];
        }
      }
      return found * 1000003 + check;
    };
    ok &= Compare(
        "lookup", "100k lookups, one table", names.size(),
        {"ReadRef", [&] { return fast(*one_tables); }},
        {"seek+next, reused iterator", [&] { return SeekNextLookups<Off::kNothing>(one, names); }});
    ok &= Compare("lookup", "100k lookups, one table", names.size(),
                  {"ReadRef", [&] { return fast(*one_tables); }},
                  {"seek+next, new iterator", [&] { return fresh_iterator(one); }});
    ok &= Compare("lookup", "100k lookups, 9-table stack", names.size(),
                  {"ReadRef", [&] { return fast(*stack_tables); }},
                  {"seek+next, reused iterator",
                   [&] { return SeekNextLookups<Off::kNothing>(stack, names); }});
    ok &= Compare("lookup", "100k lookups, 9-table stack", names.size(),
                  {"ReadRef", [&] { return fast(*stack_tables); }},
                  {"seek+next, new iterator", [&] { return fresh_iterator(stack); }});
  }

  // ---- the adaptive lookup structures (the hash index, TableReader::RefMayExist,
  // RefBlockIndex): the same tables opened twice, one copy allowed to build them.
  {
    auto plain_one = OpenTables(dir + "/one");
    auto plain_stack = OpenTables(dir + "/stack");
    if (!plain_one.ok() || !plain_stack.ok()) return 1;
    for (const auto& t : *plain_one) t->set_lookup_aids(false);
    for (const auto& t : *plain_stack) t->set_lookup_aids(false);
    auto lookups = [&](const std::vector<std::shared_ptr<const TableReader>>& tables) {
      return SnapshotLookups(tables, names);
    };
    ok &= Compare("accelerators", "100k lookups, one table", names.size(),
                  {"hash index", [&] { return lookups(*one_tables); }},
                  {"on-disk index only", [&] { return lookups(*plain_one); }});
    ok &= Compare("accelerators", "100k lookups, 9-table stack", names.size(),
                  {"hash indexes", [&] { return lookups(*stack_tables); }},
                  {"neither", [&] { return lookups(*plain_stack); }});
    size_t table_bytes = 0;
    for (const auto& t : *stack_tables) table_bytes += t->file_size();
    const SnapshotMemory built = Snapshot(*stack_tables, HashId::kSha1).memory();
    if (g_only.empty() || std::string("accelerators").find(g_only) != std::string::npos) {
      std::printf(
          "(9-table stack: hash indexes %zu bytes, filters %zu bytes, flat indexes %zu bytes, "
          "tables %zu bytes)\n",
          built.hash_indexes, built.filters, built.block_indexes, table_bytes);
    }
  }
  return ok ? 0 : 1;
}

}  // namespace reftab

int main(int argc, char** argv) { return reftab::Main(argc, argv); }

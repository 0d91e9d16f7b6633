// reftab-bench: the in-process benchmark driver of issue 4. Outside checks run the same
// interface over git's reftable library, so the modes, their arguments and the output line
// are fixed:
//
//   reftab-bench write IN.txt OUT.ref [noobj]   write IN.txt's refs as one table
//   reftab-bench scan DIR [reps]                iterate every ref of the stack in DIR
//   reftab-bench lookup DIR NAMES.txt [reps]    exact lookup of every name in NAMES.txt
//   reftab-bench prefix DIR PREFIX [reps]       seek to PREFIX, iterate while it matches
//   reftab-bench gen OUTDIR [--ids FILE] [--scale S] [-q] [--[no-]progress]
//                                                       write the dataset (bench_dataset.h)
//
// Each timed mode prints one line on stdout:
//   <mode> n=<ops> best_ns_per_op=<x> median_ns_per_op=<y>
// Timing covers only the operation: reading IN.txt/NAMES.txt, opening the stack and process
// start are outside it. Every rep builds a fresh iterator (scan, prefix) or writer (write).
// A write rep creates OUT.ref anew, as a stack writes every table to a new file; the last
// rep's file is removed before the clock starts. (Re-created over with O_TRUNC, ext4 first
// flushed the old file's delayed blocks to disk, its guard for truncate-and-rewrite
// updates: 17-23 ms of each 1M-ref rep, for both drivers, that no stack write pays.)
// Default reps: 5 for write, 10 otherwise; REFTAB_BENCH_REPS overrides the default.
// A scan rep scans the snapshot as the library's listings do, so from the third rep on it
// replays the merge order the second recorded (store/merge_order.h);
// REFTAB_BENCH_MERGE_ORDER=off makes every rep merge, as a snapshot's first scan does.
// REFTAB_BENCH_MEM=1 prints the process's peak and current memory (VmHWM, RssAnon, RssFile)
// on stderr afterwards, which shows that a scan maps the table instead of copying it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef REFTAB_BENCH_NO_GEN  // the variant builds (perf/meson.build) link no generator
#include "cli/progress.h"
#include "perf/bench_dataset.h"
#endif
#include "format/bytes.h"
#include "format/record.h"
#include "store/merge_cursor.h"
#include "store/snapshot_access.h"
#include "store/stack.h"
#include "store/table_writer.h"

namespace reftab {
namespace {

using Clock = std::chrono::steady_clock;

int Die(const std::string& msg) {
  std::fprintf(stderr, "reftab-bench: %s\n", msg.c_str());
  return 1;
}

int Usage() {
  std::fputs(
      "usage: reftab-bench write IN.txt OUT.ref [noobj]\n"
      "       reftab-bench scan DIR [reps]\n"
      "       reftab-bench lookup DIR NAMES.txt [reps]\n"
      "       reftab-bench prefix DIR PREFIX [reps]\n"
      "       reftab-bench gen OUTDIR [--ids FILE] [--scale S] [-q] [--[no-]progress]\n",
      stderr);
  return 2;
}

// Collects one ns-per-op figure per rep and prints the result line.
struct Timings {
  std::vector<double> ns_per_op;
  void Add(Clock::duration d, uint64_t ops) {
    double ns = double(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
    ns_per_op.push_back(ops ? ns / double(ops) : 0.0);
  }
  void Print(const char* mode, uint64_t ops) {
    std::vector<double> v = ns_per_op;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    double median = n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    std::printf("%s n=%llu best_ns_per_op=%.2f median_ns_per_op=%.2f\n", mode,
                (unsigned long long)ops, n ? v[0] : 0.0, median);
  }
};

int Reps(int argc, char** argv, int at, int def) {
  if (argc > at) return std::max(1, std::atoi(argv[at]));
  if (const char* e = std::getenv("REFTAB_BENCH_REPS")) return std::max(1, std::atoi(e));
  return def;
}

void PrintMemory() {
  if (!std::getenv("REFTAB_BENCH_MEM")) return;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM", 0) == 0 || line.rfind("VmRSS", 0) == 0 ||
        line.rfind("RssAnon", 0) == 0 || line.rfind("RssFile", 0) == 0) {
      std::fprintf(stderr, "mem %s\n", line.c_str());
    }
  }
}

// With REFTAB_BENCH_MEM, what the snapshot built in memory for the reps: the tables' lookup
// aids and the recorded merge order of whole scans (store/stack.h, store/table_reader.h).
void PrintMemory(const Snapshot& snap) {
  PrintMemory();
  if (!std::getenv("REFTAB_BENCH_MEM")) return;
  size_t tables = 0;
  for (const TableReader* t : snap.readers()) tables += t->file_size();
  const SnapshotMemory m = snap.memory();
  std::fprintf(stderr,
               "mem built: hash indexes %zu bytes, filters %zu, flat indexes %zu, merge order "
               "%zu (tables: %zu bytes)\n",
               m.hash_indexes, m.filters, m.block_indexes, m.merge_order, tables);
}

// "<hex> SP <name>" lines: the names (and, for write, the ids).
struct Lines {
  std::vector<std::string> names;
  std::vector<ObjectId> ids;
};

Status ReadLines(const char* path, bool want_ids, Lines* out) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(std::string(path) + ": cannot open");
  std::string line;
  uint64_t no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (line.empty()) continue;
    size_t sp = line.find(' ');
    if (sp == std::string::npos || sp + 1 >= line.size()) {
      return Status::InvalidArgument(std::string(path) + ":" + std::to_string(no) +
                                     ": expected '<hex id> <refname>'");
    }
    if (want_ids) {
      ObjectId id{};
      if (!ParseHexId(std::string_view(line).substr(0, sp), kSha1Size, &id)) {
        return Status::InvalidArgument(std::string(path) + ":" + std::to_string(no) +
                                       ": bad object id");
      }
      out->ids.push_back(id);
    }
    out->names.emplace_back(line, sp + 1);
  }
  return Status::Ok();
}

Result<std::shared_ptr<const Snapshot>> OpenSnapshot(const char* dir) {
  auto stack = Stack::Open(dir, StackOptions{});
  if (!stack.ok()) return stack.status();
  // The snapshot keeps the tables open (and mapped) after the Stack object is gone.
  return (*stack)->snapshot();
}

int Write(int argc, char** argv) {
  if (argc < 4 || argc > 5) return Usage();
  bool noobj = argc == 5 && std::strcmp(argv[4], "noobj") == 0;
  if (argc == 5 && !noobj) return Usage();
  Lines in;
  Status s = ReadLines(argv[2], /*want_ids=*/true, &in);
  if (!s.ok()) return Die(s.message());
  // Keep the input compact (names in one arena), as a real caller streaming refs would.
  std::string arena;
  std::vector<uint32_t> ends;
  for (const std::string& n : in.names) {
    arena.append(n);
    ends.push_back(uint32_t(arena.size()));
  }
  in.names.clear();
  in.names.shrink_to_fit();
  WriteOptions opts;
  opts.index_objects = !noobj;
  const std::string out = argv[3];
  int reps = Reps(0, nullptr, 0, 5);
  Timings t;
  for (int rep = 0; rep < reps; ++rep) {
    (void)PosixFileSystem()->Remove(out);  // see the file comment; absent the first time
    auto t0 = Clock::now();
    auto file = PosixFileSystem()->Create(out, /*exclusive=*/true);
    if (!file.ok()) return Die(file.status().message());
    BufferedSink sink(std::move(*file));
    TableWriter w(opts, &sink);
    s = w.SetLimits(1, 1);
    uint32_t begin = 0;
    for (size_t i = 0; s.ok() && i < ends.size(); ++i) {
      // The name where the arena holds it, as git's driver hands its writer a pointer:
      // copying each into a RefRecord was 41 of 284 instructions per ref (callgrind).
      s = w.AddRef(std::string_view(arena.data() + begin, ends[i] - begin), 1, in.ids[i]);
      begin = ends[i];
    }
    if (s.ok()) s = w.Finish();
    if (s.ok()) s = sink.Close();
    if (!s.ok()) return Die(s.message());
    t.Add(Clock::now() - t0, ends.size());
  }
  t.Print("write", ends.size());
  PrintMemory();
  return 0;
}

int Scan(int argc, char** argv) {
  if (argc < 3 || argc > 4) return Usage();
  auto snap = OpenSnapshot(argv[2]);
  if (!snap.ok()) return Die(snap.status().message());
  int reps = Reps(argc, argv, 3, 10);
  const char* order_env = std::getenv("REFTAB_BENCH_MERGE_ORDER");
  const bool merge_order = order_env == nullptr || std::strcmp(order_env, "off") != 0;
  Timings t;
  uint64_t n = 0, check = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = Clock::now();
    RefMergeCursor it((*snap)->readers());
    // As the library's listings do: the second scan of the snapshot records the merge's
    // order and the ones after it replay it; REFTAB_BENCH_MERGE_ORDER=off merges every rep.
    if (merge_order) it.set_merge_order(SnapshotAccess::RefOrder(**snap));
    Status s = it.SeekToFirst();
    RefRecord rec;
    n = 0;
    while (s.ok() && it.Next(&rec)) {
      ++n;
      check += rec.value[0] + rec.refname.size();
    }
    if (s.ok()) s = it.status();
    if (!s.ok()) return Die(s.message());
    t.Add(Clock::now() - t0, n);
  }
  if (check == 1) std::fputs("", stderr);  // keeps the loop's work observable
  t.Print("scan", n);
  PrintMemory(**snap);
  return 0;
}

int Lookup(int argc, char** argv) {
  if (argc < 4 || argc > 5) return Usage();
  auto snap = OpenSnapshot(argv[2]);
  if (!snap.ok()) return Die(snap.status().message());
  Lines names;
  Status s = ReadLines(argv[3], /*want_ids=*/false, &names);
  if (!s.ok()) return Die(s.message());
  int reps = Reps(argc, argv, 4, 10);
  Timings t;
  uint64_t found_count = 0;
  for (int rep = 0; rep < reps; ++rep) {
    RefRecord rec;
    found_count = 0;
    auto t0 = Clock::now();
    for (const std::string& name : names.names) {
      bool found = false;
      s = (*snap)->ReadRef(name, &rec, &found);
      if (!s.ok()) return Die(s.message());
      found_count += found;
    }
    t.Add(Clock::now() - t0, names.names.size());
  }
  if (found_count != names.names.size()) {
    std::fprintf(stderr, "reftab-bench: warning: %llu of %zu names not found\n",
                 (unsigned long long)(names.names.size() - found_count), names.names.size());
  }
  t.Print("lookup", names.names.size());
  PrintMemory(**snap);
  return 0;
}

int Prefix(int argc, char** argv) {
  if (argc < 4 || argc > 5) return Usage();
  auto snap = OpenSnapshot(argv[2]);
  if (!snap.ok()) return Die(snap.status().message());
  const std::string_view prefix = argv[3];
  int reps = Reps(argc, argv, 4, 10);
  Timings t;
  uint64_t n = 0, check = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto t0 = Clock::now();
    RefMergeCursor it((*snap)->readers());
    // The cursor ends the scan where names leave the prefix (RefMergeCursor::SeekPrefix).
    Status s = it.SeekPrefix(prefix);
    RefRecord rec;
    n = 0;
    while (s.ok() && it.Next(&rec)) {
      ++n;
      check += rec.value[0];
    }
    if (s.ok()) s = it.status();
    if (!s.ok()) return Die(s.message());
    t.Add(Clock::now() - t0, n);
  }
  if (check == 1) std::fputs("", stderr);
  t.Print("prefix", n);
  PrintMemory(**snap);
  return 0;
}

#ifndef REFTAB_BENCH_NO_GEN
int Gen(int argc, char** argv) {
  perf::BenchDatasetOptions options;
  std::string outdir;
  cli::ProgressFlag progress_flag = cli::ProgressFlag::kAuto;
  for (int i = 2; i < argc; ++i) {
    std::string_view a = argv[i];
    if (cli::TakeProgressFlag(std::string(a), &progress_flag)) continue;
    if (a == "--ids" && i + 1 < argc) {
      options.ids_file = argv[++i];
    } else if (a == "--scale" && i + 1 < argc) {
      options.scale = std::atof(argv[++i]);
    } else if (a == "-q" || a == "--quiet") {
      options.verbose = false;
    } else if (a.empty() || a[0] == '-' || !outdir.empty()) {
      return Usage();
    } else {
      outdir = a;
    }
  }
  if (outdir.empty()) return Usage();
  cli::TerminalProgress progress(progress_flag);
  options.progress = progress.get();
  Status s = perf::GenerateBenchDataset(outdir, options);
  return s.ok() ? 0 : Die(s.message());
}
#endif

}  // namespace
}  // namespace reftab

int main(int argc, char** argv) {
  using namespace reftab;
  if (argc < 2) return Usage();
  std::string mode = argv[1];
  if (mode == "write") return Write(argc, argv);
  if (mode == "scan") return Scan(argc, argv);
  if (mode == "lookup") return Lookup(argc, argv);
  if (mode == "prefix") return Prefix(argc, argv);
#ifndef REFTAB_BENCH_NO_GEN
  if (mode == "gen") return Gen(argc, argv);
#endif
  return Usage();
}

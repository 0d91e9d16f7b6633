// reftab demo [--refs N] [--dir DIR] [--keep]
// Writes a realistic table of N refs (default 100,000) as a one-table stack in a temporary
// folder, then looks refs up, lists a prefix, dumps a few records, and prints what it did
// with timings. Everything goes through the same library calls an embedding program uses.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "cli/commands.h"
#include "cli/git_format.h"
#include "cli/output.h"
#include "store/merged_iterator.h"
#include "store/stack.h"
#include "store/table_writer.h"

namespace reftab::cli {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

ObjectId RandomId(std::mt19937_64& rng) {
  ObjectId id{};
  for (size_t i = 0; i < kMaxHashSize; i += 8) {
    uint64_t v = rng();
    for (size_t k = 0; k < 8; ++k) id[i + k] = uint8_t(v >> (8 * k));
  }
  return id;
}

// HEAD, main, feature branches and tags (every tenth annotated), sorted by name.
std::vector<RefRecord> DemoRefs(size_t n) {
  std::mt19937_64 rng(20261130);
  std::vector<RefRecord> refs;
  refs.reserve(n);
  RefRecord head;
  head.refname = "HEAD";
  head.value_type = RefValueType::kSymref;
  head.target = "refs/heads/main";
  refs.push_back(head);
  size_t tags = n / 5;
  size_t branches = n > tags + 2 ? n - tags - 2 : 0;
  char buf[96];
  for (size_t i = 0; i < branches; ++i) {
    RefRecord r;
    std::snprintf(buf, sizeof buf, "refs/heads/feature/user-%04zu/topic-%03zu", i / 200, i % 200);
    r.refname = buf;
    r.value_type = RefValueType::kVal1;
    r.value = RandomId(rng);
    refs.push_back(std::move(r));
  }
  RefRecord main;
  main.refname = "refs/heads/main";
  main.value_type = RefValueType::kVal1;
  main.value = RandomId(rng);
  refs.push_back(main);
  for (size_t i = 0; i < tags; ++i) {
    RefRecord r;
    std::snprintf(buf, sizeof buf, "refs/tags/v%zu.%zu.%zu", i / 10000, (i / 100) % 100, i % 100);
    r.refname = buf;
    r.value = RandomId(rng);
    if (i % 10 == 0) {
      r.value_type = RefValueType::kVal2;
      r.peeled = RandomId(rng);
    } else {
      r.value_type = RefValueType::kVal1;
    }
    refs.push_back(std::move(r));
  }
  std::sort(refs.begin(), refs.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  for (auto& r : refs) r.update_index = 1;
  return refs;
}

}  // namespace

int CmdDemo(const GlobalOptions&, const Args& args) {
  uint64_t n = 100000;
  std::string dir;
  bool keep = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (TakeValue(args, &i, "--refs", &v)) {
      if (!ParseUint(v, &n) || n < 10 || n > 50000000)
        return Usage(kDemoUsage, "--refs takes 10..50000000");
    } else if (TakeValue(args, &i, "--dir", &v)) {
      dir = v;
    } else if (args[i] == "--keep") {
      keep = true;
    } else {
      return Usage(kDemoUsage, UnknownArgument(args[i], {"--refs", "--dir"}));
    }
  }
  if (dir.empty()) {
    char tmpl[] = "/tmp/reftab-demo-XXXXXX";
    if (!mkdtemp(tmpl)) return Fail(Status::IoError("cannot create a temporary folder"));
    dir = tmpl;
  } else if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return Fail(Status::IoError(dir + ": cannot create folder"));
  }
  FileSystem* fs = PosixFileSystem();
  std::printf("reftab demo: %llu refs in %s\n", (unsigned long long)n, dir.c_str());

  auto t0 = Clock::now();
  std::vector<RefRecord> refs = DemoRefs(size_t(n));
  std::printf("  generated %zu refs in memory              %8.1f ms\n", refs.size(), MsSince(t0));

  // Named as git names tables, so that `git refs verify` on the demo finds nothing wrong. The
  // CLI sees only the library's public API (cli_link=shared links it against libreftab.so),
  // so the random suffix comes from the standard library, not the stack's own seed.
  const std::string table = GitTableStem(1, 1, uint32_t(std::random_device{}())) + ".ref";
  t0 = Clock::now();
  Status s;
  WriteStats stats;
  {
    auto file = fs->Create(dir + "/" + table, false);
    if (!file.ok()) return Fail(file.status());
    TableWriter w(WriteOptions{}, file->get());
    s = w.SetLimits(1, 1);
    for (size_t i = 0; s.ok() && i < refs.size(); ++i) s = w.AddRef(refs[i]);
    if (s.ok()) s = w.Finish();
    if (s.ok()) s = (*file)->Close();
    stats = w.stats();
  }
  if (s.ok()) {
    auto list = fs->Create(dir + "/tables.list", false);
    s = list.ok() ? (*list)->Append(table + "\n") : list.status();
    if (s.ok()) s = (*list)->Close();
  }
  if (!s.ok()) return Fail(s);
  double write_ms = MsSince(t0);
  std::printf("  wrote %s: %llu bytes, %llu blocks, %llu obj records  %8.1f ms (%.0f ns/ref)\n",
              table.c_str(), (unsigned long long)stats.bytes, (unsigned long long)stats.blocks,
              (unsigned long long)stats.obj_records, write_ms,
              write_ms * 1e6 / double(refs.size()));

  t0 = Clock::now();
  auto stack = Stack::Open(dir, StackOptions{});
  if (!stack.ok()) return Fail(stack.status());
  auto snap = (*stack)->snapshot();
  std::printf("  opened the stack                        %8.3f ms\n", MsSince(t0));

  // Exact lookups of random existing names and of names that do not exist.
  std::mt19937_64 rng(7);
  const size_t lookups = 10000;
  std::vector<size_t> picks(lookups);
  for (auto& p : picks) p = size_t(rng() % refs.size());
  RefRecord rec;
  size_t hits = 0;
  t0 = Clock::now();
  for (size_t p : picks) {
    bool found = false;
    s = snap->ReadRef(refs[p].refname, &rec, &found);
    if (!s.ok()) return Fail(s);
    hits += found && rec.refname == refs[p].refname;
  }
  double look_ms = MsSince(t0);
  std::printf("  %zu exact lookups, %zu found            %8.1f ms (%.0f ns/lookup)\n", lookups,
              hits, look_ms, look_ms * 1e6 / double(lookups));
  if (hits != lookups) return Fail(Status::Corruption("demo: a written ref was not found"));
  bool found = true;
  s = snap->ReadRef("refs/heads/no-such-branch", &rec, &found);
  if (!s.ok()) return Fail(s);
  std::printf("  lookup of refs/heads/no-such-branch: %s\n",
              found ? "found (wrong!)" : "not found");

  // Prefix listing and a full scan through the merged iterator.
  t0 = Clock::now();
  size_t tagged = 0, annotated = 0;
  MergedRefIterator it = snap->NewRefIterator();
  s = it.Seek("refs/tags/");
  while (s.ok() && it.Next(&rec) && rec.refname.compare(0, 10, "refs/tags/") == 0) {
    ++tagged;
    annotated += rec.value_type == RefValueType::kVal2;
  }
  if (s.ok()) s = it.status();
  if (!s.ok()) return Fail(s);
  std::printf("  listed refs/tags/: %zu tags, %zu annotated   %8.1f ms\n", tagged, annotated,
              MsSince(t0));
  t0 = Clock::now();
  size_t all = 0;
  s = it.SeekToFirst();
  while (s.ok() && it.Next(&rec)) ++all;
  if (s.ok()) s = it.status();
  if (!s.ok()) return Fail(s);
  double scan_ms = MsSince(t0);
  std::printf("  full scan: %zu refs                      %8.1f ms (%.1f ns/ref)\n", all, scan_ms,
              scan_ms * 1e6 / double(all));

  // A few records in git's dump format.
  std::printf("  first records (git's dump-reftable format):\n");
  std::string text;
  s = it.SeekToFirst();
  for (int i = 0; s.ok() && i < 3 && it.Next(&rec); ++i)
    AppendRefGit(rec, snap->hash_size(), &text);
  s = it.Seek("refs/tags/v0.0.0");
  for (int i = 0; s.ok() && i < 2 && it.Next(&rec); ++i)
    AppendRefGit(rec, snap->hash_size(), &text);
  std::fputs(text.c_str(), stdout);

  if (!keep) {
    (void)fs->Remove(dir + "/" + table);
    (void)fs->Remove(dir + "/tables.list");
    rmdir(dir.c_str());
    std::printf("  removed %s (use --keep to keep it)\n", dir.c_str());
  }
  return kExitOk;
}

}  // namespace reftab::cli

// `reftab help demo` and `reftab demo -h` (cli/commands.h).
const char* const reftab::cli::kDemoUsage =
    "usage: reftab demo [--refs <n>] [--dir <dir>] [--keep]\n"
    "\n"
    "    --refs <n>            how many refs to write (default 100000)\n"
    "    --dir <dir>           where to write them (default: a temporary directory)\n"
    "    --keep                keep the directory afterwards\n"
    "\n";

// The benchmark dataset (see bench_dataset.h): both layouts as reftable directories with
// tables.list, plus IN.txt and NAMES.txt. Deterministic: the same bytes on every run.
#include "perf/bench_dataset.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <vector>

#include "format/record.h"
#include "store/file.h"
#include "store/table_writer.h"

namespace reftab::perf {
namespace {

// splitmix64: tiny, fast and fully specified, so the dataset does not depend on the
// standard library's distributions or shuffle.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for n far below 2^64 (the bias is below 2^-40 here).
  uint64_t Below(uint64_t n) { return Next() % n; }
  ObjectId Id() {
    ObjectId id{};
    for (size_t i = 0; i < kSha1Size; i += 4) {
      uint64_t v = Next();
      for (size_t k = 0; k < 4 && i + k < kSha1Size; ++k) id[i + k] = uint8_t(v >> (8 * k));
    }
    return id;
  }

 private:
  uint64_t s_;
};

constexpr uint64_t kIdSeed = 0x5245465441424944ull;       // "REFTABID"
constexpr uint64_t kShuffleSeed = 0x5245465441425348ull;  // "REFTABSH"
constexpr uint64_t kSampleSeed = 0x524546544142534dull;   // "REFTABSM"
constexpr uint64_t kNameSeed = 0x524546544142544eull;     // "REFTABTN"
constexpr size_t kSampleNames = 100000;
constexpr int kTransactions = 6;

// The object ids in generation order: from the generator, or from an ids file.
class IdSource {
 public:
  Status Load(const std::string& path) {
    std::ifstream in(path);
    if (!in) return Status::NotFound(path + ": cannot open");
    std::string line;
    while (std::getline(in, line)) {
      ObjectId id{};
      if (!ParseHexId(line, kSha1Size, &id)) {
        return Status::InvalidArgument(path + ":" + std::to_string(file_.size() + 1) +
                                       ": expected a 40-hex object id");
      }
      file_.push_back(id);
    }
    if (file_.size() < kBenchDatasetIds) {
      return Status::InvalidArgument(path + ": " + std::to_string(file_.size()) + " ids, " +
                                     std::to_string(kBenchDatasetIds) + " needed");
    }
    return Status::Ok();
  }
  ObjectId Next() { return file_.empty() ? rng_.Id() : file_[next_++]; }

 private:
  Rng rng_{kIdSeed};
  std::vector<ObjectId> file_;
  size_t next_ = 0;
};

void Log(bool verbose, const char* fmt, const char* a, double ms) {
  if (verbose) std::fprintf(stderr, fmt, a, ms);
}

Status MakeDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return Status::IoError(dir + ": cannot create folder");
  }
  return Status::Ok();
}

Status WriteFile(const std::string& path, std::string_view bytes) {
  auto file = PosixFileSystem()->Create(path, /*exclusive=*/false);
  if (!file.ok()) return file.status();
  REFTAB_RETURN_IF_ERROR((*file)->Append(bytes));
  return (*file)->Close();
}

// Writes `refs` (sorted) as one table with update index `ui` into `dir`; appends its name to
// *list.
Status WriteTable(const std::string& dir, std::vector<RefRecord*>& refs, uint64_t ui, Rng& names,
                  std::string* list, ProgressPhase* phase) {
  char name[64];
  std::snprintf(name, sizeof name, "0x%012llx-0x%012llx-%08x.ref", (unsigned long long)ui,
                (unsigned long long)ui, unsigned(names.Next() & 0xffffffffu));
  auto file = PosixFileSystem()->Create(dir + "/" + name, /*exclusive=*/false);
  if (!file.ok()) return file.status();
  BufferedSink sink(std::move(*file));
  TableWriter w(WriteOptions{}, &sink);
  REFTAB_RETURN_IF_ERROR(w.SetLimits(ui, ui));
  for (RefRecord* r : refs) {
    r->update_index = ui;
    REFTAB_RETURN_IF_ERROR(w.AddRef(*r));
    phase->Tick();
  }
  REFTAB_RETURN_IF_ERROR(w.Finish());
  REFTAB_RETURN_IF_ERROR(sink.Close());
  list->append(name).push_back('\n');
  return Status::Ok();
}

void SortByName(std::vector<RefRecord*>* refs) {
  std::sort(refs->begin(), refs->end(),
            [](const RefRecord* a, const RefRecord* b) { return a->refname < b->refname; });
}

void AppendLine(const RefRecord& r, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  size_t at = out->size();
  out->resize(at + 2 * kSha1Size);
  char* p = out->data() + at;
  for (size_t i = 0; i < kSha1Size; ++i) {
    p[2 * i] = kDigits[r.value[i] >> 4];
    p[2 * i + 1] = kDigits[r.value[i] & 15];
  }
  out->push_back(' ');
  out->append(r.refname).push_back('\n');
}

}  // namespace

Status GenerateBenchDataset(const std::string& outdir, const BenchDatasetOptions& options) {
  using Clock = std::chrono::steady_clock;
  const bool verbose = options.verbose;
  auto t0 = Clock::now();
  auto ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };

  // ---- the refs, in generation order (which fixes the object ids).
  const int users = int(4000 * options.scale + 0.5), majors = int(20 * options.scale + 0.5);
  if (users < 1 || majors < 1) return Status::InvalidArgument("scale too small");
  if (options.scale != 1 && !options.ids_file.empty()) {
    return Status::InvalidArgument("an ids file has ids for scale 1 only");
  }
  IdSource ids;
  if (!options.ids_file.empty()) REFTAB_RETURN_IF_ERROR(ids.Load(options.ids_file));
  std::vector<RefRecord> refs;
  refs.reserve(size_t(users) * 200 + size_t(majors) * 10000 + 2);
  auto add = [&](std::string name, RefValueType type) -> RefRecord& {
    RefRecord& r = refs.emplace_back();
    r.refname = std::move(name);
    r.value_type = type;
    if (type == RefValueType::kVal1 || type == RefValueType::kVal2) r.value = ids.Next();
    if (type == RefValueType::kVal2) r.peeled = ids.Next();
    return r;
  };
  std::optional<ProgressPhase> phase;
  phase.emplace(options.progress, "Generating refs", refs.capacity());
  add("HEAD", RefValueType::kSymref).target = "refs/heads/main";
  add("refs/heads/main", RefValueType::kVal1);
  char buf[96];
  for (int user = 0; user < users; ++user) {
    for (int topic = 0; topic < 200; ++topic) {
      std::snprintf(buf, sizeof buf, "refs/heads/feature/user-%04d/topic-%03d", user, topic);
      add(buf, RefValueType::kVal1);
    }
    phase->Set(refs.size());
  }
  for (int major = 0; major < majors; ++major) {
    for (int minor = 0; minor < 100; ++minor) {
      for (int patch = 0; patch < 100; ++patch) {
        std::snprintf(buf, sizeof buf, "refs/tags/v%d.%d.%d", major, minor, patch);
        add(buf, patch % 10 == 0 ? RefValueType::kVal2 : RefValueType::kVal1);
      }
      phase->Set(refs.size());
    }
  }
  phase.reset();
  Log(verbose, "gen: %s%.0f ms\n", "generated the refs: ", ms());

  REFTAB_RETURN_IF_ERROR(MakeDir(outdir));
  REFTAB_RETURN_IF_ERROR(MakeDir(outdir + "/one"));
  REFTAB_RETURN_IF_ERROR(MakeDir(outdir + "/stack"));
  Rng table_names(kNameSeed);

  // ---- one table with everything.
  std::vector<RefRecord*> all;
  all.reserve(refs.size());
  for (RefRecord& r : refs) all.push_back(&r);
  SortByName(&all);
  std::string list;
  phase.emplace(options.progress, "Writing one/", all.size());
  REFTAB_RETURN_IF_ERROR(WriteTable(outdir + "/one", all, 1, table_names, &list, &*phase));
  phase.reset();
  REFTAB_RETURN_IF_ERROR(WriteFile(outdir + "/one/tables.list", list));
  Log(verbose, "gen: %s%.0f ms\n", "wrote one/: ", ms());

  // ---- the 9-table stack.
  std::vector<std::vector<RefRecord*>> tables(3 + kTransactions);
  std::vector<RefRecord*> rest;
  for (RefRecord& r : refs) {
    if (r.refname == "HEAD") {
      tables[0].push_back(&r);
    } else if (r.refname == "refs/heads/main") {
      tables[1].push_back(&r);
    } else if (r.value_type == RefValueType::kVal2) {
      tables[2].push_back(&r);
    } else {
      rest.push_back(&r);
    }
  }
  Rng shuffle(kShuffleSeed);
  for (size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[shuffle.Below(i)]);
  for (size_t t = 0; t < size_t(kTransactions); ++t) {
    size_t lo = rest.size() * t / kTransactions, hi = rest.size() * (t + 1) / kTransactions;
    tables[3 + t].assign(rest.begin() + long(lo), rest.begin() + long(hi));
  }
  list.clear();
  phase.emplace(options.progress, "Writing stack/", refs.size());
  for (size_t t = 0; t < tables.size(); ++t) {
    SortByName(&tables[t]);
    REFTAB_RETURN_IF_ERROR(
        WriteTable(outdir + "/stack", tables[t], t + 1, table_names, &list, &*phase));
  }
  phase.reset();
  REFTAB_RETURN_IF_ERROR(WriteFile(outdir + "/stack/tables.list", list));
  Log(verbose, "gen: %s%.0f ms\n", "wrote stack/: ", ms());

  // ---- IN.txt and NAMES.txt: the refs under refs/ (all but HEAD).
  std::vector<RefRecord*> named;
  named.reserve(all.size());
  for (RefRecord* r : all) {
    if (r->refname.compare(0, 5, "refs/") == 0) named.push_back(r);
  }
  std::string text;
  text.reserve(named.size() * 80);
  for (RefRecord* r : named) AppendLine(*r, &text);
  REFTAB_RETURN_IF_ERROR(WriteFile(outdir + "/IN.txt", text));
  Rng sample(kSampleSeed);
  const size_t samples = std::min(kSampleNames, named.size());
  for (size_t i = 0; i < samples; ++i) {
    std::swap(named[i], named[i + sample.Below(named.size() - i)]);
  }
  text.clear();
  for (size_t i = 0; i < samples; ++i) AppendLine(*named[i], &text);
  REFTAB_RETURN_IF_ERROR(WriteFile(outdir + "/NAMES.txt", text));
  Log(verbose, "gen: %s%.0f ms\n", "wrote IN.txt and NAMES.txt: ", ms());
  return Status::Ok();
}

}  // namespace reftab::perf

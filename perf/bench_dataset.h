// The benchmark dataset of issue 4 ("Speed"), written by `reftab-bench gen`.
//
// 1,000,001 refs under refs/ plus HEAD, generated deterministically (fixed seeds, our own
// PRNG and shuffle, so every standard library produces the same bytes):
//   HEAD -> refs/heads/main (symref), refs/heads/main,
//   refs/heads/feature/user-%04d/topic-%03d   4000 users x 200 topics = 800,000
//   refs/tags/v%d.%d.%d  major < 20, minor < 100, patch < 100 = 200,000; patch % 10 == 0
//                        (20,000) annotated: object id + peeled id.
// OUTDIR/one/     one table (default options, update index 1..1) + tables.list
// OUTDIR/stack/   9 tables: HEAD; main; the 20,000 annotated tags; the other 980,000 refs
//                 shuffled into 6 transactions of 163,333 or 163,334 refs, each its own table
//                 (update indexes 1..9), so every one of the big tables spans the whole key
//                 range.
// OUTDIR/IN.txt   the 1,000,001 refs/ refs, sorted: "<40-hex id> SP <refname>" (for annotated
//                 tags the tag object's id), the input of `reftab-bench write`.
// OUTDIR/NAMES.txt 100,000 of those lines sampled without replacement (fixed seed), in random
//                 order: the names `reftab-bench lookup` looks up.
// Table files are named like git's: 0x<min:012x>-0x<max:012x>-<random:08x>.ref.
//
// The object ids come from a fixed-seed generator, or from a file (one 40-hex id per line,
// taken in generation order: each ref's value, then an annotated tag's peeled id; 1,020,001
// ids). perf/run.sh passes the ids of objects it made in a git repository, so that git's
// commands, which check that a ref's object exists, can run on the same refs.
#ifndef REFTAB_PERF_BENCH_DATASET_H_
#define REFTAB_PERF_BENCH_DATASET_H_

#include <string>

#include "format/status.h"
#include "store/progress.h"

namespace reftab::perf {

// How many object ids the dataset takes (the length of an ids file).
inline constexpr size_t kBenchDatasetIds = 1020001;

struct BenchDatasetOptions {
  std::string ids_file;  // empty: generated ids
  bool verbose = true;   // progress lines on stderr
  // Issue 8's scale runs: the users and the tag majors are multiplied by `scale` (0.1:
  // 100,002 refs, 10: 10,000,002), everything else stays. Only 1 takes an ids file.
  double scale = 1;
  // Told of the phases "Generating refs", "Writing one/" and "Writing stack/" (may be null).
  Progress* progress = nullptr;
};

// Writes the dataset into `outdir` (created if missing; files of the same names are
// replaced).
Status GenerateBenchDataset(const std::string& outdir, const BenchDatasetOptions& options);

}  // namespace reftab::perf

#endif  // REFTAB_PERF_BENCH_DATASET_H_

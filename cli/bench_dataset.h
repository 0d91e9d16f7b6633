// The benchmark dataset of issue 4 ("Speed"), shared by `reftab gen` and `reftab-bench gen`.
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
#ifndef REFTAB_CLI_BENCH_DATASET_H_
#define REFTAB_CLI_BENCH_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "format/status.h"
#include "store/file.h"

namespace reftab::cli {

// Writes the dataset into `outdir` (created if missing; files of the same names are
// replaced). Progress lines go to stderr when `verbose`.
Status GenerateBenchDataset(const std::string& outdir, bool verbose);

// A WritableFile that collects appends in a large buffer and hands them to `file` in chunks
// of `chunk` bytes, so writing a table costs a few dozen write calls instead of one per
// block. Close() flushes and closes `file`.
class BufferedSink final : public WritableFile {
 public:
  explicit BufferedSink(std::unique_ptr<WritableFile> file, size_t chunk = size_t(1) << 20)
      : file_(std::move(file)), chunk_(chunk) {
    buf_.reserve(chunk_);
  }
  Status Append(std::string_view data) override {
    if (buf_.size() + data.size() > chunk_) REFTAB_RETURN_IF_ERROR(FlushBuffer());
    if (data.size() >= chunk_) return file_->Append(data);
    buf_.append(data);
    return Status::Ok();
  }
  Status Sync() override {
    REFTAB_RETURN_IF_ERROR(FlushBuffer());
    return file_->Sync();
  }
  Status Close() override {
    REFTAB_RETURN_IF_ERROR(FlushBuffer());
    return file_->Close();
  }

 private:
  Status FlushBuffer() {
    if (buf_.empty()) return Status::Ok();
    Status s = file_->Append(buf_);
    buf_.clear();
    return s;
  }
  std::unique_ptr<WritableFile> file_;
  size_t chunk_;
  std::string buf_;
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_BENCH_DATASET_H_

// Buffered standard output for the CLI: records are formatted into one growing buffer and
// written in large chunks, so listing a million refs costs a few hundred write calls.
#ifndef REFTAB_CLI_OUTPUT_H_
#define REFTAB_CLI_OUTPUT_H_

#include <cstdio>
#include <string>

namespace reftab::cli {

class Output {
 public:
  explicit Output(FILE* f = stdout) : f_(f) { buf_.reserve(kFlushAt + 4096); }
  ~Output() { Flush(); }
  std::string& buf() { return buf_; }
  // Call after appending to buf(); writes out once enough has accumulated.
  void MaybeFlush() {
    if (buf_.size() >= kFlushAt) Flush();
  }
  bool Flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) ok_ = false;
    buf_.clear();
    if (std::fflush(f_) != 0) ok_ = false;
    return ok_;
  }
  bool ok() const { return ok_; }

 private:
  static constexpr size_t kFlushAt = 1 << 16;
  FILE* f_;
  std::string buf_;
  bool ok_ = true;
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_OUTPUT_H_

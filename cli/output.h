// Buffered standard output for the CLI: records are formatted into one growing buffer and
// written in large chunks, so listing a million refs costs a few hundred write calls. The
// buffer is written with write(2) after stdio's own buffer is flushed (the order of what was
// printed either way is kept): stdio would first allocate and fault in a buffer of its own
// for a command that prints one line. The buffer grows as it is filled, not reserved up
// front, for the same reason.
#ifndef REFTAB_CLI_OUTPUT_H_
#define REFTAB_CLI_OUTPUT_H_

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>

namespace reftab::cli {

class Output {
 public:
  // How much buf() gathers before MaybeFlush() writes it.
  static constexpr size_t kFlushAt = 1 << 16;

  explicit Output(FILE* f = stdout) : f_(f) {}
  ~Output() { Flush(); }
  std::string& buf() { return buf_; }
  // Call after appending to buf(); writes out once enough has accumulated.
  void MaybeFlush() {
    if (buf_.size() >= kFlushAt) Flush();
  }
  // Appends `bytes` as if to buf() and MaybeFlush(), but when that would write, they are
  // written straight from the caller's memory after buf() (for a listing that fills blocks of
  // its own: no copy).
  void Write(std::string_view bytes) {
    if (buf_.size() + bytes.size() < kFlushAt) {
      buf_.append(bytes);
      return;
    }
    if (!Flush() || !WriteAll(bytes.data(), bytes.size())) ok_ = false;
  }
  bool Flush() {
    if (std::fflush(f_) != 0) ok_ = false;
    if (!buf_.empty() && !WriteAll(buf_.data(), buf_.size())) ok_ = false;
    buf_.clear();
    return ok_;
  }
  bool ok() const { return ok_; }

 private:
  bool WriteAll(const char* p, size_t n) {
    const int fd = fileno(f_);
    if (fd < 0) return std::fwrite(p, 1, n, f_) == n && std::fflush(f_) == 0;
    while (n > 0) {
      const ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w, n -= size_t(w);
    }
    return true;
  }

  FILE* f_;
  std::string buf_;
  bool ok_ = true;
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_OUTPUT_H_

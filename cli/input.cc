#include "cli/input.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace reftab::cli {

bool InputReader::Fill() {
  if (eof_) return false;
  for (;;) {
    ssize_t n = read(fd_, buf_.data(), buf_.size());
    if (n > 0) {
      pos_ = 0;
      end_ = size_t(n);
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed_ = true;
    eof_ = true;
    return false;
  }
}

bool InputReader::Next(char delim, std::string* out) {
  out->clear();
  bool any = false;
  unterminated_ = false;
  for (;;) {
    if (pos_ == end_ && !Fill()) return unterminated_ = any;
    any = true;
    const char* start = buf_.data() + pos_;
    const void* hit = std::memchr(start, delim, end_ - pos_);
    if (hit != nullptr) {
      size_t n = size_t(static_cast<const char*>(hit) - start);
      out->append(start, n);
      pos_ += n + 1;
      return true;
    }
    out->append(start, end_ - pos_);
    pos_ = end_;
  }
}

}  // namespace reftab::cli

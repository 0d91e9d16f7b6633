// Internal: zlib deflate/inflate for log blocks (FORMAT.md §8.6), with reusable streams so
// reading or writing many log blocks allocates zlib state once (LESSONS.md #15).
#ifndef REFTAB_FORMAT_COMPRESSION_H_
#define REFTAB_FORMAT_COMPRESSION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "format/status.h"

namespace reftab {
// Compresses with zlib level 9, window 15, memLevel 8, default strategy, one Z_FINISH per
// call: the settings git uses, so the bytes match git's for the same zlib build.
class Deflater {
 public:
  Deflater();
  ~Deflater();
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  // Appends the complete zlib stream of [in, in + n) to `out`.
  Status Compress(const uint8_t* in, size_t n, std::string* out);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class Inflater {
 public:
  Inflater();
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  // Inflates one zlib stream from [in, in + in_len) into exactly `out_len` bytes at `out`.
  // Fails unless the stream ends (Z_STREAM_END) having produced exactly out_len bytes.
  // `*consumed` receives the number of compressed bytes the stream occupied.
  Status Inflate(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len, size_t* consumed);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace reftab

#endif  // REFTAB_FORMAT_COMPRESSION_H_

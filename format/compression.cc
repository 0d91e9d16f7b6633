#include "format/compression.h"

#include <zlib.h>

#include <cstring>

namespace reftab {

struct Deflater::State {
  z_stream zs;
  bool ready = false;
};

Deflater::Deflater() : state_(std::make_unique<State>()) {
  std::memset(&state_->zs, 0, sizeof(state_->zs));
  state_->ready = deflateInit(&state_->zs, 9) == Z_OK;
}

Deflater::~Deflater() {
  if (state_->ready) deflateEnd(&state_->zs);
}

Status Deflater::Compress(const uint8_t* in, size_t n, std::string* out) {
  if (!state_->ready) return Status::IoError("zlib deflateInit failed");
  z_stream& zs = state_->zs;
  if (deflateReset(&zs) != Z_OK) return Status::IoError("zlib deflateReset failed");
  size_t bound = deflateBound(&zs, uLong(n));
  size_t start = out->size();
  out->resize(start + bound);
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = uInt(n);
  zs.next_out = reinterpret_cast<Bytef*>(out->data() + start);
  zs.avail_out = uInt(bound);
  int rc = deflate(&zs, Z_FINISH);
  if (rc != Z_STREAM_END) {
    out->resize(start);
    return Status::IoError("zlib deflate failed");
  }
  out->resize(start + (bound - zs.avail_out));
  return Status::Ok();
}

struct Inflater::State {
  z_stream zs;
  bool ready = false;
};

Inflater::Inflater() : state_(std::make_unique<State>()) {
  std::memset(&state_->zs, 0, sizeof(state_->zs));
  state_->ready = inflateInit(&state_->zs) == Z_OK;
}

Inflater::~Inflater() {
  if (state_->ready) inflateEnd(&state_->zs);
}

Status Inflater::Inflate(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len,
                         size_t* consumed) {
  if (!state_->ready) return Status::IoError("zlib inflateInit failed");
  z_stream& zs = state_->zs;
  if (inflateReset(&zs) != Z_OK) return Status::IoError("zlib inflateReset failed");
  // zlib counts in uInt; blocks are < 16 MiB uncompressed, but the input view may be the
  // whole rest of the table, so clamp it (a valid stream is never that large).
  size_t avail = in_len > (1u << 30) ? (1u << 30) : in_len;
  uint8_t dummy = 0;
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = uInt(avail);
  // One spare output byte lets us detect a stream that is longer than announced.
  zs.next_out = out_len ? out : &dummy;
  zs.avail_out = uInt(out_len);
  int rc = inflate(&zs, Z_FINISH);
  if (rc == Z_BUF_ERROR && zs.avail_out == 0) {
    return Status::Corruption("log block inflates to more than its block_len");
  }
  if (rc != Z_STREAM_END) {
    return Status::Corruption(std::string("log block does not inflate (zlib: ") +
                              (zs.msg ? zs.msg : "truncated stream") + ")");
  }
  if (zs.avail_out != 0) return Status::Corruption("log block inflates to less than its block_len");
  *consumed = avail - zs.avail_in;
  return Status::Ok();
}

}  // namespace reftab

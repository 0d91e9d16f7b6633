#include "store/git/objects/zinflate.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace reftab {
namespace {

constexpr size_t kStep = 64 << 10;  // output grows by this much: a claimed size is not trusted

// Inflates into *out until `limit` bytes are out, the stream ends, or the input runs out.
// *ended says whether zlib saw the stream's end.
Status Run(const uint8_t* in, size_t in_len, size_t limit, std::string* out, bool* ended) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Status::Corruption("zlib: cannot start inflating");
  z.next_in = const_cast<Bytef*>(in);
  z.avail_in = uInt(std::min<size_t>(in_len, UINT_MAX));
  out->clear();
  int rc = Z_OK;
  *ended = false;
  // One byte past the limit is asked for, so that a stream longer than claimed shows.
  const size_t want = limit == SIZE_MAX ? limit : limit + 1;
  while (out->size() < want) {
    const size_t at = out->size();
    out->resize(std::min(want, at + kStep));
    z.next_out = reinterpret_cast<Bytef*>(out->data() + at);
    z.avail_out = uInt(out->size() - at);
    rc = inflate(&z, Z_NO_FLUSH);
    out->resize(out->size() - z.avail_out);
    if (rc == Z_STREAM_END) {
      *ended = true;
      break;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // the input is truncated
    if (rc != Z_OK) break;
  }
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && z.avail_in == 0)) {
    return Status::Corruption(std::string("zlib: ") + (z.msg ? z.msg : "corrupt stream"));
  }
  return Status::Ok();
}

}  // namespace

Status InflatePrefix(const uint8_t* in, size_t in_len, size_t limit, std::string* out) {
  bool ended = false;
  REFTAB_RETURN_IF_ERROR(Run(in, in_len, limit, out, &ended));
  if (out->size() > limit) out->resize(limit);
  return Status::Ok();
}

Status InflateExactly(const uint8_t* in, size_t in_len, uint64_t size, std::string* out) {
  if (size > kMaxGitObjectSize) {
    return Status::Corruption("object size " + std::to_string(size) + " is too large");
  }
  bool ended = false;
  REFTAB_RETURN_IF_ERROR(Run(in, in_len, size_t(size), out, &ended));
  if (out->size() > size) return Status::Corruption("zlib stream longer than its object");
  if (out->size() < size || !ended) return Status::Corruption("zlib stream truncated");
  return Status::Ok();
}

}  // namespace reftab

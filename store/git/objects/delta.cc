#include "store/git/objects/delta.h"

#include "store/git/objects/zinflate.h"

namespace reftab {
namespace {

// A little-endian base-128 number at delta[*i]; false when cut short or too wide.
bool Varint(std::string_view delta, size_t* i, uint64_t* v) {
  *v = 0;
  for (int shift = 0; *i < delta.size() && shift < 64; shift += 7) {
    const uint8_t c = uint8_t(delta[(*i)++]);
    *v |= uint64_t(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

}  // namespace

Status DeltaSizes(std::string_view delta, uint64_t* base_size, uint64_t* result_size) {
  size_t i = 0;
  if (!Varint(delta, &i, base_size) || !Varint(delta, &i, result_size)) {
    return Status::Corruption("corrupt delta header");
  }
  return Status::Ok();
}

Status ApplyDelta(std::string_view base, std::string_view delta, std::string* out) {
  size_t i = 0;
  uint64_t base_size = 0, result_size = 0;
  if (!Varint(delta, &i, &base_size) || !Varint(delta, &i, &result_size)) {
    return Status::Corruption("corrupt delta header");
  }
  if (base_size != base.size()) {
    return Status::Corruption("delta expects a base of " + std::to_string(base_size) +
                              " bytes, not " + std::to_string(base.size()));
  }
  if (result_size > kMaxGitObjectSize) {
    return Status::Corruption("delta result size " + std::to_string(result_size) + " is too large");
  }
  out->clear();
  out->reserve(size_t(result_size));
  while (i < delta.size()) {
    const uint8_t op = uint8_t(delta[i++]);
    if (op & 0x80) {  // copy: offset and length bytes present as the low 7 bits say
      uint64_t off = 0, len = 0;
      for (int b = 0; b < 7; ++b) {
        if (!(op & (1 << b))) continue;
        if (i >= delta.size()) return Status::Corruption("delta copy cut short");
        const uint64_t byte = uint8_t(delta[i++]);
        if (b < 4) {
          off |= byte << (8 * b);
        } else {
          len |= byte << (8 * (b - 4));
        }
      }
      if (len == 0) len = 0x10000;
      if (off > base.size() || len > base.size() - off) {
        return Status::Corruption("delta copies past its base");
      }
      if (out->size() + len > result_size) return Status::Corruption("delta result too long");
      out->append(base.substr(size_t(off), size_t(len)));
    } else if (op) {  // insert the next `op` bytes
      if (op > delta.size() - i) return Status::Corruption("delta inserts past its end");
      if (out->size() + op > result_size) return Status::Corruption("delta result too long");
      out->append(delta.substr(i, op));
      i += op;
    } else {
      return Status::Corruption("delta has a reserved zero instruction");
    }
  }
  if (out->size() != result_size) return Status::Corruption("delta result has the wrong size");
  return Status::Ok();
}

}  // namespace reftab

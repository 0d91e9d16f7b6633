#include "store/kv/kv_log_format.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>

#include "format/bytes.h"

namespace reftab {

namespace {

constexpr uint8_t kPut = 1;
constexpr uint8_t kDelete = 2;

// The checksum covers the length bytes too, so that a damaged length cannot make a
// shorter or longer record pass.
uint64_t Checksum(const uint8_t* length_bytes, std::string_view payload) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, length_bytes, 4);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return XXH3_64bits_digest(&state);
}

Status CheckPayloadSize(size_t n) {
  if (n <= UINT32_MAX) return Status::Ok();
  return Status::TooLarge("a write batch of " + std::to_string(n) +
                          " bytes exceeds the log's limit of 4 GiB - 1");
}

// A length-prefixed field at `p`; returns the byte after it.
uint8_t* PutField(uint8_t* p, std::string_view bytes) {
  be::Store32(p, uint32_t(bytes.size()));
  if (!bytes.empty()) std::memcpy(p + 4, bytes.data(), bytes.size());
  return p + 4 + bytes.size();
}

// A length-prefixed field of *rest, consumed (PutField's reverse).
bool TakeField(std::string_view* rest, std::string_view* out) {
  if (rest->size() < 4) return false;
  uint32_t n = be::Load32(reinterpret_cast<const uint8_t*>(rest->data()));
  if (rest->size() - 4 < n) return false;
  *out = rest->substr(4, n);
  rest->remove_prefix(4 + size_t(n));
  return true;
}

}  // namespace

void EncodeKvLogPut(char* dst, std::string_view key, std::string_view value) {
  auto* p = reinterpret_cast<uint8_t*>(dst);
  *p = kPut;
  PutField(PutField(p + 1, key), value);
}

void EncodeKvLogDelete(char* dst, std::string_view key) {
  auto* p = reinterpret_cast<uint8_t*>(dst);
  *p = kDelete;
  PutField(p + 1, key);
}

// One resize, then the operation's bytes in place: one capacity check instead of one per
// field (193 instructions a 100-byte put with five appends, callgrind).
void AppendKvLogPut(std::string* payload, std::string_view key, std::string_view value) {
  const size_t at = payload->size();
  payload->resize(at + KvLogPutSize(key.size(), value.size()));
  EncodeKvLogPut(payload->data() + at, key, value);
}

void AppendKvLogDelete(std::string* payload, std::string_view key) {
  const size_t at = payload->size();
  payload->resize(at + KvLogDeleteSize(key.size()));
  EncodeKvLogDelete(payload->data() + at, key);
}

Status EncodeKvLogRecordHeader(std::string_view payload, uint8_t* header) {
  REFTAB_RETURN_IF_ERROR(CheckPayloadSize(payload.size()));
  be::Store32(header, uint32_t(payload.size()));
  be::Store64(header + 4, Checksum(header, payload));
  return Status::Ok();
}

Status FinishKvLogRecord(char* record, size_t payload_size) {
  REFTAB_RETURN_IF_ERROR(CheckPayloadSize(payload_size));
  auto* h = reinterpret_cast<uint8_t*>(record);
  // The length also in the 4 bytes just before the payload (the checksum's last ones,
  // overwritten below): what the checksum covers is then contiguous, hashed in one call
  // instead of through XXH3's streaming state (about 350 instructions a small record).
  be::Store32(h + kKvLogRecordHeaderSize - 4, uint32_t(payload_size));
  const uint64_t sum = XXH3_64bits(h + kKvLogRecordHeaderSize - 4, 4 + payload_size);
  be::Store32(h, uint32_t(payload_size));
  be::Store64(h + 4, sum);
  return Status::Ok();
}

bool KvLogReader::Fail(uint64_t at, std::string reason) {
  damage_ = Damage{at, bytes_.size() - at, std::move(reason)};
  pos_ = bytes_.size();
  return false;
}

std::string EncodeKvLogHeader(const KvLogHeader& header) {
  std::string h(kKvLogMagic);
  for (uint64_t v : {header.tables_through, header.previous_log_bytes}) {
    for (int shift = 56; shift >= 0; shift -= 8) h.push_back(char(uint8_t(v >> shift)));
  }
  return h;
}

bool KvLogReader::ReadHeader() {
  const std::string_view magic = bytes_.substr(0, kKvLogMagic.size());
  if (magic == kKvLogMagicV1) {
    pos_ = kKvLogMagicV1.size();
    return true;
  }
  if (magic != kKvLogMagic || bytes_.size() < kKvLogHeaderSize) {
    const bool short_header = magic.size() < kKvLogMagic.size() ||
                              (magic == kKvLogMagic && bytes_.size() < kKvLogHeaderSize);
    return Fail(0, short_header ? "short header" : "bad header");
  }
  const auto number_at = [&](size_t at) {
    uint64_t v = 0;
    for (size_t i = at; i < at + 8; ++i) v = v << 8 | uint8_t(bytes_[i]);
    return v;
  };
  header_ = KvLogHeader{number_at(kKvLogMagic.size()), number_at(kKvLogMagic.size() + 8)};
  pos_ = kKvLogHeaderSize;
  return true;
}

bool KvLogReader::Next(std::string_view* payload) {
  if (pos_ >= bytes_.size()) return false;
  const uint64_t at = pos_;
  std::string_view rest = bytes_.substr(pos_);
  if (rest.size() < kKvLogRecordHeaderSize) return Fail(at, "short record header");
  auto* h = reinterpret_cast<const uint8_t*>(rest.data());
  uint32_t n = be::Load32(h);
  if (n == 0) return Fail(at, "empty record");
  if (rest.size() - kKvLogRecordHeaderSize < n) return Fail(at, "record runs past the end");
  std::string_view body = rest.substr(kKvLogRecordHeaderSize, n);
  if (Checksum(h, body) != be::Load64(h + 4)) return Fail(at, "checksum mismatch");
  record_offset_ = at;
  pos_ += kKvLogRecordHeaderSize + n;
  *payload = body;
  return true;
}

bool NextKvLogOp(std::string_view* rest, KvLogOp* out) {
  if (rest->empty()) return false;
  const uint8_t kind = uint8_t((*rest)[0]);
  rest->remove_prefix(1);
  if (!TakeField(rest, &out->key) || out->key.empty()) return false;
  if (kind == kDelete) {
    out->value.reset();
    return true;
  }
  std::string_view value;
  if (kind != kPut || !TakeField(rest, &value)) return false;
  out->value = value;
  return true;
}

}  // namespace reftab

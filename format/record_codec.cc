#include "format/record_codec.h"

namespace reftab::codec {

bool SkipRefValue(ByteReader& in, uint8_t value_type, size_t hash_size) {
  in.GetVarint();
  switch (value_type) {
    case 0: break;
    case 1: in.GetBytes(hash_size); break;
    case 2: in.GetBytes(2 * hash_size); break;
    case 3: in.GetLengthPrefixed(); break;
    default: return false;
  }
  return in.ok();
}

void PutLogValue(Appender& a, const LogRecord& r, size_t hash_size) {
  PutLogValue(a, r, r.message, hash_size);
}

void PutLogValue(Appender& a, const LogRecord& r, std::string_view message, size_t hash_size) {
  if (r.value_type == LogValueType::kDeletion) return;
  a.PutBytes(r.old_id.data(), hash_size);
  a.PutBytes(r.new_id.data(), hash_size);
  a.PutLengthPrefixed(r.name);
  a.PutLengthPrefixed(r.email);
  a.PutVarint(r.time);
  a.PutBE16(uint16_t(r.tz_offset));
  a.PutLengthPrefixed(message);
}

// Assigns only when the bytes differ: names and e-mails rarely change between consecutive
// log records, so this keeps the copy off the common path (LESSONS.md #14).
static void AssignIfChanged(std::string* dst, std::string_view src) {
  if (std::string_view(*dst) != src) dst->assign(src.data(), src.size());
}

bool GetLogValue(ByteReader& in, uint8_t value_type, size_t hash_size, LogRecord* r) {
  if (value_type == 0) {
    r->value_type = LogValueType::kDeletion;
    r->old_id.fill(0);
    r->new_id.fill(0);
    r->name.clear();
    r->email.clear();
    r->time = 0;
    r->tz_offset = 0;
    r->message.clear();
    return true;
  }
  if (value_type != 1) return false;
  r->value_type = LogValueType::kUpdate;
  const uint8_t* ids = in.GetBytes(2 * hash_size);
  if (!ids) return false;
  std::memcpy(r->old_id.data(), ids, hash_size);
  std::memcpy(r->new_id.data(), ids + hash_size, hash_size);
  AssignIfChanged(&r->name, in.GetLengthPrefixed());
  AssignIfChanged(&r->email, in.GetLengthPrefixed());
  r->time = in.GetVarint();
  r->tz_offset = int16_t(in.GetBE16());
  std::string_view msg = in.GetLengthPrefixed();
  r->message.assign(msg.data(), msg.size());
  return in.ok();
}

void PutObjValue(Appender& a, const uint64_t* positions, size_t count) {
  if (ObjValueType(count) == 0) a.PutVarint(count);
  if (count == 0) return;
  a.PutVarint(positions[0]);
  for (size_t i = 1; i < count; ++i) a.PutVarint(positions[i] - positions[i - 1]);
}

bool GetObjValue(ByteReader& in, uint8_t value_type, std::vector<uint64_t>* positions) {
  positions->clear();
  uint64_t count = value_type;
  if (count == 0) count = in.GetVarint();
  if (!in.ok()) return false;
  if (count == 0) return true;
  // Every position takes at least one byte: a count beyond that is corrupt, and this cap
  // keeps a hostile count from sizing a huge allocation.
  if (count > in.remaining()) return false;
  positions->reserve(size_t(count));
  uint64_t pos = in.GetVarint();
  positions->push_back(pos);
  for (uint64_t i = 1; i < count; ++i) {
    uint64_t delta = in.GetVarint();
    if (pos + delta < pos) return false;
    pos += delta;
    positions->push_back(pos);
  }
  return in.ok();
}

}  // namespace reftab::codec

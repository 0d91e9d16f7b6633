// The key/value store's write-ahead log, as bytes (no I/O; store/kv/kv_log.h reads and
// writes the file). Internal to store/kv/.
//
// kv.log holds the writes made since the last flush, oldest first:
//
//   header    24 bytes: "RTKVLOG2", then two 8-byte big-endian numbers (KvLogHeader):
//             the stack's highest update index when the log was made ("tables through"),
//             and the length in bytes of the log before it (kv.log.flushing, whole; 0 if
//             none). After a crash that left kv.log.flushing behind, Open knows from them
//             whether that log is in a table already (the stack's highest index is beyond
//             "tables through": its flush listed one) and whether it lost its end (it is
//             shorter than kv.log says), even cut exactly between two records.
//             Logs of earlier versions: 8 bytes "RTKVLOG1", read the same, without them.
//   records   each one write batch (KvStore::Write), whole or not at all:
//     length    4 bytes, big-endian: the payload's size, 1 .. 2^32 - 1
//     checksum  8 bytes, big-endian: XXH3-64 of the 4 length bytes and the payload
//     payload   `length` bytes: the batch's operations in the order they were made, each
//                 kind    1 byte: 1 put, 2 delete
//                 key     4 bytes big-endian length, then the bytes
//                 value   (puts only) 4 bytes big-endian length, then the bytes
//
// A record is appended with one write(2). A process killed during it leaves a torn record
// at the end of the file (short, or with a checksum that does not match): reading stops
// there and reports the offset, so a damaged record and whatever follows it are never
// taken for data.
#ifndef REFTAB_STORE_KV_KV_LOG_FORMAT_H_
#define REFTAB_STORE_KV_KV_LOG_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "format/status.h"

namespace reftab {

inline constexpr std::string_view kKvLogMagic = "RTKVLOG2";
inline constexpr std::string_view kKvLogMagicV1 = "RTKVLOG1";  // read, never written
inline constexpr size_t kKvLogHeaderSize = 24;

// What a log's header says (see above).
struct KvLogHeader {
  uint64_t tables_through = 0;
  uint64_t previous_log_bytes = 0;
};
// A log's header, kKvLogHeaderSize bytes.
std::string EncodeKvLogHeader(const KvLogHeader& header);

inline constexpr size_t kKvLogRecordHeaderSize = 12;  // length + checksum

// The bytes of one operation in a payload.
constexpr size_t KvLogPutSize(size_t key, size_t value) { return 9 + key + value; }
constexpr size_t KvLogDeleteSize(size_t key) { return 5 + key; }
// Writes one operation at `dst`, which has room for its KvLogPutSize / KvLogDeleteSize.
void EncodeKvLogPut(char* dst, std::string_view key, std::string_view value);
void EncodeKvLogDelete(char* dst, std::string_view key);
// Appends one operation to a record's payload (a write batch keeps its operations so,
// store/kv/kv_store.h: a write appends them to the log as they are, after their header).
void AppendKvLogPut(std::string* payload, std::string_view key, std::string_view value);
void AppendKvLogDelete(std::string* payload, std::string_view key);

// Sets header[0, kKvLogRecordHeaderSize) to the length and checksum of a record holding
// `payload`. kTooLarge if the payload exceeds 4 GiB - 1.
Status EncodeKvLogRecordHeader(std::string_view payload, uint8_t* header);

// Fills in the header of the record at `record`: kKvLogRecordHeaderSize bytes, then its
// payload of `payload_size` bytes. kTooLarge if the payload exceeds 4 GiB - 1.
Status FinishKvLogRecord(char* record, size_t payload_size);

// One operation of a decoded batch; views into the payload.
struct KvLogOp {
  std::string_view key;
  std::optional<std::string_view> value;  // nullopt: delete
};

// Reads the records of a whole log held in memory. Next() stops at the end, or at the first
// record that is short or whose checksum fails, whose offset and reason damage() then gives.
class KvLogReader {
 public:
  explicit KvLogReader(std::string_view bytes) : bytes_(bytes) {}
  // The header: false (with damage()) if it is missing or wrong.
  bool ReadHeader();
  // After ReadHeader(): what the header says (nullopt in an RTKVLOG1 log).
  const std::optional<KvLogHeader>& header() const { return header_; }
  // The next record's payload, checked; false at the end or at a damaged record.
  bool Next(std::string_view* payload);
  // Where the record Next() returned last begins.
  uint64_t record_offset() const { return record_offset_; }
  struct Damage {
    uint64_t offset;     // of the first byte not read as data
    uint64_t dropped;    // bytes from there to the end of the log
    std::string reason;  // e.g. "checksum mismatch"
  };
  const std::optional<Damage>& damage() const { return damage_; }

 private:
  bool Fail(uint64_t at, std::string reason);
  std::string_view bytes_;
  uint64_t pos_ = 0;
  uint64_t record_offset_ = 0;
  std::optional<Damage> damage_;
  std::optional<KvLogHeader> header_;
};

// Decodes a payload's operations, calling `op` for each in order. kCorruption if the
// payload is malformed (a record whose checksum matched, so only a writer's bug).
template <typename Fn>
Status DecodeKvLogBatch(std::string_view payload, Fn&& op);

// The decoder behind DecodeKvLogBatch: the next operation of `*rest`, consumed.
bool NextKvLogOp(std::string_view* rest, KvLogOp* out);

template <typename Fn>
Status DecodeKvLogBatch(std::string_view payload, Fn&& op) {
  KvLogOp one;
  while (!payload.empty()) {
    if (!NextKvLogOp(&payload, &one)) return Status::Corruption("malformed batch in a log record");
    op(one);
  }
  return Status::Ok();
}

}  // namespace reftab

#endif  // REFTAB_STORE_KV_KV_LOG_FORMAT_H_

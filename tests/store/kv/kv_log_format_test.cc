// The key/value store's log records (store/kv/kv_log_format.h): round trips, the end of a
// log at every cut, and decoders fed random bytes (no crash, nothing read past the input).
#include "store/kv/kv_log_format.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace reftab {
namespace {

struct Op {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const Op&) const = default;
};

// The operations appended to `out`, as a write batch holds them.
void AppendOps(const std::vector<Op>& ops, std::string* out) {
  for (const Op& op : ops) {
    if (op.value) {
      AppendKvLogPut(out, op.key, *op.value);
    } else {
      AppendKvLogDelete(out, op.key);
    }
  }
}

// The record built whole, as a single put's or delete's is: room for the header, the
// operations, then FinishKvLogRecord.
std::string Record(const std::vector<Op>& ops) {
  std::string out(kKvLogRecordHeaderSize, '\0');
  AppendOps(ops, &out);
  EXPECT_TRUE(FinishKvLogRecord(out.data(), out.size() - kKvLogRecordHeaderSize).ok());
  return out;
}

std::vector<std::vector<Op>> ReadAll(std::string_view log, std::optional<uint64_t>* damage_at) {
  std::vector<std::vector<Op>> out;
  KvLogReader r(log);
  std::string_view payload;
  if (r.ReadHeader()) {
    while (r.Next(&payload)) {
      std::vector<Op> ops;
      Status s = DecodeKvLogBatch(payload, [&](const KvLogOp& op) {
        ops.push_back(Op{std::string(op.key),
                         op.value ? std::optional<std::string>(*op.value) : std::nullopt});
      });
      EXPECT_TRUE(s.ok()) << s.ToString();
      out.push_back(std::move(ops));
    }
  }
  *damage_at = r.damage() ? std::optional<uint64_t>(r.damage()->offset) : std::nullopt;
  return out;
}

TEST(KvLogFormatTest, RecordsRoundTripAndEveryCutEndsAtARecordBoundary) {
  const std::vector<std::vector<Op>> batches = {
      {{"a", "1"}},
      {{std::string("k\0y", 3), std::string("\0v\0", 3)}, {"gone", std::nullopt}, {"e", ""}},
      {{"big", std::string(70000, 'x')}},
  };
  std::string log = EncodeKvLogHeader({0x0102030405060708, 99});
  std::vector<size_t> ends;
  for (const auto& b : batches) {
    log += Record(b);
    ends.push_back(log.size());
  }
  std::optional<uint64_t> damage;
  EXPECT_EQ(ReadAll(log, &damage), batches);
  EXPECT_FALSE(damage);
  for (size_t cut = 0; cut < log.size(); ++cut) {
    size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= cut) ++whole;
    auto got = ReadAll(std::string_view(log).substr(0, cut), &damage);
    ASSERT_EQ(got, std::vector<std::vector<Op>>(batches.begin(), batches.begin() + long(whole)))
        << "cut " << cut;
    const size_t boundary = whole == 0 ? kKvLogHeaderSize : ends[whole - 1];
    if (cut == boundary) {
      EXPECT_FALSE(damage) << "cut " << cut;
    } else {
      ASSERT_TRUE(damage) << "cut " << cut;
      EXPECT_EQ(*damage, cut < kKvLogHeaderSize ? 0 : boundary) << "cut " << cut;
    }
  }
}

// The header says the stack's update index when the log was made and the length of the log
// before it; a log of the first version (8 bytes, "RTKVLOG1") reads the same, without them.
TEST(KvLogFormatTest, TheHeaderCarriesItsNumbersAndTheFirstVersionStillReads) {
  std::string v2 =
      EncodeKvLogHeader({0x0102030405060708, 0x1112131415161718}) + Record({{"a", "1"}});
  KvLogReader r2(v2);
  ASSERT_TRUE(r2.ReadHeader());
  ASSERT_TRUE(r2.header());
  EXPECT_EQ(r2.header()->tables_through, 0x0102030405060708u);
  EXPECT_EQ(r2.header()->previous_log_bytes, 0x1112131415161718u);
  std::string_view payload;
  EXPECT_TRUE(r2.Next(&payload));
  std::string v1 = std::string(kKvLogMagicV1) + Record({{"a", "1"}});
  KvLogReader r1(v1);
  ASSERT_TRUE(r1.ReadHeader());
  EXPECT_FALSE(r1.header());
  EXPECT_TRUE(r1.Next(&payload));
  for (size_t cut = 0; cut < kKvLogHeaderSize; ++cut) {
    KvLogReader r(std::string_view(v2).substr(0, cut));
    EXPECT_FALSE(r.ReadHeader()) << cut;
    ASSERT_TRUE(r.damage());
    EXPECT_EQ(r.damage()->reason, "short header") << cut;
  }
  const std::string unknown = "RTKVLOG9" + std::string(16, '\0');
  KvLogReader bad(unknown);  // a view: the bytes must outlive it
  EXPECT_FALSE(bad.ReadHeader());
  EXPECT_EQ(bad.damage()->reason, "bad header");
}

// A write batch's record is its header (EncodeKvLogRecordHeader) then its operations as the
// batch holds them: the same bytes as the record built whole.
TEST(KvLogFormatTest, AHeaderBeforeABatchsOperationsIsTheRecordBuiltWhole) {
  const std::vector<std::vector<Op>> batches = {
      {{"a", "1"}},
      {{std::string("k\0y", 3), std::string("\0v\0", 3)}, {"gone", std::nullopt}, {"e", ""}},
      {{"big", std::string(70000, 'x')}},
  };
  for (const auto& batch : batches) {
    std::string ops;
    AppendOps(batch, &ops);
    uint8_t header[kKvLogRecordHeaderSize];
    ASSERT_TRUE(EncodeKvLogRecordHeader(ops, header).ok());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(header), sizeof header) + ops,
              Record(batch));
  }
}

TEST(KvLogFormatTest, RandomBytesNeverCrashTheDecoders) {
  std::mt19937 rng(26);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = char(rng() % 4 == 0 ? rng() % 4 : rng());
    if (i % 2) bytes.insert(0, i % 4 == 1 ? EncodeKvLogHeader({uint64_t(i), 0}) : kKvLogMagicV1);
    std::optional<uint64_t> damage;
    auto got = ReadAll(bytes, &damage);
    EXPECT_TRUE(got.empty());  // a random checksum matches with probability 2^-64
    std::string_view rest = bytes;
    KvLogOp op;
    while (NextKvLogOp(&rest, &op)) {
      ASSERT_LE(op.key.data() + op.key.size(), bytes.data() + bytes.size());
    }
  }
}

}  // namespace
}  // namespace reftab

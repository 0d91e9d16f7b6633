// cli/jsonl.h: the lossless JSON-lines record format of `reftab dump` / `write-table`.
// It sits with the format tests because it is a record codec: every byte of a record must
// survive AppendRefJson/AppendLogJson followed by ParseJsonObject and *FromJson.
#include "cli/jsonl.h"

#include <gtest/gtest.h>

#include <string>

#include "format/record.h"

namespace reftab::cli {
namespace {

ObjectId IdOf(uint8_t seed) {
  ObjectId id{};
  for (size_t i = 0; i < kMaxHashSize; ++i) id[i] = uint8_t(seed * 13 + i);
  return id;
}

std::string StripNewline(std::string line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  line.pop_back();
  return line;
}

RefRecord RefRoundTrip(const RefRecord& r, size_t hash_size, std::string* json) {
  json->clear();
  AppendRefJson(r, hash_size, json);
  auto obj = ParseJsonObject(StripNewline(*json));
  EXPECT_TRUE(obj.ok()) << obj.status().ToString() << " in " << *json;
  RefRecord got;
  if (!obj.ok()) return got;
  auto kind = KindOf(*obj);
  EXPECT_TRUE(kind.ok() && *kind == LineKind::kRef);
  Status s = RefFromJson(*obj, hash_size, &got);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return got;
}

LogRecord LogRoundTrip(const LogRecord& l, size_t hash_size, std::string* json) {
  json->clear();
  AppendLogJson(l, hash_size, json);
  auto obj = ParseJsonObject(StripNewline(*json));
  EXPECT_TRUE(obj.ok()) << obj.status().ToString() << " in " << *json;
  LogRecord got;
  if (!obj.ok()) return got;
  auto kind = KindOf(*obj);
  EXPECT_TRUE(kind.ok() && *kind == LineKind::kLog);
  Status s = LogFromJson(*obj, hash_size, &got);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return got;
}

bool SameIdPrefix(const ObjectId& a, const ObjectId& b, size_t n) {
  return std::equal(a.begin(), a.begin() + long(n), b.begin());
}

TEST(JsonlTest, RoundTripsEveryRefValueType) {
  for (size_t hs : {kSha1Size, kSha256Size}) {
    for (int type = 0; type < 4; ++type) {
      RefRecord r;
      r.refname = "refs/tags/v" + std::to_string(type);
      r.update_index = ~uint64_t(0) - uint64_t(type);  // above INT64_MAX survives too
      r.value_type = RefValueType(type);
      r.value = IdOf(1);
      r.peeled = IdOf(2);
      r.target = "refs/heads/main";
      std::string json;
      RefRecord got = RefRoundTrip(r, hs, &json);
      EXPECT_EQ(got.refname, r.refname);
      EXPECT_EQ(got.update_index, r.update_index) << json;
      EXPECT_EQ(got.value_type, r.value_type);
      if (type == 1 || type == 2) {
        EXPECT_TRUE(SameIdPrefix(got.value, r.value, hs)) << json;
      }
      if (type == 2) {
        EXPECT_TRUE(SameIdPrefix(got.peeled, r.peeled, hs)) << json;
      }
      if (type == 3) {
        EXPECT_EQ(got.target, r.target);
      }
    }
  }
}

TEST(JsonlTest, WritesTheDocumentedShape) {
  RefRecord head;
  head.refname = "HEAD";
  head.update_index = 1;
  head.value_type = RefValueType::kSymref;
  head.target = "refs/heads/main";
  std::string json;
  AppendRefJson(head, kSha1Size, &json);
  EXPECT_EQ(json,
            "{\"type\":\"ref\",\"name\":\"HEAD\",\"update_index\":1,\"value_type\":3,"
            "\"target\":\"refs/heads/main\"}\n");
}

TEST(JsonlTest, RoundTripsLogUpdatesAndDeletions) {
  LogRecord l;
  l.refname = "refs/heads/main";
  l.update_index = 5;
  l.value_type = LogValueType::kUpdate;
  l.old_id = IdOf(3);
  l.new_id = IdOf(4);
  l.name = "Jürgen Müller";
  l.email = "";
  l.time = 1700000000;
  l.tz_offset = -32768;
  l.message = "line \"one\"\\two\n";
  for (size_t hs : {kSha1Size, kSha256Size}) {
    std::string json;
    LogRecord got = LogRoundTrip(l, hs, &json);
    EXPECT_EQ(got.refname, l.refname);
    EXPECT_EQ(got.update_index, l.update_index);
    EXPECT_EQ(got.value_type, LogValueType::kUpdate);
    EXPECT_TRUE(SameIdPrefix(got.old_id, l.old_id, hs));
    EXPECT_TRUE(SameIdPrefix(got.new_id, l.new_id, hs));
    EXPECT_EQ(got.name, l.name);
    EXPECT_EQ(got.email, l.email);
    EXPECT_EQ(got.time, l.time);
    EXPECT_EQ(got.tz_offset, l.tz_offset);
    EXPECT_EQ(got.message, l.message) << json;
  }
  LogRecord deletion;
  deletion.refname = "HEAD";
  deletion.update_index = 4;
  deletion.value_type = LogValueType::kDeletion;
  std::string json;
  LogRecord got = LogRoundTrip(deletion, kSha1Size, &json);
  EXPECT_TRUE(got.is_deletion());
  EXPECT_EQ(got.update_index, 4u);
}

TEST(JsonlTest, InvalidUtf8IsWrittenAsHexAndReadBack) {
  const std::string names[] = {
      "refs/heads/bytes/\x80",                // a lone continuation byte
      "refs/heads/bytes/\xfe\xff",            // never valid in UTF-8
      "refs/heads/latin1-\xe9t\xe9",          // latin-1 é
      "refs/heads/cut-\xe6\x97",              // a truncated 3-byte sequence at the end
      "refs/heads/overlong-\xc0\xaf",         // an overlong '/'
      "refs/heads/surrogate-\xed\xa0\x80",    // UTF-16 surrogates are not scalar values
      "refs/heads/too-big-\xf4\x90\x80\x80",  // above U+10FFFF
  };
  for (const std::string& name : names) {
    RefRecord r;
    r.refname = name;
    r.update_index = 1;
    r.value_type = RefValueType::kSymref;
    r.target = name + "-target";
    std::string json;
    RefRecord got = RefRoundTrip(r, kSha1Size, &json);
    EXPECT_NE(json.find("\"name_hex\":\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"target_hex\":\""), std::string::npos) << json;
    EXPECT_EQ(got.refname, name);
    EXPECT_EQ(got.target, r.target);
  }
  LogRecord l;
  l.refname = "refs/heads/x";
  l.value_type = LogValueType::kUpdate;
  l.name = "\xff";
  l.email = "a\x80@b";
  l.message = "\xc3";
  std::string json;
  LogRecord got = LogRoundTrip(l, kSha1Size, &json);
  EXPECT_NE(json.find("\"committer_hex\":\"ff\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"email_hex\":\"61804062\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"message_hex\":\"c3\""), std::string::npos) << json;
  EXPECT_EQ(got.name, l.name);
  EXPECT_EQ(got.email, l.email);
  EXPECT_EQ(got.message, l.message);
}

TEST(JsonlTest, ValidUtf8StaysText) {
  const std::string names[] = {"refs/heads/unicode/ünïcödé", "refs/heads/日本語/ブランチ",
                               "refs/heads/emoji-🎉", "refs/heads/max-\xf4\x8f\xbf\xbf"};
  for (const std::string& name : names) {
    RefRecord r;
    r.refname = name;
    r.value_type = RefValueType::kDeletion;
    std::string json;
    RefRecord got = RefRoundTrip(r, kSha1Size, &json);
    EXPECT_NE(json.find("\"name\":\"" + name + "\""), std::string::npos) << json;
    EXPECT_EQ(got.refname, name);
  }
}

TEST(JsonlTest, ControlCharactersAreEscapedAndRestored) {
  std::string all_controls;
  for (int c = 1; c < 0x20; ++c) all_controls.push_back(char(c));
  all_controls += "\x7f\"\\/";
  all_controls.push_back('\0');
  LogRecord l;
  l.refname = "refs/heads/ctl";
  l.value_type = LogValueType::kUpdate;
  l.message = all_controls;
  std::string json;
  LogRecord got = LogRoundTrip(l, kSha1Size, &json);
  EXPECT_EQ(got.message, all_controls);
  // The line stays one line: no raw control bytes in the output.
  std::string body = json.substr(0, json.size() - 1);
  for (char c : body) {
    EXPECT_GE(uint8_t(c), 0x20) << json;
  }
  EXPECT_NE(json.find("\\n"), std::string::npos);
  EXPECT_NE(json.find("\\t"), std::string::npos);
  EXPECT_NE(json.find("\\u0000"), std::string::npos);
  EXPECT_NE(json.find("\\u001f"), std::string::npos);
  EXPECT_NE(json.find("\\u007f"), std::string::npos);
}

TEST(JsonlTest, ParsesStandardEscapesAndSurrogatePairs) {
  auto obj = ParseJsonObject(
      R"({"s":"a\u00e9\u65e5\ud83c\udf89\/\b\f\n\r\t\"\\","n":-42, "u" : 18446744073709551615})");
  ASSERT_TRUE(obj.ok()) << obj.status().ToString();
  EXPECT_EQ(obj->at("s").str, "a\xc3\xa9\xe6\x97\xa5\xf0\x9f\x8e\x89/\b\f\n\r\t\"\\");
  EXPECT_FALSE(obj->at("n").is_string);
  EXPECT_EQ(obj->at("n").num, -42);
  EXPECT_EQ(uint64_t(obj->at("u").num), ~uint64_t(0));
  // Upper-case hex digits in \u escapes.
  auto upper = ParseJsonObject(R"({"s":"\u00C9\uD83C\uDF89"})");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(upper->at("s").str, "\xc3\x89\xf0\x9f\x8e\x89");
}

TEST(JsonlTest, RejectsMalformedJson) {
  const char* bad[] = {
      "",
      "[]",
      "{\"a\":1",
      "{\"a\" 1}",
      "{\"a\":1,}",
      "{\"a\":1} x",
      "{\"a\":\"\\ud83c\"}",  // lone high surrogate
      "{\"a\":\"\\ud83cx\"}",
      "{\"a\":\"\\ud83c\\u0041\"}",  // high surrogate followed by a non-surrogate
      "{\"a\":\"\\udf89\"}",         // lone low surrogate
      "{\"a\":\"\\u12\"}",
      "{\"a\":\"\\x41\"}",
      "{\"a\":\"unterminated}",
      "{\"a\":\"raw\ttab\"}",          // raw control character
      "{\"a\":1,\"a\":2}",             // duplicate key
      "{\"a\":99999999999999999999}",  // does not fit in 64 bits
      "{\"a\":-9223372036854775809}",
      "{\"a\":true}",
      "{\"a\":1.5}",
  };
  for (const char* line : bad) {
    auto obj = ParseJsonObject(line);
    EXPECT_FALSE(obj.ok()) << line;
    if (!obj.ok()) {
      EXPECT_EQ(obj.status().code(), Code::kInvalidArgument) << line;
    }
  }
}

TEST(JsonlTest, RejectsBadRecordFields) {
  auto parse = [](const char* line) {
    auto obj = ParseJsonObject(line);
    EXPECT_TRUE(obj.ok()) << line;
    return obj.ok() ? *obj : JsonObject();
  };
  RefRecord r;
  EXPECT_FALSE(
      RefFromJson(parse(R"({"type":"ref","update_index":1,"value_type":0})"), 20, &r).ok());
  EXPECT_FALSE(RefFromJson(parse(R"({"name":"x","update_index":1,"value_type":4})"), 20, &r).ok());
  EXPECT_FALSE(
      RefFromJson(parse(R"({"name":"x","update_index":1,"value_type":1,"value":"00"})"), 20, &r)
          .ok());
  EXPECT_FALSE(
      RefFromJson(parse(R"({"name_hex":"7","update_index":1,"value_type":0})"), 20, &r).ok());
  EXPECT_FALSE(
      RefFromJson(parse(R"({"name_hex":"zz","update_index":1,"value_type":0})"), 20, &r).ok());
  EXPECT_FALSE(
      RefFromJson(parse(R"({"name":"x","update_index":"1","value_type":0})"), 20, &r).ok());
  LogRecord l;
  std::string ids = std::string(R"("old_id":")") + std::string(40, '0') + R"(","new_id":")" +
                    std::string(40, '1') + "\"";
  std::string base = R"({"name":"x","update_index":1,"value_type":1,)" + ids +
                     R"(,"committer":"c","email":"e","time":1,"message":"m","tz_offset":)";
  EXPECT_TRUE(LogFromJson(parse((base + "-32768}").c_str()), 20, &l).ok());
  EXPECT_EQ(l.tz_offset, -32768);
  EXPECT_FALSE(LogFromJson(parse((base + "32768}").c_str()), 20, &l).ok());
  EXPECT_FALSE(LogFromJson(parse(R"({"name":"x","update_index":1,"value_type":2})"), 20, &l).ok());
  EXPECT_FALSE(KindOf(parse(R"({"type":"blob"})")).ok());
  EXPECT_FALSE(KindOf(parse(R"({"name":"x"})")).ok());
}

TEST(JsonlTest, HeaderRoundTrips) {
  TableHeader h;
  h.version = 2;
  h.hash_id = HashId::kSha256;
  h.block_size = 65536;
  h.min_update_index = 3;
  h.max_update_index = 0x23e;
  std::string json;
  AppendHeaderJson(h, &json);
  auto obj = ParseJsonObject(StripNewline(json));
  ASSERT_TRUE(obj.ok());
  auto kind = KindOf(*obj);
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, LineKind::kHeader);
  TableHeader got;
  ASSERT_TRUE(HeaderFromJson(*obj, &got).ok());
  EXPECT_EQ(got.version, 2);
  EXPECT_EQ(got.hash_id, HashId::kSha256);
  EXPECT_EQ(got.block_size, 65536u);
  EXPECT_EQ(got.min_update_index, 3u);
  EXPECT_EQ(got.max_update_index, 0x23eu);
}

}  // namespace
}  // namespace reftab::cli

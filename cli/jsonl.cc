#include "cli/jsonl.h"

#include <cstdio>

#include "format/record.h"

namespace reftab::cli {
namespace {

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    uint8_t c = uint8_t(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // the continuation bytes are missing
    for (size_t k = 1; k <= n; ++k) {
      uint8_t cc = uint8_t(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

void AppendHex(std::string_view bytes, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (char ch : bytes) {
    uint8_t c = uint8_t(ch);
    out->push_back(kDigits[c >> 4]);
    out->push_back(kDigits[c & 15]);
  }
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    uint8_t c = uint8_t(ch);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(char(c));
        }
    }
  }
  out->push_back('"');
}

// ,"key":"value" or ,"key_hex":"..." for bytes that are not UTF-8.
void AppendBytesField(const char* key, std::string_view value, std::string* out) {
  out->append(",\"").append(key);
  if (IsValidUtf8(value)) {
    out->append("\":");
    AppendJsonString(value, out);
  } else {
    out->append("_hex\":\"");
    AppendHex(value, out);
    out->push_back('"');
  }
}

void AppendIntField(const char* key, long long v, std::string* out) {
  out->append(",\"").append(key).append("\":").append(std::to_string(v));
}
void AppendUintField(const char* key, uint64_t v, std::string* out) {
  out->append(",\"").append(key).append("\":").append(std::to_string(v));
}
void AppendIdField(const char* key, const ObjectId& id, size_t hash_size, std::string* out) {
  out->append(",\"").append(key).append("\":\"");
  AppendHexId(id, hash_size, out);
  out->push_back('"');
}

}  // namespace

void AppendJsonBytesField(const char* key, std::string_view value, std::string* out) {
  AppendBytesField(key, value, out);
}

void AppendHeaderJson(const TableHeader& h, std::string* out) {
  out->append("{\"type\":\"header\"");
  AppendIntField("version", h.version, out);
  out->append(",\"hash\":\"").append(h.hash_id == HashId::kSha256 ? "sha256" : "sha1").append("\"");
  AppendIntField("block_size", h.block_size, out);
  AppendUintField("min_update_index", h.min_update_index, out);
  AppendUintField("max_update_index", h.max_update_index, out);
  out->append("}\n");
}

void AppendRefJson(const RefRecord& r, size_t hash_size, std::string* out) {
  out->append("{\"type\":\"ref\"");
  AppendBytesField("name", r.refname, out);
  AppendUintField("update_index", r.update_index, out);
  AppendIntField("value_type", int(r.value_type), out);
  switch (r.value_type) {
    case RefValueType::kDeletion: break;
    case RefValueType::kVal1: AppendIdField("value", r.value, hash_size, out); break;
    case RefValueType::kVal2:
      AppendIdField("value", r.value, hash_size, out);
      AppendIdField("peeled", r.peeled, hash_size, out);
      break;
    case RefValueType::kSymref: AppendBytesField("target", r.target, out); break;
  }
  out->append("}\n");
}

void AppendLogJson(const LogRecord& r, size_t hash_size, std::string* out) {
  out->append("{\"type\":\"log\"");
  AppendBytesField("name", r.refname, out);
  AppendUintField("update_index", r.update_index, out);
  AppendIntField("value_type", int(r.value_type), out);
  if (r.value_type == LogValueType::kUpdate) {
    AppendIdField("old_id", r.old_id, hash_size, out);
    AppendIdField("new_id", r.new_id, hash_size, out);
    AppendBytesField("committer", r.name, out);
    AppendBytesField("email", r.email, out);
    AppendUintField("time", r.time, out);
    AppendIntField("tz_offset", r.tz_offset, out);
    AppendBytesField("message", r.message, out);
  }
  out->append("}\n");
}

// ------------------------------------------------------------------ parsing

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}
  Result<JsonObject> Object() {
    JsonObject obj;
    SkipWs();
    if (!Eat('{')) return Err("expected '{'");
    SkipWs();
    if (Eat('}')) return Finish(std::move(obj));
    for (;;) {
      SkipWs();
      std::string key;
      if (!String(&key)) return Err(error_.empty() ? "expected a string key" : error_);
      SkipWs();
      if (!Eat(':')) return Err("expected ':'");
      SkipWs();
      JsonValue v;
      if (Peek() == '"') {
        v.is_string = true;
        if (!String(&v.str)) return Err(error_);
      } else if (!Number(&v.num)) {
        return Err("expected a string or an integer for \"" + key + "\"");
      }
      if (!obj.emplace(std::move(key), std::move(v)).second) return Err("duplicate key");
      SkipWs();
      if (Eat('}')) return Finish(std::move(obj));
      if (!Eat(',')) return Err("expected ',' or '}'");
    }
  }

 private:
  Result<JsonObject> Finish(JsonObject obj) {
    SkipWs();
    if (i_ != s_.size()) return Err("trailing characters after the object");
    return obj;
  }
  Status Err(const std::string& what) {
    return Status::InvalidArgument(what + " at column " + std::to_string(i_ + 1));
  }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c || i_ >= s_.size()) return false;
    ++i_;
    return true;
  }
  void SkipWs() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool Number(int64_t* out) {
    bool neg = Eat('-');
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return false;
    uint64_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      uint64_t d = uint64_t(s_[i_] - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
      ++i_;
    }
    if (neg) {
      if (v > uint64_t(INT64_MAX) + 1) return false;
      *out = int64_t(0 - v);
    } else {
      *out = int64_t(v);  // values above INT64_MAX wrap; read back as uint64 by callers
    }
    return true;
  }
  bool Hex4(uint32_t* out) {
    if (i_ + 4 > s_.size()) return false;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      int h = HexDigitValue(s_[i_ + k]);
      if (h < 0) return false;
      v = v << 4 | uint32_t(h);
    }
    i_ += 4;
    *out = v;
    return true;
  }
  static void PutUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(char(cp));
    } else if (cp < 0x800) {
      out->push_back(char(0xc0 | (cp >> 6)));
      out->push_back(char(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(char(0xe0 | (cp >> 12)));
      out->push_back(char(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(char(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(char(0xf0 | (cp >> 18)));
      out->push_back(char(0x80 | ((cp >> 12) & 0x3f)));
      out->push_back(char(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(char(0x80 | (cp & 0x3f)));
    }
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (uint8_t(c) < 0x20) {
        error_ = "control character in string";
        return false;
      }
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (i_ >= s_.size()) break;
      char e = s_[i_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) {
            error_ = "bad \\u escape";
            return false;
          }
          if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t lo;
            if (!Eat('\\') || !Eat('u') || !Hex4(&lo) || lo < 0xdc00 || lo > 0xdfff) {
              error_ = "unpaired surrogate in \\u escape";
              return false;
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            error_ = "unpaired surrogate in \\u escape";
            return false;
          }
          PutUtf8(cp, out);
          break;
        }
        default: error_ = "bad escape"; return false;
      }
    }
    error_ = "unterminated string";
    return false;
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

Status Missing(const char* key) {
  return Status::InvalidArgument(std::string("missing field \"") + key + "\"");
}

Status GetUint(const JsonObject& obj, const char* key, uint64_t* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return Missing(key);
  if (it->second.is_string)
    return Status::InvalidArgument(std::string("\"") + key + "\" must be a number");
  *out = uint64_t(it->second.num);
  return Status::Ok();
}

// A byte string given either as "key" (UTF-8 text) or "key_hex".
Status GetBytes(const JsonObject& obj, const char* key, std::string* out) {
  auto it = obj.find(key);
  if (it != obj.end()) {
    if (!it->second.is_string)
      return Status::InvalidArgument(std::string("\"") + key + "\" must be a string");
    *out = it->second.str;
    return Status::Ok();
  }
  auto hx = obj.find(std::string(key) + "_hex");
  if (hx == obj.end()) return Missing(key);
  const std::string& h = hx->second.str;
  if (!hx->second.is_string || h.size() % 2) {
    return Status::InvalidArgument(std::string("\"") + key + "_hex\" must be a hex string");
  }
  out->clear();
  for (size_t i = 0; i < h.size(); i += 2) {
    int hi = HexDigitValue(h[i]), lo = HexDigitValue(h[i + 1]);
    if (hi < 0 || lo < 0)
      return Status::InvalidArgument(std::string("\"") + key + "_hex\" is not hex");
    out->push_back(char(hi << 4 | lo));
  }
  return Status::Ok();
}

Status GetId(const JsonObject& obj, const char* key, size_t hash_size, ObjectId* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return Missing(key);
  if (!it->second.is_string || !ParseHexId(it->second.str, hash_size, out)) {
    return Status::InvalidArgument(std::string("\"") + key + "\" must be " +
                                   std::to_string(2 * hash_size) + " hex digits");
  }
  return Status::Ok();
}

}  // namespace

Result<JsonObject> ParseJsonObject(std::string_view line) { return Parser(line).Object(); }

Result<LineKind> KindOf(const JsonObject& obj) {
  auto it = obj.find("type");
  if (it == obj.end() || !it->second.is_string) return Missing("type");
  if (it->second.str == "header") return LineKind::kHeader;
  if (it->second.str == "ref") return LineKind::kRef;
  if (it->second.str == "log") return LineKind::kLog;
  return Status::InvalidArgument("unknown type \"" + it->second.str + "\"");
}

Status HeaderFromJson(const JsonObject& obj, TableHeader* h) {
  if (auto it = obj.find("hash"); it != obj.end()) {
    if (it->second.str == "sha1") {
      h->hash_id = HashId::kSha1;
    } else if (it->second.str == "sha256") {
      h->hash_id = HashId::kSha256;
    } else {
      return Status::InvalidArgument("hash must be sha1 or sha256");
    }
  }
  h->version = VersionForHash(h->hash_id);
  uint64_t v;
  if (obj.count("block_size")) {
    REFTAB_RETURN_IF_ERROR(GetUint(obj, "block_size", &v));
    h->block_size = uint32_t(v);
  }
  if (obj.count("min_update_index"))
    REFTAB_RETURN_IF_ERROR(GetUint(obj, "min_update_index", &h->min_update_index));
  if (obj.count("max_update_index"))
    REFTAB_RETURN_IF_ERROR(GetUint(obj, "max_update_index", &h->max_update_index));
  return Status::Ok();
}

Status RefFromJson(const JsonObject& obj, size_t hash_size, RefRecord* r) {
  REFTAB_RETURN_IF_ERROR(GetBytes(obj, "name", &r->refname));
  REFTAB_RETURN_IF_ERROR(GetUint(obj, "update_index", &r->update_index));
  uint64_t vt;
  REFTAB_RETURN_IF_ERROR(GetUint(obj, "value_type", &vt));
  switch (vt) {
    case 0: r->value_type = RefValueType::kDeletion; break;
    case 1:
      r->value_type = RefValueType::kVal1;
      REFTAB_RETURN_IF_ERROR(GetId(obj, "value", hash_size, &r->value));
      break;
    case 2:
      r->value_type = RefValueType::kVal2;
      REFTAB_RETURN_IF_ERROR(GetId(obj, "value", hash_size, &r->value));
      REFTAB_RETURN_IF_ERROR(GetId(obj, "peeled", hash_size, &r->peeled));
      break;
    case 3:
      r->value_type = RefValueType::kSymref;
      REFTAB_RETURN_IF_ERROR(GetBytes(obj, "target", &r->target));
      break;
    default: return Status::InvalidArgument("ref value_type must be 0..3");
  }
  return Status::Ok();
}

Status LogFromJson(const JsonObject& obj, size_t hash_size, LogRecord* r) {
  REFTAB_RETURN_IF_ERROR(GetBytes(obj, "name", &r->refname));
  REFTAB_RETURN_IF_ERROR(GetUint(obj, "update_index", &r->update_index));
  uint64_t vt;
  REFTAB_RETURN_IF_ERROR(GetUint(obj, "value_type", &vt));
  if (vt == 0) {
    r->value_type = LogValueType::kDeletion;
    return Status::Ok();
  }
  if (vt != 1) return Status::InvalidArgument("log value_type must be 0 or 1");
  r->value_type = LogValueType::kUpdate;
  REFTAB_RETURN_IF_ERROR(GetId(obj, "old_id", hash_size, &r->old_id));
  REFTAB_RETURN_IF_ERROR(GetId(obj, "new_id", hash_size, &r->new_id));
  REFTAB_RETURN_IF_ERROR(GetBytes(obj, "committer", &r->name));
  REFTAB_RETURN_IF_ERROR(GetBytes(obj, "email", &r->email));
  REFTAB_RETURN_IF_ERROR(GetUint(obj, "time", &r->time));
  auto tz = obj.find("tz_offset");
  if (tz == obj.end()) return Missing("tz_offset");
  if (tz->second.is_string || tz->second.num < -32768 || tz->second.num > 32767) {
    return Status::InvalidArgument("tz_offset must be an integer in -32768..32767");
  }
  r->tz_offset = int16_t(tz->second.num);
  REFTAB_RETURN_IF_ERROR(GetBytes(obj, "message", &r->message));
  return Status::Ok();
}

}  // namespace reftab::cli

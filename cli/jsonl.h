// The JSON-lines record format of `reftab dump` and `reftab write-table`.
//
// One JSON object per line. Strings that hold arbitrary bytes (ref names, symref targets,
// committer names, e-mails, messages) are written as JSON strings when they are valid UTF-8
// and otherwise as lowercase hex under the same key with a "_hex" suffix
// ("name_hex": "726566732f..."). Either form is accepted on input, so every byte survives
// a dump and rewrite. See README.md, "The jsonl format".
#ifndef REFTAB_CLI_JSONL_H_
#define REFTAB_CLI_JSONL_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "format/header.h"
#include "format/record.h"
#include "format/status.h"

namespace reftab::cli {

void AppendHeaderJson(const TableHeader& h, std::string* out);
void AppendRefJson(const RefRecord& r, size_t hash_size, std::string* out);
void AppendLogJson(const LogRecord& r, size_t hash_size, std::string* out);
// One `,"key":"value"` member by the rules above (`,"key_hex":"..."` for bytes that are not
// UTF-8), for other commands' JSON output.
void AppendJsonBytesField(const char* key, std::string_view value, std::string* out);

// A parsed flat JSON object: values are strings (decoded bytes) or integers.
struct JsonValue {
  bool is_string = false;
  std::string str;
  int64_t num = 0;  // unsigned values above INT64_MAX are stored wrapped
};
using JsonObject = std::map<std::string, JsonValue, std::less<>>;

// Parses one line holding a flat JSON object (string and integer values only).
Result<JsonObject> ParseJsonObject(std::string_view line);

enum class LineKind { kHeader, kRef, kLog };

// Turns parsed objects into records. `hash_size` decides the id length.
Result<LineKind> KindOf(const JsonObject& obj);
Status HeaderFromJson(const JsonObject& obj, TableHeader* h);
Status RefFromJson(const JsonObject& obj, size_t hash_size, RefRecord* r);
Status LogFromJson(const JsonObject& obj, size_t hash_size, LogRecord* r);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_JSONL_H_

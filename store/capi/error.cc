// The C API's error objects, code names and small helpers (store/capi/reftab.h).
#include <cstdio>
#include <new>

#include "format/record.h"
#include "store/capi/internal.h"

namespace reftab::capi {
namespace {

// Handed out when even the error object cannot be allocated; reftab_error_free ignores it.
reftab_error kOutOfMemory{REFTAB_INTERNAL, "out of memory"};

}  // namespace

reftab_code CodeOf(Code code) {
  switch (code) {
    case Code::kOk: return REFTAB_OK;
    case Code::kCorruption: return REFTAB_CORRUPTION;
    case Code::kIoError: return REFTAB_IO_ERROR;
    case Code::kNotFound: return REFTAB_NOT_FOUND;
    case Code::kInvalidArgument: return REFTAB_INVALID_ARGUMENT;
    case Code::kLockHeld: return REFTAB_LOCK_HELD;
    case Code::kOutdated: return REFTAB_OUTDATED;
    case Code::kTooLarge: return REFTAB_TOO_LARGE;
    case Code::kConflict: return REFTAB_CONFLICT;
  }
  return REFTAB_INTERNAL;
}

reftab_code Fail(reftab_error** err, reftab_code code, std::string_view message) {
  if (err == nullptr) return code;
  reftab_error_free(*err);
  *err = nullptr;
  try {
    *err = new reftab_error{code, std::string(message)};
  } catch (...) {
    *err = &kOutOfMemory;
  }
  return code;
}

reftab_code Report(reftab_error** err, const Status& status) {
  if (status.ok()) return REFTAB_OK;
  return Fail(err, CodeOf(status.code()), status.message());
}

}  // namespace reftab::capi

using reftab::capi::Fail;

extern "C" {

reftab_code reftab_error_code(const reftab_error* err) {
  return err == nullptr ? REFTAB_OK : err->code;
}

const char* reftab_error_message(const reftab_error* err) {
  return err == nullptr ? "" : err->message.c_str();
}

void reftab_error_free(reftab_error* err) {
  if (err != &reftab::capi::kOutOfMemory) delete err;
}

const char* reftab_code_name(reftab_code code_arg) {
  const int code = reftab::capi::EnumValue(code_arg);
  switch (code) {
    case REFTAB_OK: return "ok";
    case REFTAB_UNSUPPORTED: return "unsupported";
    case REFTAB_INTERNAL: return "internal";
    default: break;
  }
  if (code < REFTAB_OK || code > REFTAB_INTERNAL) return "unknown";
  // The codes shared with the C++ API keep its names.
  return reftab::CodeName(static_cast<reftab::Code>(code));
}

const char* reftab_version(void) { return REFTAB_VERSION_STRING; }

reftab_code reftab_parse_hex_id(const char* hex, size_t hash_size, uint8_t* out,
                                reftab_error** err) {
  return reftab::capi::Guard(err, [&] {
    REFTAB_C_REQUIRE(err, hex);
    REFTAB_C_REQUIRE(err, out);
    if (hash_size != reftab::kSha1Size && hash_size != reftab::kSha256Size) {
      return Fail(err, REFTAB_INVALID_ARGUMENT, "hash size must be 20 or 32");
    }
    reftab::ObjectId id{};
    if (!reftab::ParseHexId(hex, hash_size, &id)) {
      return Fail(err, REFTAB_INVALID_ARGUMENT,
                  "not a " + std::to_string(hash_size * 2) + "-digit hex object id: '" +
                      std::string(hex) + "'");
    }
    std::copy(id.begin(), id.begin() + hash_size, out);
    return REFTAB_OK;
  });
}

void reftab_format_hex_id(const uint8_t* id, size_t hash_size, char* out) {
  static const char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < hash_size; i++) {
    out[2 * i] = kDigits[id[i] >> 4];
    out[2 * i + 1] = kDigits[id[i] & 15];
  }
  out[2 * hash_size] = '\0';
}

}  // extern "C"

// Public API: errors as values.
//
// Status carries a code and a one-line message; Result<T> carries either a T or a non-OK
// Status. The library never throws for bad data: every decoder, reader and writer reports
// problems through these types. Result<T> mirrors the parts of std::expected we use
// (has_value(), error(), operator*, operator->) so a later switch is mechanical.
#ifndef REFTAB_FORMAT_STATUS_H_
#define REFTAB_FORMAT_STATUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

enum class Code : std::uint8_t {
  kOk,
  kCorruption,       // the bytes of a table or list are not valid reftable data
  kIoError,          // the operating system refused a read, write, sync or rename
  kNotFound,         // a *file* is missing (absence of a key is not an error)
  kInvalidArgument,  // API misuse; no state was changed
  kLockHeld,         // a lock file exists; retrying later may succeed
  kOutdated,         // the stack changed under the caller
  kTooLarge,         // a record does not fit in a block
  kConflict,         // a transaction's expected old value did not match
};

// Returns a short lower-case name for `code`, e.g. "corruption".
const char* CodeName(Code code);

// An OK status is a null pointer: making, moving, testing and dropping one (once per record
// on the writer's and readers' paths) costs a store or a test, not a std::string's set-up
// and tear-down. Only an error allocates.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  static Status Ok() { return Status(); }
  static Status Corruption(std::string_view what) { return Status(Code::kCorruption, what); }
  static Status IoError(std::string_view what) { return Status(Code::kIoError, what); }
  static Status NotFound(std::string_view what) { return Status(Code::kNotFound, what); }
  static Status InvalidArgument(std::string_view what) {
    return Status(Code::kInvalidArgument, what);
  }
  static Status LockHeld(std::string_view what) { return Status(Code::kLockHeld, what); }
  static Status Outdated(std::string_view what) { return Status(Code::kOutdated, what); }
  static Status TooLarge(std::string_view what) { return Status(Code::kTooLarge, what); }
  static Status Conflict(std::string_view what) { return Status(Code::kConflict, what); }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  // Empty for an OK status.
  const std::string& message() const { return rep_ ? rep_->message : EmptyMessage(); }

  // Prefixes the message with "<where>: ", e.g. the file name; an OK status stays OK.
  Status WithContext(std::string_view where) const&;
  Status WithContext(std::string_view where) &&;

  // "<code name>: <message>".
  std::string ToString() const;

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  Status(Code code, std::string_view message) : rep_(new Rep{code, std::string(message)}) {}
  static const std::string& EmptyMessage();
  std::unique_ptr<Rep> rep_;  // null: OK
};

// Holds a T or a non-OK Status. Constructing a Result from an OK Status is a programming
// error and is turned into kInvalidArgument rather than undefined behaviour.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).ok()) v_ = Status::InvalidArgument("Result built from OK status");
  }

  bool ok() const { return v_.index() == 0; }
  bool has_value() const { return ok(); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  const Status& error() const { return std::get<Status>(v_); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

#define REFTAB_CONCAT_INNER_(a, b) a##b
#define REFTAB_CONCAT_(a, b) REFTAB_CONCAT_INNER_(a, b)

#define REFTAB_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::reftab::Status reftab_status_ = (expr);        \
    if (!reftab_status_.ok()) return reftab_status_; \
  } while (0)

#define REFTAB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#define REFTAB_ASSIGN_OR_RETURN(lhs, expr) \
  REFTAB_ASSIGN_OR_RETURN_IMPL_(REFTAB_CONCAT_(reftab_result_, __LINE__), lhs, expr)

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_FORMAT_STATUS_H_

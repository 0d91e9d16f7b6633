#include "format/status.h"

namespace reftab {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kCorruption: return "corruption";
    case Code::kIoError: return "I/O error";
    case Code::kNotFound: return "not found";
    case Code::kInvalidArgument: return "invalid argument";
    case Code::kLockHeld: return "lock held";
    case Code::kOutdated: return "outdated";
    case Code::kTooLarge: return "too large";
    case Code::kConflict: return "conflict";
  }
  return "unknown";
}

Status Status::WithContext(std::string_view where) const& {
  Status copy = *this;
  return std::move(copy).WithContext(where);
}

const std::string& Status::EmptyMessage() {
  static const std::string kEmpty;
  return kEmpty;
}

Status Status::WithContext(std::string_view where) && {
  if (ok() || where.empty()) return std::move(*this);
  std::string msg;
  msg.reserve(where.size() + 2 + rep_->message.size());
  msg.append(where).append(": ").append(rep_->message);
  rep_->message = std::move(msg);
  return std::move(*this);
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(rep_->code)) + ": " + rep_->message;
}

}  // namespace reftab

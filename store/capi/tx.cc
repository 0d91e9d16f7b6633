// The C API's transactions (store/capi/reftab.h): GitRefTransaction on stores with git's rules,
// Transaction on plain stacks. Values coming from C are checked here before they reach them.
#include <optional>
#include <string>

#include "store/capi/internal.h"
#include "store/git/refs/ref_transaction.h"
#include "store/transaction.h"

struct reftab_tx {
  std::optional<reftab::Transaction> plain;
  std::optional<reftab::GitRefTransaction> git;
  size_t hash_size = 20;  // the ids in values from C are this long
  bool committed = false;
};

namespace reftab::capi {
namespace {

// `v` as a RefValue, or kInvalidArgument saying which part of `what` is missing.
Status ToRefValue(const reftab_value& v, size_t hash_size, std::string_view what, RefValue* out) {
  auto missing = [&](const char* field) {
    return Status::InvalidArgument(std::string(what) + " has no " + field);
  };
  auto id = [&](const uint8_t* bytes) {
    ObjectId o{};
    std::copy(bytes, bytes + hash_size, o.begin());
    return o;
  };
  switch (EnumValue(v.type)) {
    case REFTAB_VALUE_NONE: *out = RefValue::Absent(); return Status::Ok();
    case REFTAB_VALUE_ID:
      if (!v.id) return missing("id");
      *out = RefValue::Id(id(v.id));
      return Status::Ok();
    case REFTAB_VALUE_PEELED:
      if (!v.id || !v.peeled) return missing("id or peeled id");
      *out = RefValue::Peeled(id(v.id), id(v.peeled));
      return Status::Ok();
    case REFTAB_VALUE_SYMREF:
      if (!v.target) return missing("target");
      *out = RefValue::Symref(v.target);
      return Status::Ok();
  }
  return Status::InvalidArgument(std::string(what) + " has an unknown type " +
                                 std::to_string(EnumValue(v.type)));
}

Status ToOptional(const reftab_value* v, size_t hash_size, std::string_view what,
                  std::optional<RefValue>* out) {
  if (!v) return Status::Ok();
  RefValue value;
  REFTAB_RETURN_IF_ERROR(ToRefValue(*v, hash_size, what, &value));
  *out = std::move(value);
  return Status::Ok();
}

LogInfo ToLogInfo(const reftab_log_info& log) {
  return LogInfo{log.name ? log.name : "", log.email ? log.email : "", log.time, log.tz_offset,
                 log.message ? log.message : ""};
}

unsigned GitFlags(unsigned flags) {
  unsigned out = kGitRefDefault;
  if (flags & REFTAB_TX_NO_DEREF) out |= kGitRefNoDeref;
  if (flags & REFTAB_TX_CREATE_REFLOG) out |= kGitRefForceCreateReflog;
  return out;
}

// A view of `v` (pointers into it) for a C caller.
reftab_value ValueView(const RefValue& v) {
  reftab_value out{};
  switch (v.type) {
    case RefValueType::kDeletion: out.type = REFTAB_VALUE_NONE; break;
    case RefValueType::kVal1:
      out.type = REFTAB_VALUE_ID;
      out.id = v.id.data();
      break;
    case RefValueType::kVal2:
      out.type = REFTAB_VALUE_PEELED;
      out.id = v.id.data();
      out.peeled = v.peeled.data();
      break;
    case RefValueType::kSymref:
      out.type = REFTAB_VALUE_SYMREF;
      out.target = v.target.c_str();
      break;
  }
  return out;
}

reftab_reject_reason ReasonOf(GitRefRejectReason r) {
  switch (r) {
    case GitRefRejectReason::kNameConflict: return REFTAB_REJECT_NAME_CONFLICT;
    case GitRefRejectReason::kCreateExists: return REFTAB_REJECT_CREATE_EXISTS;
    case GitRefRejectReason::kNonexistentRef: return REFTAB_REJECT_NONEXISTENT_REF;
    case GitRefRejectReason::kIncorrectOldValue: return REFTAB_REJECT_INCORRECT_OLD_VALUE;
    case GitRefRejectReason::kInvalidNewValue: return REFTAB_REJECT_INVALID_NEW_VALUE;
    case GitRefRejectReason::kExpectedSymref: return REFTAB_REJECT_EXPECTED_SYMREF;
  }
  return REFTAB_REJECT_NAME_CONFLICT;
}

reftab_code CheckOpen(reftab_tx* tx, reftab_error** err) {
  REFTAB_C_REQUIRE(err, tx);
  if (tx->committed) {
    return Fail(err, REFTAB_INVALID_ARGUMENT, "the transaction was already committed");
  }
  return REFTAB_OK;
}

}  // namespace
}  // namespace reftab::capi

using reftab::RefValue;
using reftab::Status;
using reftab::capi::CheckOpen;
using reftab::capi::Fail;
using reftab::capi::Guard;
using reftab::capi::Report;

extern "C" {

reftab_code reftab_tx_begin(reftab_store* store, reftab_tx** out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    REFTAB_C_REQUIRE(err, out);
    if (store->read_only) {
      return Fail(err, REFTAB_UNSUPPORTED, "cannot write: the store was opened read only");
    }
    auto tx = std::make_unique<reftab_tx>();
    tx->hash_size = reftab::HashSize(reftab::capi::HashOf(store));
    if (store->git) {
      tx->git.emplace(store->git->NewTransaction());
    } else {
      tx->plain.emplace(store->stack->NewTransaction());
    }
    *out = tx.release();
    return REFTAB_OK;
  });
}

reftab_code reftab_tx_update(reftab_tx* tx, const char* name, const reftab_value* new_value,
                             const reftab_value* old_value, const reftab_log_info* log,
                             unsigned flags, reftab_error** err) {
  return Guard(err, [&] {
    if (reftab_code c = CheckOpen(tx, err)) return c;
    REFTAB_C_REQUIRE(err, name);
    REFTAB_C_REQUIRE(err, new_value);
    RefValue value;
    std::optional<RefValue> old;
    Status s = reftab::capi::ToRefValue(*new_value, tx->hash_size, "new_value", &value);
    if (s.ok()) s = reftab::capi::ToOptional(old_value, tx->hash_size, "old_value", &old);
    if (!s.ok()) return Report(err, s);
    if (tx->git) {
      std::string_view message = log && log->message ? log->message : "";
      return Report(err, tx->git->Update(name, value, old, reftab::capi::GitFlags(flags), message));
    }
    if (!value.exists()) {
      tx->plain->Delete(name, std::move(old));
      return REFTAB_OK;
    }
    std::optional<reftab::LogInfo> info;
    if (log) info = reftab::capi::ToLogInfo(*log);
    tx->plain->Update(name, std::move(value), std::move(old), std::move(info));
    return REFTAB_OK;
  });
}

reftab_code reftab_tx_delete(reftab_tx* tx, const char* name, const reftab_value* old_value,
                             const reftab_log_info* log, unsigned flags, reftab_error** err) {
  reftab_value none{};
  none.type = REFTAB_VALUE_NONE;
  return reftab_tx_update(tx, name, &none, old_value, log, flags, err);
}

reftab_code reftab_tx_verify(reftab_tx* tx, const char* name, const reftab_value* expected,
                             unsigned flags, reftab_error** err) {
  return Guard(err, [&] {
    if (reftab_code c = CheckOpen(tx, err)) return c;
    REFTAB_C_REQUIRE(err, name);
    REFTAB_C_REQUIRE(err, expected);
    RefValue value;
    if (reftab_code c =
            Report(err, reftab::capi::ToRefValue(*expected, tx->hash_size, "expected", &value))) {
      return c;
    }
    if (tx->git) {
      return Report(err, tx->git->Verify(name, value, reftab::capi::GitFlags(flags)));
    }
    tx->plain->Verify(name, std::move(value));
    return REFTAB_OK;
  });
}

reftab_code reftab_tx_commit(reftab_tx* tx, reftab_error** err) {
  return Guard(err, [&] {
    if (reftab_code c = CheckOpen(tx, err)) return c;
    tx->committed = true;
    return Report(err, tx->git ? tx->git->Commit() : tx->plain->Commit());
  });
}

void reftab_tx_free(reftab_tx* tx) { delete tx; }

reftab_code reftab_tx_set_batch_updates(reftab_tx* tx, int on, reftab_error** err) {
  return Guard(err, [&] {
    if (reftab_code c = CheckOpen(tx, err)) return c;
    if (!tx->git) {
      return Fail(err, REFTAB_UNSUPPORTED, "batch updates need git's rules (a repository)");
    }
    if (!tx->git->empty()) {
      return Fail(err, REFTAB_INVALID_ARGUMENT, "batch updates are set before the first update");
    }
    tx->git->set_batch_updates(on != 0);
    return REFTAB_OK;
  });
}

size_t reftab_tx_rejected_count(const reftab_tx* tx) {
  return tx && tx->git ? tx->git->rejected().size() : 0;
}

reftab_code reftab_tx_rejected(const reftab_tx* tx, size_t i, reftab_rejection* out,
                               reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, tx);
    REFTAB_C_REQUIRE(err, out);
    const size_t n = reftab_tx_rejected_count(tx);
    if (i >= n) {
      return Fail(err, REFTAB_INVALID_ARGUMENT,
                  "rejection " + std::to_string(i) + " asked for; there are " + std::to_string(n));
    }
    const reftab::GitRefRejection& r = tx->git->rejected()[i];
    *out = reftab_rejection{};
    out->name = r.refname.c_str();
    out->reason = reftab::capi::ReasonOf(r.reason);
    out->reason_text = reftab::GitRefRejectReasonText(r.reason);
    out->message = r.message.c_str();
    out->has_new_value = r.new_value.has_value();
    if (r.new_value) out->new_value = reftab::capi::ValueView(*r.new_value);
    out->has_old_value = r.old_value.has_value();
    if (r.old_value) out->old_value = reftab::capi::ValueView(*r.old_value);
    return REFTAB_OK;
  });
}

}  // extern "C"

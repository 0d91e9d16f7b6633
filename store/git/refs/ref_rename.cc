#include "store/git/refs/ref_rename.h"

#include <vector>

#include "store/git/identity.h"
#include "store/git/refs/ref_store.h"
#include "store/git/refs/refname.h"
#include "store/log_entry.h"
#include "store/merged_iterator.h"
#include "store/stack.h"

namespace reftab {
namespace {

Status Exists(std::string_view existing, std::string_view name) {
  std::string message = "'";
  message.append(existing).append("' exists; cannot create '").append(name).push_back('\'');
  return Status::Conflict(message);
}

// git's rule that no ref is a directory of another, for the new name of a rename: no
// parent of it and nothing below it may exist, except the name being renamed away.
Status CheckRenameTarget(GitRefStore& store, std::string_view old_name, std::string_view new_name) {
  const std::string name(new_name);
  for (size_t slash = name.find('/'); slash != std::string::npos;
       slash = name.find('/', slash + 1)) {
    std::string_view dir = std::string_view(name).substr(0, slash);
    if (dir == old_name) continue;
    RefRecord rec;
    bool found = false;
    REFTAB_RETURN_IF_ERROR(store.ReadRef(dir, &rec, &found));
    if (found) return Exists(dir, name);
  }
  std::string existing;
  REFTAB_RETURN_IF_ERROR(store.ForEachRef(name + "/", [&](const RefRecord& r) {
    if (r.refname == old_name) return true;
    existing = r.refname;
    return false;
  }));
  if (!existing.empty()) return Exists(existing, name);
  return Status::Ok();
}

// The rename's records, decided on the snapshot loaded under the stack's lock (see the
// header). `first` is the table's first update index, the old name's deletion; the second
// is the new name's creation.
Status AddRename(GitRefStore& store, const Snapshot& snap, std::string_view old_key,
                 std::string_view new_key, const std::string& message, Transaction* tx) {
  RefRecord old_ref;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(snap.ReadRef(old_key, &old_ref, &found));
  if (!found) return Status::NotFound("refname " + std::string(old_key) + " not found");
  if (old_ref.value_type == RefValueType::kSymref) {
    return Status::InvalidArgument("refname " + std::string(old_key) +
                                   " is a symbolic ref, copying it is not supported");
  }
  if (old_key == new_key) return Status::Ok();
  REFTAB_RETURN_IF_ERROR(CheckRenameTarget(store, old_key, new_key));
  const uint64_t first = snap.max_update_index() + 1;
  tx->set_update_index_span(2);
  const ObjectId id = old_ref.value;
  const LogInfo& who = store.committer();
  const std::string new_name(new_key);
  tx->Delete(std::string(old_key));  // the ref and every entry of its reflog
  tx->Update(new_name, RefValue::Of(old_ref));
  auto add = [&](std::string refname, const ObjectId& from, const ObjectId& to, uint64_t index) {
    LogRecord entry = UpdateLogEntry(std::move(refname), from, to, who, message);
    entry.update_index = index;
    tx->AddLogRecord(std::move(entry), /*keep_update_index=*/true);
  };
  add(new_name, id, ObjectId{}, first);
  RefRecord head;
  bool head_found = false;
  REFTAB_RETURN_IF_ERROR(snap.ReadRef("HEAD", &head, &head_found));
  if (head_found && head.value_type == RefValueType::kSymref && head.target == old_key) {
    add("HEAD", id, ObjectId{}, first);
  }
  add(new_name, ObjectId{}, id, first + 1);
  // The old reflog moves over entry by entry, each keeping its update index.
  MergedLogIterator it = snap.NewLogIterator();
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.Seek(old_key));
  LogRecord l;
  while (it.Next(&l) && l.refname == old_key) {
    l.refname = new_name;
    tx->AddLogRecord(std::move(l), /*keep_update_index=*/true);
    l = LogRecord();
  }
  return it.status();
}

}  // namespace

Status CheckRenameRef(GitRefStore& store, std::string_view old_name, std::string_view new_name) {
  for (std::string_view name : {old_name, new_name}) {
    if (!IsValidRefname(name)) {
      return Status::InvalidArgument("invalid ref format: '" + std::string(name) + "'");
    }
  }
  bool exists = false;
  REFTAB_RETURN_IF_ERROR(RefExists(store, old_name, &exists));
  if (!exists) {
    return Status::NotFound("reference does not exist: '" + std::string(old_name) + "'");
  }
  REFTAB_RETURN_IF_ERROR(RefExists(store, new_name, &exists));
  if (exists) {
    return Status::Conflict("reference already exists: '" + std::string(new_name) + "'");
  }
  return Status::Ok();
}

Status RenameRef(GitRefStore& store, std::string_view old_name, std::string_view new_name,
                 std::string_view message) {
  // git writes where the new name lives and reads the old name in that same stack.
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation to, store.Locate(new_name));
  if (!to.stack) return Status::IoError("reftable: transaction prepare: I/O error");
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation from, store.Locate(old_name));
  const std::string old_key(from.stack == to.stack ? from.key : old_name);
  const std::string new_key(to.key);
  const std::string cleaned = CleanReflogMessage(message, store.max_log_message());
  Transaction tx(to.stack);
  tx.DecideUnderLock([&](const Snapshot& locked, Transaction* t) {
    return AddRename(store, locked, old_key, new_key, cleaned, t);
  });
  Status s = tx.Commit();
  if (s.code() == Code::kLockHeld) return CannotLockReferences(store);
  return s;
}

}  // namespace reftab

// The C API's stores (store/capi/reftab.h): opening, lookup, compaction and verification, over
// GitRefStore (repositories, stacks with git's rules), Stack and TableReader.
#include <sys/stat.h>

#include <cstring>
#include <string>

#include "store/capi/internal.h"
#include "store/file.h"
#include "store/git/refs/object_name.h"
#include "store/symref_chain.h"
#include "store/verify.h"

namespace reftab::capi {
namespace {

StackOptions BaseOptions(reftab_hash hash, unsigned flags) {
  StackOptions options;
  if (hash == REFTAB_HASH_SHA1) options.hash_id = HashId::kSha1;
  if (hash == REFTAB_HASH_SHA256) options.hash_id = HashId::kSha256;
  if (flags & REFTAB_OPEN_DURABLE) options.durability = Durability::kFull;
  return options;
}

// Stack::Open and GitRepo::Open refuse a missing folder too; this names it as the C caller
// knows it (which argument it was).
Status RequireDir(const std::string& path, std::string_view what) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::NotFound(path + ": no such " + std::string(what));
  }
  return Status::Ok();
}

reftab_code Hand(std::unique_ptr<reftab_store> store, unsigned flags, reftab_store** out) {
  store->read_only = (flags & REFTAB_OPEN_READ_ONLY) != 0;
  *out = store.release();
  return REFTAB_OK;
}

// Every stack of a store that has stacks (main first), for maintenance.
std::vector<Stack*> StacksOf(reftab_store* store) {
  if (store->stack) return {store->stack.get()};
  if (!store->git) return {};
  return store->git->stacks();
}

// The record under exactly `name` in whatever the store is (tombstones: not found).
Status ReadExact(reftab_store* store, std::string_view name, RefRecord* ref, bool* found) {
  if (store->git) return store->git->ReadRef(name, ref, found);
  if (store->stack) return store->stack->snapshot()->ReadRef(name, ref, found);
  REFTAB_RETURN_IF_ERROR(store->table->ReadRef(name, ref, found));
  if (*found && ref->is_deletion()) *found = false;
  return Status::Ok();
}

// Symref following for stores without git's rules: the same depth limit, nothing else.
Status ResolvePlain(reftab_store* store, std::string_view name, bool* found) {
  auto read = [store](std::string_view n, RefRecord* ref, bool* f) {
    return ReadExact(store, n, ref, f);
  };
  return FollowSymrefs(read, name, &store->lookup, found);
}

}  // namespace

HashId HashOf(const reftab_store* store) {
  if (store->git) return const_cast<reftab_store*>(store)->git->main_stack().hash_id();
  if (store->stack) return store->stack->hash_id();
  return store->table->hash_id();
}

Result<std::vector<Source>> SourcesOf(reftab_store* store) {
  std::vector<Source> sources;
  if (store->table) {
    sources.push_back({std::make_shared<const Snapshot>(
        std::vector<std::shared_ptr<const TableReader>>{store->table}, store->table->hash_id())});
    return sources;
  }
  std::vector<Stack*> stacks = StacksOf(store);
  sources.push_back({stacks[0]->snapshot()});
  if (stacks.size() > 1) {
    sources[0].role = Source::Role::kSharedOfWorktree;
    sources.push_back({stacks[1]->snapshot(), Source::Role::kWorktree});
  }
  return sources;
}

void FillRefView(const RefRecord& r, reftab_ref* out) {
  *out = reftab_ref{};
  out->name = r.refname.c_str();
  out->name_len = r.refname.size();
  out->update_index = r.update_index;
  out->type = static_cast<reftab_value_type>(r.value_type);
  if (r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2) {
    out->id = r.value.data();
  }
  if (r.value_type == RefValueType::kVal2) out->peeled = r.peeled.data();
  if (r.value_type == RefValueType::kSymref) {
    out->target = r.target.c_str();
    out->target_len = r.target.size();
  }
}

void FillLogView(const LogRecord& r, reftab_log* out) {
  out->name = r.refname.c_str();
  out->name_len = r.refname.size();
  out->update_index = r.update_index;
  out->old_id = r.old_id.data();
  out->new_id = r.new_id.data();
  out->committer_name = r.name.c_str();
  out->committer_name_len = r.name.size();
  out->committer_email = r.email.c_str();
  out->committer_email_len = r.email.size();
  out->time = r.time;
  out->tz_offset = r.tz_offset;
  out->message = r.message.c_str();
  out->message_len = r.message.size();
}

}  // namespace reftab::capi

using reftab::Status;
using reftab::capi::Fail;
using reftab::capi::Guard;
using reftab::capi::Report;

extern "C" {

reftab_code reftab_store_open_repo(const char* git_dir, unsigned flags, reftab_store** out,
                                   reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, git_dir);
    REFTAB_C_REQUIRE(err, out);
    if (reftab_code c = Report(err, reftab::capi::RequireDir(git_dir, "git directory"))) {
      return c;
    }
    auto access = (flags & REFTAB_OPEN_READ_ONLY) ? reftab::GitRepoAccess::kReadOnly
                                                  : reftab::GitRepoAccess::kReadWrite;
    auto git = reftab::GitRefStore::OpenRepo(
        git_dir, reftab::capi::BaseOptions(REFTAB_HASH_DEFAULT, flags), access);
    if (!git.ok()) return Report(err, git.status());
    // A repository whose refs are not in reftables (git's files backend) has no stack.
    std::string reftable_dir = (*git)->repo()->common_dir() + "/reftable";
    if (reftab_code c = Report(err, reftab::capi::RequireDir(reftable_dir, "reftable folder"))) {
      return c;
    }
    auto store = std::make_unique<reftab_store>();
    store->git = std::move(*git);
    return reftab::capi::Hand(std::move(store), flags, out);
  });
}

reftab_code reftab_store_open_stack(const char* dir, reftab_hash hash, unsigned flags,
                                    reftab_store** out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, dir);
    REFTAB_C_REQUIRE(err, out);
    const int hash_value = reftab::capi::EnumValue(hash);
    if (hash_value != REFTAB_HASH_DEFAULT && hash_value != REFTAB_HASH_SHA1 &&
        hash_value != REFTAB_HASH_SHA256) {
      return Fail(err, REFTAB_INVALID_ARGUMENT, "unknown hash " + std::to_string(hash_value));
    }
    if (reftab_code c = Report(err, reftab::capi::RequireDir(dir, "stack folder"))) return c;
    auto stack = reftab::Stack::Open(dir, reftab::capi::BaseOptions(hash, flags));
    if (!stack.ok()) return Report(err, stack.status());
    auto store = std::make_unique<reftab_store>();
    if (flags & REFTAB_OPEN_GIT_RULES) {
      store->git = std::make_unique<reftab::GitRefStore>(std::move(*stack));
    } else {
      store->stack = std::move(*stack);
    }
    return reftab::capi::Hand(std::move(store), flags, out);
  });
}

reftab_code reftab_store_open_table(const char* path, reftab_store** out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, path);
    REFTAB_C_REQUIRE(err, out);
    auto file = reftab::PosixFileSystem()->OpenRead(path);
    if (!file.ok()) return Report(err, file.status());
    auto table = reftab::TableReader::Open(std::move(*file));
    if (!table.ok()) return Report(err, table.status());
    auto store = std::make_unique<reftab_store>();
    store->table = std::move(*table);
    return reftab::capi::Hand(std::move(store), REFTAB_OPEN_READ_ONLY, out);
  });
}

void reftab_store_free(reftab_store* store) { delete store; }

reftab_hash reftab_store_hash(const reftab_store* store) {
  if (store == nullptr) return REFTAB_HASH_DEFAULT;
  return reftab::capi::HashOf(store) == reftab::HashId::kSha256 ? REFTAB_HASH_SHA256
                                                                : REFTAB_HASH_SHA1;
}

size_t reftab_store_hash_size(const reftab_store* store) {
  return store == nullptr ? 0 : reftab::HashSize(reftab::capi::HashOf(store));
}

reftab_code reftab_store_refresh(reftab_store* store, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    for (reftab::Stack* stack : reftab::capi::StacksOf(store)) {
      if (reftab_code c = Report(err, stack->ReloadIfChanged())) return c;
    }
    return REFTAB_OK;
  });
}

reftab_code reftab_store_read_ref(reftab_store* store, const char* name, reftab_ref* out,
                                  int* found, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    REFTAB_C_REQUIRE(err, name);
    REFTAB_C_REQUIRE(err, out);
    REFTAB_C_REQUIRE(err, found);
    bool has = false;
    *found = 0;
    if (reftab_code c = Report(err, reftab::capi::ReadExact(store, name, &store->lookup, &has))) {
      return c;
    }
    *found = has;
    if (has) reftab::capi::FillRefView(store->lookup, out);
    return REFTAB_OK;
  });
}

reftab_code reftab_store_resolve(reftab_store* store, const char* name, reftab_ref* out, int* found,
                                 reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    REFTAB_C_REQUIRE(err, name);
    REFTAB_C_REQUIRE(err, out);
    REFTAB_C_REQUIRE(err, found);
    *found = 0;
    bool has = false;
    if (store->git) {
      reftab::ResolvedRef resolved;
      if (reftab_code c = Report(err, store->git->Resolve(name, &resolved))) return c;
      has = resolved.exists && !resolved.broken;
      if (has) store->lookup = std::move(resolved.record);
    } else {
      if (reftab_code c = Report(err, reftab::capi::ResolvePlain(store, name, &has))) return c;
    }
    *found = has;
    if (has) reftab::capi::FillRefView(store->lookup, out);
    return REFTAB_OK;
  });
}

reftab_code reftab_store_resolve_revision(reftab_store* store, const char* revision,
                                          uint8_t* id_out, int* found, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    REFTAB_C_REQUIRE(err, revision);
    REFTAB_C_REQUIRE(err, id_out);
    REFTAB_C_REQUIRE(err, found);
    *found = 0;
    if (!store->git) {
      return Fail(err, REFTAB_UNSUPPORTED, "revisions need a store with git's rules");
    }
    reftab::ObjectNameResult r;
    reftab::RevisionOptions quiet;
    quiet.quiet = true;
    if (reftab_code c = Report(err, reftab::ResolveRevision(*store->git, revision, &r, quiet))) {
      return c;
    }
    *found = r.found && !r.dies;
    if (*found) std::memcpy(id_out, r.id.data(), store->git->hash_size());
    return REFTAB_OK;
  });
}

reftab_code reftab_store_compact(reftab_store* store, const reftab_compact_options* options,
                                 reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    if (store->read_only) {
      return Fail(err, REFTAB_UNSUPPORTED, "cannot compact: the store was opened read only");
    }
    reftab::CompactionOptions copts;
    if (options && options->expire_logs_before) {
      copts.expire_logs_before = options->expire_logs_before;
    }
    if (options && options->max_logs_per_ref) copts.max_logs_per_ref = options->max_logs_per_ref;
    for (reftab::Stack* stack : reftab::capi::StacksOf(store)) {
      if (reftab_code c = Report(err, stack->CompactAll(copts))) return c;
    }
    return REFTAB_OK;
  });
}

reftab_code reftab_store_verify(reftab_store* store, reftab_verify_report* out,
                                reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, store);
    reftab::VerifyReport report;
    Status status;
    if (store->table) {
      status = reftab::VerifyTable(*store->table, &report);
    } else {
      for (reftab::Stack* stack : reftab::capi::StacksOf(store)) {
        status = reftab::VerifyStack(*stack, &report);
        if (!status.ok()) break;
      }
    }
    if (out) {
      *out = reftab_verify_report{report.tables, report.blocks, report.refs, report.logs,
                                  report.warnings.size()};
    }
    return Report(err, status);
  });
}

}  // extern "C"

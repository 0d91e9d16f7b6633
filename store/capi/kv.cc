// The key/value store's C API (store/capi/reftab_kv.h): thin handles over store/kv/kv_store.h, with
// the error convention of store/capi/reftab.h (store/capi/internal.h).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/capi/internal.h"
#include "store/capi/reftab_kv.h"
#include "store/kv/kv_store.h"

struct reftab_kv {
  std::unique_ptr<reftab::KvStore> store;
  reftab::KvWriteOptions write_options;
  std::string value;                  // what the last reftab_kv_get's view points into
  std::vector<std::string> values;    // reftab_kv_multi_get's
  std::vector<uint64_t> table_sizes;  // reftab_kv_get_properties'
};

struct reftab_kv_batch {
  reftab::KvWriteBatch batch;
};

struct reftab_kv_snapshot {
  reftab::KvSnapshot snap;
  std::string value;
};

struct reftab_kv_iter {
  reftab::KvIterator it;
  bool pending;       // positioned on an entry Next has not returned yet
  bool pending_prev;  // positioned on an entry Prev has not returned yet
};

namespace reftab::capi {
namespace {

// Bytes from C: a NULL pointer stands for no bytes only when the length is 0.
bool Bytes(const void* p, size_t n, std::string_view* out) {
  if (p == nullptr && n != 0) return false;
  *out = n ? std::string_view(static_cast<const char*>(p), n) : std::string_view();
  return true;
}

#define REFTAB_C_BYTES(err, p, n, out)                                                    \
  do {                                                                                    \
    if (!::reftab::capi::Bytes(p, n, out)) {                                              \
      return ::reftab::capi::Fail(err, REFTAB_INVALID_ARGUMENT,                           \
                                  "argument " #p " is NULL with a length of " #n " > 0"); \
    }                                                                                     \
  } while (0)

std::optional<std::string> Bound(const void* p, size_t n) {
  if (p == nullptr) return std::nullopt;
  return std::string(static_cast<const char*>(p), n);
}

}  // namespace
}  // namespace reftab::capi

using reftab::capi::Fail;
using reftab::capi::Guard;
using reftab::capi::Report;

extern "C" {

reftab_code reftab_kv_open(const char* dir, unsigned flags, reftab_kv** out, reftab_error** err) {
  reftab_kv_options o{};
  o.flags = flags;
  return reftab_kv_open_opts(dir, &o, out, err);
}

reftab_code reftab_kv_open_opts(const char* dir, const reftab_kv_options* options, reftab_kv** out,
                                reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, dir);
    REFTAB_C_REQUIRE(err, out);
    *out = nullptr;
    const reftab_kv_options none{};
    const reftab_kv_options& opts = options ? *options : none;
    const unsigned flags = opts.flags;
    reftab::KvOptions o;
    if (opts.memtable_size != 0) o.memtable_size = opts.memtable_size;
    if (opts.memtable_entries != 0) o.memtable_entries = opts.memtable_entries;
    if (opts.block_size != 0) {
      if (opts.block_size < 256 || opts.block_size > reftab::kMaxBlockSize) {
        return Fail(err, REFTAB_INVALID_ARGUMENT,
                    "block_size " + std::to_string(opts.block_size) + " is outside 256 .. " +
                        std::to_string(reftab::kMaxBlockSize));
      }
      o.block_size = opts.block_size;
    }
    switch (opts.durability) {
      case REFTAB_KV_DURABILITY_DEFAULT: break;
      case REFTAB_KV_DURABILITY_NONE: o.durability = reftab::Durability::kNone; break;
      case REFTAB_KV_DURABILITY_GIT: o.durability = reftab::Durability::kGit; break;
      case REFTAB_KV_DURABILITY_FULL: o.durability = reftab::Durability::kFull; break;
      default:
        return Fail(err, REFTAB_INVALID_ARGUMENT,
                    "durability " + std::to_string(opts.durability) +
                        " is not one of REFTAB_KV_DURABILITY_*");
    }
    if ((flags & REFTAB_KV_NO_SYNC) && opts.durability == REFTAB_KV_DURABILITY_DEFAULT) {
      o.durability = reftab::Durability::kNone;
    }
    if (flags & REFTAB_KV_NO_AUTO_COMPACT) o.auto_compact = false;
    if (flags & REFTAB_KV_NO_REFRESH_ON_READ) o.refresh_on_read = false;
    if (flags & REFTAB_KV_READ_ONLY) o.read_only = true;
    reftab::KvWriteOptions w;
    w.sync = (flags & REFTAB_KV_SYNC_WRITES) != 0;
    auto store = reftab::KvStore::Open(dir, o);
    if (!store.ok()) return Report(err, store.status());
    *out = new reftab_kv{std::move(*store), w, {}, {}, {}};
    return REFTAB_OK;
  });
}

void reftab_kv_free(reftab_kv* kv) { delete kv; }

reftab_code reftab_kv_close(reftab_kv* kv, reftab_error** err) {
  std::unique_ptr<reftab_kv> owned(kv);
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    return Report(err, kv->store->Close());
  });
}

reftab_code reftab_kv_destroy(const char* dir, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, dir);
    return Report(err, reftab::KvStore::Destroy(dir));
  });
}

reftab_code reftab_kv_multi_get(reftab_kv* kv, size_t n, const void* const* keys,
                                const size_t* key_lens, const void** values, size_t* value_lens,
                                int* found, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    if (n != 0) {
      REFTAB_C_REQUIRE(err, keys);
      REFTAB_C_REQUIRE(err, key_lens);
      REFTAB_C_REQUIRE(err, values);
      REFTAB_C_REQUIRE(err, value_lens);
      REFTAB_C_REQUIRE(err, found);
    }
    std::vector<std::string_view> ks(n);
    for (size_t i = 0; i < n; ++i) REFTAB_C_BYTES(err, keys[i], key_lens[i], &ks[i]);
    std::vector<bool> here;
    reftab_code c = Report(err, kv->store->MultiGet(ks, &kv->values, &here));
    for (size_t i = 0; i < n; ++i) {
      const bool f = c == REFTAB_OK && here[i];
      found[i] = f;
      values[i] = f ? kv->values[i].data() : nullptr;
      value_lens[i] = f ? kv->values[i].size() : 0;
    }
    return c;
  });
}

reftab_code reftab_kv_get_properties(reftab_kv* kv, reftab_kv_properties* out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    REFTAB_C_REQUIRE(err, out);
    reftab::KvProperties p = kv->store->Properties();
    kv->table_sizes = std::move(p.table_sizes);
    *out = reftab_kv_properties{};
    out->tables = kv->table_sizes.size();
    out->table_sizes = kv->table_sizes.data();
    out->table_bytes = p.table_bytes;
    out->memtable_bytes = p.memtable_bytes;
    out->immutable_memtable_bytes = p.immutable_memtable_bytes;
    out->pending_compaction_tables = p.pending_compaction_tables;
    out->pending_compaction_bytes = p.pending_compaction_bytes;
    out->user_bytes_written = p.user_bytes_written;
    out->log_bytes_written = p.log_bytes_written;
    out->table_bytes_written = p.table_bytes_written;
    out->write_amplification = p.write_amplification();
    out->log_writes = p.log_writes;
    out->log_syncs = p.log_syncs;
    out->flushes = p.flushes;
    out->compactions = p.compactions;
    out->write_slowdowns = p.write_slowdowns;
    out->write_stops = p.write_stops;
    out->write_stall_micros = p.write_stall_micros;
    return REFTAB_OK;
  });
}

reftab_code reftab_kv_flush(reftab_kv* kv, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    return Report(err, kv->store->Flush());
  });
}

reftab_code reftab_kv_refresh(reftab_kv* kv, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    return Report(err, kv->store->Refresh());
  });
}

reftab_code reftab_kv_put(reftab_kv* kv, const void* key, size_t key_len, const void* value,
                          size_t value_len, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    std::string_view k, v;
    REFTAB_C_BYTES(err, key, key_len, &k);
    REFTAB_C_BYTES(err, value, value_len, &v);
    return Report(err, kv->store->Put(k, v, kv->write_options));
  });
}

reftab_code reftab_kv_delete(reftab_kv* kv, const void* key, size_t key_len, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    std::string_view k;
    REFTAB_C_BYTES(err, key, key_len, &k);
    return Report(err, kv->store->Delete(k, kv->write_options));
  });
}

reftab_code reftab_kv_get(reftab_kv* kv, const void* key, size_t key_len, const void** value,
                          size_t* value_len, int* found, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    REFTAB_C_REQUIRE(err, value);
    REFTAB_C_REQUIRE(err, value_len);
    REFTAB_C_REQUIRE(err, found);
    std::string_view k;
    REFTAB_C_BYTES(err, key, key_len, &k);
    bool here = false;
    reftab_code c = Report(err, kv->store->Get(k, &kv->value, &here));
    *found = here;
    *value = here ? kv->value.data() : nullptr;
    *value_len = here ? kv->value.size() : 0;
    return c;
  });
}

reftab_code reftab_kv_batch_new(reftab_kv_batch** out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, out);
    *out = new reftab_kv_batch;
    return REFTAB_OK;
  });
}

reftab_code reftab_kv_batch_put(reftab_kv_batch* batch, const void* key, size_t key_len,
                                const void* value, size_t value_len, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, batch);
    std::string_view k, v;
    REFTAB_C_BYTES(err, key, key_len, &k);
    REFTAB_C_BYTES(err, value, value_len, &v);
    batch->batch.Put(k, v);
    return REFTAB_OK;
  });
}

reftab_code reftab_kv_batch_delete(reftab_kv_batch* batch, const void* key, size_t key_len,
                                   reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, batch);
    std::string_view k;
    REFTAB_C_BYTES(err, key, key_len, &k);
    batch->batch.Delete(k);
    return REFTAB_OK;
  });
}

void reftab_kv_batch_clear(reftab_kv_batch* batch) {
  if (batch) batch->batch.Clear();
}

void reftab_kv_batch_free(reftab_kv_batch* batch) { delete batch; }

reftab_code reftab_kv_write(reftab_kv* kv, const reftab_kv_batch* batch, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    REFTAB_C_REQUIRE(err, batch);
    return Report(err, kv->store->Write(batch->batch, kv->write_options));
  });
}

reftab_code reftab_kv_write_flags(reftab_kv* kv, const reftab_kv_batch* batch, unsigned flags,
                                  reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    REFTAB_C_REQUIRE(err, batch);
    reftab::KvWriteOptions w = kv->write_options;
    if (flags & REFTAB_KV_WRITE_SYNC) w.sync = true;
    return Report(err, kv->store->Write(batch->batch, w));
  });
}

reftab_code reftab_kv_snapshot_new(reftab_kv* kv, reftab_kv_snapshot** out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    REFTAB_C_REQUIRE(err, out);
    *out = nullptr;
    auto snap = kv->store->GetSnapshot();
    if (!snap.ok()) return Report(err, snap.status());
    *out = new reftab_kv_snapshot{std::move(*snap), {}};
    return REFTAB_OK;
  });
}

reftab_code reftab_kv_snapshot_get(reftab_kv_snapshot* snap, const void* key, size_t key_len,
                                   const void** value, size_t* value_len, int* found,
                                   reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, snap);
    REFTAB_C_REQUIRE(err, value);
    REFTAB_C_REQUIRE(err, value_len);
    REFTAB_C_REQUIRE(err, found);
    std::string_view k;
    REFTAB_C_BYTES(err, key, key_len, &k);
    bool here = false;
    reftab_code c = Report(err, snap->snap.Get(k, &snap->value, &here));
    *found = here;
    *value = here ? snap->value.data() : nullptr;
    *value_len = here ? snap->value.size() : 0;
    return c;
  });
}

uint64_t reftab_kv_snapshot_sequence(const reftab_kv_snapshot* snap) {
  return snap ? snap->snap.sequence() : 0;
}

void reftab_kv_snapshot_free(reftab_kv_snapshot* snap) { delete snap; }

reftab_code reftab_kv_iter_new(const reftab_kv_snapshot* snap, const reftab_kv_range* range,
                               reftab_kv_iter** out, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, snap);
    REFTAB_C_REQUIRE(err, out);
    *out = nullptr;
    reftab::KvIteratorOptions o;
    if (range) {
      std::string_view prefix;
      REFTAB_C_BYTES(err, range->prefix, range->prefix_len, &prefix);
      o.prefix = std::string(prefix);
      o.lower_bound = reftab::capi::Bound(range->lower, range->lower_len);
      o.upper_bound = reftab::capi::Bound(range->upper, range->upper_len);
    }
    auto* it = new reftab_kv_iter{snap->snap.NewIterator(o), true, false};
    reftab::Status s = it->it.SeekToFirst();
    if (!s.ok()) {
      delete it;
      return Report(err, s);
    }
    *out = it;
    return REFTAB_OK;
  });
}

reftab_code reftab_kv_iter_seek(reftab_kv_iter* it, const void* key, size_t key_len,
                                reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    std::string_view k;
    REFTAB_C_BYTES(err, key, key_len, &k);
    it->pending = true;
    it->pending_prev = false;
    return Report(err, it->it.Seek(k));
  });
}

reftab_code reftab_kv_iter_seek_for_prev(reftab_kv_iter* it, const void* key, size_t key_len,
                                         reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    std::string_view k;
    REFTAB_C_BYTES(err, key, key_len, &k);
    it->pending = false;
    it->pending_prev = true;
    return Report(err, it->it.SeekForPrev(k));
  });
}

reftab_code reftab_kv_iter_seek_last(reftab_kv_iter* it, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    it->pending = false;
    it->pending_prev = true;
    return Report(err, it->it.SeekToLast());
  });
}

reftab_code reftab_kv_iter_prev(reftab_kv_iter* it, reftab_kv_entry* out, int* has,
                                reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    REFTAB_C_REQUIRE(err, out);
    REFTAB_C_REQUIRE(err, has);
    if (!it->pending_prev) it->it.Prev();
    it->pending = it->pending_prev = false;
    *has = it->it.Valid();
    if (!*has) {
      *out = reftab_kv_entry{};
      return Report(err, it->it.status());
    }
    std::string_view k = it->it.key(), v = it->it.value();
    *out = reftab_kv_entry{k.data(), k.size(), v.data(), v.size()};
    return REFTAB_OK;
  });
}

reftab_code reftab_kv_iter_next(reftab_kv_iter* it, reftab_kv_entry* out, int* has,
                                reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    REFTAB_C_REQUIRE(err, out);
    REFTAB_C_REQUIRE(err, has);
    if (!it->pending) it->it.Next();
    it->pending = it->pending_prev = false;
    *has = it->it.Valid();
    if (!*has) {
      *out = reftab_kv_entry{};
      return Report(err, it->it.status());
    }
    std::string_view k = it->it.key(), v = it->it.value();
    *out = reftab_kv_entry{k.data(), k.size(), v.data(), v.size()};
    return REFTAB_OK;
  });
}

void reftab_kv_iter_free(reftab_kv_iter* it) { delete it; }

reftab_code reftab_kv_compact(reftab_kv* kv, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, kv);
    return Report(err, kv->store->CompactAll());
  });
}

}  // extern "C"

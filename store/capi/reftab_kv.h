/* Public API: the key/value store (store/kv/kv_store.h) from C, in the conventions of
 * <reftab.h> (names, reftab_code + reftab_error** on every call that can fail, VIEWs valid
 * until the next call on the handle that filled them, handles used by one thread at a time).
 *
 * Installed as <reftab_kv.h> (and <reftab/reftab_kv.h>); `pkg-config --cflags --libs reftab`.
 *
 * Keys and values are arbitrary bytes, passed as pointer + length (NULs allowed; the empty
 * key is REFTAB_INVALID_ARGUMENT; key + value above 16 MiB - 256 bytes is REFTAB_TOO_LARGE).
 * Keys sort as unsigned bytes. The tables are reftables (see the README's "A key/value
 * store"): values are the targets of symbolic-ref records, deletions are tombstones. A write
 * goes to a write-ahead log (kv.log) and a memtable, which a background thread writes into a
 * table when it grows past 32 MiB or 65,536 writes (memtable_size, memtable_entries), at
 * reftab_kv_flush, and when the store is
 * next opened for writing. A writing handle may be used by several threads at once (its
 * writes are committed in groups: one write(2), one fsync for the synced ones), except for
 * reftab_kv_get's VIEW, reftab_kv_multi_get's and reftab_kv_properties' (per handle: give
 * each reading thread its snapshot instead), reftab_kv_close and reftab_kv_free.
 *
 * One process at a time opens a store for writing (a second gets REFTAB_LOCK_HELD at once,
 * naming kv.lock and the holder's pid); any number open it with REFTAB_KV_READ_ONLY and see
 * every flushed write.
 */
#ifndef REFTAB_KV_H_
#define REFTAB_KV_H_

#include <stddef.h>

#include "reftab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct reftab_kv reftab_kv;                   /* an open store */
typedef struct reftab_kv_batch reftab_kv_batch;       /* puts and deletes applied together */
typedef struct reftab_kv_snapshot reftab_kv_snapshot; /* a fixed state of a store */
typedef struct reftab_kv_iter reftab_kv_iter;         /* iteration over a snapshot */

/* Flags for reftab_kv_open, combined with '|'. */
enum {
  /* No fsync of the tables a flush writes (they survive a crash of the process, not of the
   * machine). Default: each new table and tables.list are fsynced before they are renamed
   * into place. */
  REFTAB_KV_NO_SYNC = 1u << 0,
  /* No geometric compaction after each flush (reftab_kv_compact merges on demand). */
  REFTAB_KV_NO_AUTO_COMPACT = 1u << 1,
  /* Read-only handles: reftab_kv_get and reftab_kv_snapshot_new read the state of the last
   * reftab_kv_refresh, without first looking for new tables (which costs one stat() per
   * call). */
  REFTAB_KV_NO_REFRESH_ON_READ = 1u << 2,
  /* Open for reading only: no lock, no log; every write fails with
   * REFTAB_INVALID_ARGUMENT. Reads see the flushed writes. */
  REFTAB_KV_READ_ONLY = 1u << 3,
  /* Every write of this handle returns once its log record is fsynced (default: once
   * write(2) returned, which a crash of the process does not undo, but one of the machine
   * may). */
  REFTAB_KV_SYNC_WRITES = 1u << 4
};

/* Opens (creating the directory if needed) the store in `dir`. Opening for writing replays
 * the logs a previous writer left and flushes them. */
REFTAB_C_EXPORT reftab_code reftab_kv_open(const char* dir, unsigned flags, reftab_kv** out,
                                           reftab_error** err);

/* How the tables a flush or compaction writes reach the disk (KvOptions::durability). */
enum {
  REFTAB_KV_DURABILITY_DEFAULT = 0, /* GIT, or NONE with REFTAB_KV_NO_SYNC */
  REFTAB_KV_DURABILITY_NONE = 1,    /* no fsync of tables (the log: per write, as asked) */
  REFTAB_KV_DURABILITY_GIT = 2,     /* each table and tables.list fsynced before its rename */
  REFTAB_KV_DURABILITY_FULL = 3     /* and the folder after every rename */
};
/* Open options: zero-initialize, then set what matters; a 0 field keeps the default. */
typedef struct reftab_kv_options {
  unsigned flags;       /* REFTAB_KV_* open flags, as for reftab_kv_open */
  size_t memtable_size; /* bytes (keys + values + 64 per entry) before a flush; 0: 32 MiB */
  unsigned block_size;  /* the tables' block size, 256 .. 16 MiB - 1; 0: 4096 */
  int durability;       /* REFTAB_KV_DURABILITY_* */
  /* writes (puts and deletes) before a flush, whatever their bytes; 0: 65,536 */
  size_t memtable_entries;
} reftab_kv_options;
/* As reftab_kv_open, with options (NULL: the defaults). REFTAB_INVALID_ARGUMENT for a block
 * size or durability out of range. */
REFTAB_C_EXPORT reftab_code reftab_kv_open_opts(const char* dir, const reftab_kv_options* options,
                                                reftab_kv** out, reftab_error** err);
/* Stops the handle's background thread (after its current flush or compaction) and frees
 * it, as reftab_kv_free, reporting the error that thread met, if any (a failed flush: the
 * logs keep the writes for the next open). `kv` is freed whatever the outcome. */
REFTAB_C_EXPORT reftab_code reftab_kv_close(reftab_kv* kv, reftab_error** err);
/* Removes the store in `dir` (its tables, tables.list, logs and kv.lock; then the folder if
 * nothing else is in it). REFTAB_LOCK_HELD while a writer has it open, or while
 * tables.list.lock exists (a compaction of another process); REFTAB_NOT_FOUND if `dir` does
 * not exist. */
REFTAB_C_EXPORT reftab_code reftab_kv_destroy(const char* dir, reftab_error** err);
/* Picks up other processes' writes now (one stat() when there are none). */
REFTAB_C_EXPORT reftab_code reftab_kv_refresh(reftab_kv* kv, reftab_error** err);
/* Writes the memtable into a new table now, so that other processes see it. */
REFTAB_C_EXPORT reftab_code reftab_kv_flush(reftab_kv* kv, reftab_error** err);
/* Releases the store, without a flush (the log keeps the writes); NULL is accepted.
 * Snapshots and iterators made from it stay valid. */
REFTAB_C_EXPORT void reftab_kv_free(reftab_kv* kv);

/* One-entry writes, each an atomic batch of its own. */
REFTAB_C_EXPORT reftab_code reftab_kv_put(reftab_kv* kv, const void* key, size_t key_len,
                                          const void* value, size_t value_len, reftab_error** err);
REFTAB_C_EXPORT reftab_code reftab_kv_delete(reftab_kv* kv, const void* key, size_t key_len,
                                             reftab_error** err);
/* Reads the latest state (a read-only handle picks up new tables first). *found = 0 when the key
 * is absent. *value (not NUL-terminated) is a VIEW owned by `kv`, valid until its next call. */
REFTAB_C_EXPORT reftab_code reftab_kv_get(reftab_kv* kv, const void* key, size_t key_len,
                                          const void** value, size_t* value_len, int* found,
                                          reftab_error** err);

/* reftab_kv_get of `n` keys in one state (no write lands between two of them): fills
 * values[i], value_lens[i] and found[i] for each keys[i] (key_lens[i] bytes). The values
 * are VIEWs owned by `kv`, valid until its next call. */
REFTAB_C_EXPORT reftab_code reftab_kv_multi_get(reftab_kv* kv, size_t n, const void* const* keys,
                                                const size_t* key_lens, const void** values,
                                                size_t* value_lens, int* found, reftab_error** err);

/* What a store holds and has done since the handle opened it (KvProperties). */
typedef struct reftab_kv_properties {
  size_t tables;                     /* in the stack */
  const uint64_t* table_sizes;       /* their file sizes, oldest first: a VIEW owned by kv */
  uint64_t table_bytes;              /* their sum */
  uint64_t memtable_bytes;           /* the memtable's size, as memtable_size counts */
  uint64_t immutable_memtable_bytes; /* the one being flushed; 0 if none */
  size_t pending_compaction_tables;  /* tables auto-compaction would merge now */
  uint64_t pending_compaction_bytes; /* their bytes */
  uint64_t user_bytes_written;       /* keys and values the writes carried */
  uint64_t log_bytes_written;        /* bytes appended to the logs */
  uint64_t table_bytes_written;      /* bytes of the tables flushes and compactions wrote */
  double write_amplification;        /* (log + table bytes) / user bytes; 0 before a write */
  uint64_t log_writes;               /* write(2)s of log records (groups) */
  uint64_t log_syncs;
  uint64_t flushes;
  uint64_t compactions;        /* auto-compactions that merged tables */
  uint64_t write_slowdowns;    /* writes delayed 1 ms: compaction behind */
  uint64_t write_stops;        /* waits of a write for a flush or a compaction */
  uint64_t write_stall_micros; /* the time writes spent in both, microseconds */
} reftab_kv_properties;
/* Fills *out (a read-only handle: its tables; the counters stay 0). */
REFTAB_C_EXPORT reftab_code reftab_kv_get_properties(reftab_kv* kv, reftab_kv_properties* out,
                                                     reftab_error** err);

/* A batch collects operations (copying the bytes); a later one on the same key wins. */
REFTAB_C_EXPORT reftab_code reftab_kv_batch_new(reftab_kv_batch** out, reftab_error** err);
REFTAB_C_EXPORT reftab_code reftab_kv_batch_put(reftab_kv_batch* batch, const void* key,
                                                size_t key_len, const void* value, size_t value_len,
                                                reftab_error** err);
REFTAB_C_EXPORT reftab_code reftab_kv_batch_delete(reftab_kv_batch* batch, const void* key,
                                                   size_t key_len, reftab_error** err);
REFTAB_C_EXPORT void reftab_kv_batch_clear(reftab_kv_batch* batch);
REFTAB_C_EXPORT void reftab_kv_batch_free(reftab_kv_batch* batch);
/* Applies the whole batch or nothing, as one log record. The batch is left as it was (free
 * or clear it). */
REFTAB_C_EXPORT reftab_code reftab_kv_write(reftab_kv* kv, const reftab_kv_batch* batch,
                                            reftab_error** err);

/* Flags for reftab_kv_write_flags, combined with '|'. */
enum {
  /* Return once the write's log record is fsynced (as REFTAB_KV_SYNC_WRITES, for this
   * write only). */
  REFTAB_KV_WRITE_SYNC = 1u << 0
};
/* As reftab_kv_write, with flags for this write (a handle opened with REFTAB_KV_SYNC_WRITES
 * syncs every write anyway). */
REFTAB_C_EXPORT reftab_code reftab_kv_write_flags(reftab_kv* kv, const reftab_kv_batch* batch,
                                                  unsigned flags, reftab_error** err);

/* The latest state, fixed: later writes and compactions do not change what it reads. Owned
 * by the caller; it may outlive `kv`. */
REFTAB_C_EXPORT reftab_code reftab_kv_snapshot_new(reftab_kv* kv, reftab_kv_snapshot** out,
                                                   reftab_error** err);
/* As reftab_kv_get; *value is a VIEW owned by the snapshot, valid until its next call. */
REFTAB_C_EXPORT reftab_code reftab_kv_snapshot_get(reftab_kv_snapshot* snap, const void* key,
                                                   size_t key_len, const void** value,
                                                   size_t* value_len, int* found,
                                                   reftab_error** err);
/* Orders the states of one store: a later state has a greater or equal number. */
REFTAB_C_EXPORT uint64_t reftab_kv_snapshot_sequence(const reftab_kv_snapshot* snap);
REFTAB_C_EXPORT void reftab_kv_snapshot_free(reftab_kv_snapshot* snap);

/* Which keys an iterator visits: each bound is ignored when its pointer is NULL. */
typedef struct reftab_kv_range {
  const void* prefix; /* only keys starting with these bytes */
  size_t prefix_len;
  const void* lower; /* keys >= lower (inclusive) */
  size_t lower_len;
  const void* upper; /* keys < upper (exclusive) */
  size_t upper_len;
} reftab_kv_range;

/* An entry: a VIEW owned by the iterator, valid until its next call (or reftab_kv_iter_free).
 * No entry is copied for the caller: the bytes are where the snapshot holds them (the mapped
 * table, or its frozen memtable), or, once a scan has passed 2 MiB of a table's blocks since
 * its last seek, in the window the iterator reads that table ahead into with pread(2)
 * (KvIteratorOptions::readahead in store/kv/kv_store.h says why). */
typedef struct reftab_kv_entry {
  const void* key;
  size_t key_len;
  const void* value;
  size_t value_len;
} reftab_kv_entry;

/* An iterator over `snap` within `range` (NULL: every key), positioned before the first
 * key. It keeps the snapshot's state itself, so it may outlive `snap`. */
REFTAB_C_EXPORT reftab_code reftab_kv_iter_new(const reftab_kv_snapshot* snap,
                                               const reftab_kv_range* range, reftab_kv_iter** out,
                                               reftab_error** err);
/* Repositions before the first key >= `key` (within the range). */
REFTAB_C_EXPORT reftab_code reftab_kv_iter_seek(reftab_kv_iter* it, const void* key, size_t key_len,
                                                reftab_error** err);
/* Fills `out` with the next entry and sets *has = 1, or *has = 0 at the end. */
REFTAB_C_EXPORT reftab_code reftab_kv_iter_next(reftab_kv_iter* it, reftab_kv_entry* out, int* has,
                                                reftab_error** err);
/* Backwards, for about what forwards costs per entry (store/kv/kv_store.h says how).
 * reftab_kv_iter_seek_last positions after the last key within the range,
 * reftab_kv_iter_seek_for_prev after the last key <= `key`; reftab_kv_iter_prev then fills
 * `out` with that entry, and each later call with the entry before the one returned last
 * (by prev or next), or sets *has = 0 at the start. After either end, seek again. */
REFTAB_C_EXPORT reftab_code reftab_kv_iter_seek_last(reftab_kv_iter* it, reftab_error** err);
REFTAB_C_EXPORT reftab_code reftab_kv_iter_seek_for_prev(reftab_kv_iter* it, const void* key,
                                                         size_t key_len, reftab_error** err);
REFTAB_C_EXPORT reftab_code reftab_kv_iter_prev(reftab_kv_iter* it, reftab_kv_entry* out, int* has,
                                                reftab_error** err);
REFTAB_C_EXPORT void reftab_kv_iter_free(reftab_kv_iter* it);

/* Flushes (a writing handle) and merges every table of the store into one (deleted entries
 * are dropped). */
REFTAB_C_EXPORT reftab_code reftab_kv_compact(reftab_kv* kv, reftab_error** err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* REFTAB_KV_H_ */

/* The key/value store's C API (reftab_kv.h): puts, deletes and gets of binary keys and values
 * (empty, NULs, 1 MiB), batches, a snapshot that keeps its state while the store changes,
 * iteration with prefix, bounds and seek, compaction, reopening, and the error paths (empty
 * key, NULL arguments, oversized entry), open options, multi-get, properties, close and
 * destroy, backwards iteration. Plain C11.
 * Usage: kv_capi_test (makes and removes its own temporary folder). */
#define _POSIX_C_SOURCE 200809L
#include <reftab_kv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"

/* `call` must fail with `want`, with an error message. */
#define FAILS(want, call)                                                                         \
  do {                                                                                            \
    reftab_error* err = NULL;                                                                     \
    reftab_code code_ = (call);                                                                   \
    checks++;                                                                                     \
    if (code_ != (want) || err == NULL || reftab_error_code(err) != (want)) {                     \
      fprintf(stderr, "%s:%d: %s: got %s\n", __FILE__, __LINE__, #call, reftab_code_name(code_)); \
      failures++;                                                                                 \
    }                                                                                             \
    reftab_error_free(err);                                                                       \
  } while (0)

/* The value under `key` in `kv`, compared with `want` (NULL: must be absent). */
static void expect_value(reftab_kv* kv, const char* key, size_t key_len, const char* want,
                         size_t want_len) {
  const void* value = NULL;
  size_t len = 0;
  int found = -1;
  OK(reftab_kv_get(kv, key, key_len, &value, &len, &found, &err));
  if (want == NULL) {
    CHECK(found == 0);
    return;
  }
  CHECK(found == 1);
  CHECK(len == want_len);
  CHECK(found == 1 && len == want_len && (len == 0 || memcmp(value, want, len) == 0));
}

/* The keys an iterator yields, comma-separated, into out; returns their length. */
static size_t keys_of(reftab_kv_iter* it, char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (;;) {
    reftab_kv_entry e;
    int has = 0;
    OK(reftab_kv_iter_next(it, &e, &has, &err));
    if (!has) break;
    if (used + e.key_len + 2 < size) {
      memcpy(out + used, e.key, e.key_len);
      used += e.key_len;
      out[used++] = ',';
      out[used] = '\0';
    }
  }
  return used;
}

/* The same backwards, from where a seek_last or seek_for_prev left it. */
static size_t keys_back(reftab_kv_iter* it, char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (;;) {
    reftab_kv_entry e;
    int has = 0;
    OK(reftab_kv_iter_prev(it, &e, &has, &err));
    if (!has) break;
    if (used + e.key_len + 2 < size) {
      memcpy(out + used, e.key, e.key_len);
      used += e.key_len;
      out[used++] = ',';
      out[used] = '\0';
    }
  }
  return used;
}

/* Whether `got` (of length n) is the literal `want`, NULs included. */
#define SAME(got, n, want) ((n) == sizeof(want) - 1 && memcmp(got, want, n) == 0)

int main(void) {
  char root[] = "/tmp/reftab-kv-capi-XXXXXX";
  if (mkdtemp(root) == NULL) return 2;
  char dir[300];
  snprintf(dir, sizeof dir, "%s/store", root);

  reftab_kv* kv = NULL;
  OK(reftab_kv_open(dir, REFTAB_KV_NO_SYNC, &kv, &err));
  if (kv == NULL) return 1;

  /* Binary keys and values: NULs, empty, 1 MiB. */
  const char nul_key[] = {'k', 0, 'y'};
  const char nul_value[] = {0, 1, 0, 2};
  size_t mib = 1u << 20;
  char* big = malloc(mib);
  if (big == NULL) return 2;
  for (size_t i = 0; i < mib; ++i) big[i] = (char)(i * 131 + 7);
  OK(reftab_kv_put(kv, nul_key, sizeof nul_key, nul_value, sizeof nul_value, &err));
  OK(reftab_kv_put(kv, "empty", 5, NULL, 0, &err));
  OK(reftab_kv_put(kv, "big", 3, big, mib, &err));
  expect_value(kv, nul_key, sizeof nul_key, nul_value, sizeof nul_value);
  expect_value(kv, "k", 1, NULL, 0);
  expect_value(kv, "empty", 5, "", 0);
  expect_value(kv, "big", 3, big, mib);
  OK(reftab_kv_delete(kv, "empty", 5, &err));
  expect_value(kv, "empty", 5, NULL, 0);

  /* Errors. */
  FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_put(kv, "", 0, "v", 1, &err));
  FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_put(kv, NULL, 3, "v", 1, &err));
  FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_put(NULL, "k", 1, "v", 1, &err));
  FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_get(kv, "k", 1, NULL, NULL, NULL, &err));
  {
    size_t huge = 17u << 20;
    char* h = calloc(huge, 1);
    if (h == NULL) return 2;
    FAILS(REFTAB_TOO_LARGE, reftab_kv_put(kv, "huge", 4, h, huge, &err));
    free(h);
  }
  CHECK(reftab_kv_put(kv, "", 0, "v", 1, NULL) == REFTAB_INVALID_ARGUMENT); /* err NULL */

  /* A batch; a snapshot taken before it does not see it. */
  reftab_kv_snapshot* before = NULL;
  OK(reftab_kv_snapshot_new(kv, &before, &err));
  reftab_kv_batch* batch = NULL;
  OK(reftab_kv_batch_new(&batch, &err));
  const char* keys[] = {"a", "ab", "abc", "ac", "b"};
  for (size_t i = 0; i < 5; ++i)
    OK(reftab_kv_batch_put(batch, keys[i], strlen(keys[i]), "v", 1, &err));
  OK(reftab_kv_batch_put(batch, "abc", 3, "last wins", 9, &err));
  OK(reftab_kv_batch_delete(batch, "big", 3, &err));
  OK(reftab_kv_write(kv, batch, &err));
  OK(reftab_kv_write_flags(kv, batch, REFTAB_KV_WRITE_SYNC, &err)); /* the same again, synced */
  FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_write_flags(kv, NULL, 0, &err));
  reftab_kv_batch_free(batch);
  expect_value(kv, "abc", 3, "last wins", 9);
  expect_value(kv, "big", 3, NULL, 0);
  {
    const void* v = NULL;
    size_t len = 0;
    int found = 0;
    OK(reftab_kv_snapshot_get(before, "big", 3, &v, &len, &found, &err));
    CHECK(found == 1 && len == mib && memcmp(v, big, mib) == 0);
    OK(reftab_kv_snapshot_get(before, "abc", 3, &v, &len, &found, &err));
    CHECK(found == 0);
  }

  /* Iteration: everything, a prefix, bounds, a seek. Compacting first changes nothing. */
  OK(reftab_kv_compact(kv, &err));
  reftab_kv_snapshot* now = NULL;
  OK(reftab_kv_snapshot_new(kv, &now, &err));
  CHECK(reftab_kv_snapshot_sequence(now) > reftab_kv_snapshot_sequence(before));
  char got[256];
  reftab_kv_iter* it = NULL;
  OK(reftab_kv_iter_new(now, NULL, &it, &err));
  size_t n = keys_of(it, got, sizeof got);
  CHECK(SAME(got, n, "a,ab,abc,ac,b,k\0y,"));
  OK(reftab_kv_iter_seek(it, "abd", 3, &err));
  n = keys_of(it, got, sizeof got);
  CHECK(SAME(got, n, "ac,b,k\0y,"));
  OK(reftab_kv_iter_seek_last(it, &err));
  n = keys_back(it, got, sizeof got);
  CHECK(SAME(got, n, "k\0y,b,ac,abc,ab,a,"));
  OK(reftab_kv_iter_seek_for_prev(it, "abd", 3, &err));
  n = keys_back(it, got, sizeof got);
  CHECK(SAME(got, n, "abc,ab,a,"));
  { /* next after prev: the entry after the one prev returned */
    reftab_kv_entry e;
    int has = 0;
    OK(reftab_kv_iter_seek_for_prev(it, "ac", 2, &err));
    OK(reftab_kv_iter_prev(it, &e, &has, &err));
    CHECK(has == 1 && e.key_len == 2 && memcmp(e.key, "ac", 2) == 0);
    OK(reftab_kv_iter_prev(it, &e, &has, &err));
    CHECK(has == 1 && e.key_len == 3 && memcmp(e.key, "abc", 3) == 0);
    OK(reftab_kv_iter_next(it, &e, &has, &err));
    CHECK(has == 1 && e.key_len == 2 && memcmp(e.key, "ac", 2) == 0);
  }
  reftab_kv_iter_free(it);
  reftab_kv_range range = {"ab", 2, NULL, 0, NULL, 0};
  OK(reftab_kv_iter_new(now, &range, &it, &err));
  reftab_kv_snapshot_free(now); /* the iterator keeps its own state */
  n = keys_of(it, got, sizeof got);
  CHECK(SAME(got, n, "ab,abc,"));
  OK(reftab_kv_iter_seek_last(it, &err));
  n = keys_back(it, got, sizeof got);
  CHECK(SAME(got, n, "abc,ab,"));
  reftab_kv_iter_free(it);
  reftab_kv_range bounds = {NULL, 0, "ab", 2, "b", 1};
  OK(reftab_kv_iter_new(before, &bounds, &it, &err));
  n = keys_of(it, got, sizeof got);
  CHECK(n == 0); /* `before` held only big (and the NUL key, below "ab") */
  reftab_kv_iter_free(it);
  reftab_kv_snapshot_free(before);
  { /* An entry's VIEWs stay valid until the iterator's next call, whatever the store does. */
    reftab_kv_snapshot* s = NULL;
    OK(reftab_kv_snapshot_new(kv, &s, &err));
    reftab_kv_iter* vi = NULL;
    OK(reftab_kv_iter_new(s, NULL, &vi, &err));
    reftab_kv_snapshot_free(s);
    reftab_kv_entry e;
    int has = 0;
    OK(reftab_kv_iter_seek(vi, "abc", 3, &err));
    OK(reftab_kv_iter_next(vi, &e, &has, &err));
    OK(reftab_kv_put(kv, "abc", 3, "rewritten", 9, &err));
    OK(reftab_kv_compact(kv, &err)); /* replaces the table the VIEW points into */
    CHECK(has == 1 && e.key_len == 3 && memcmp(e.key, "abc", 3) == 0);
    CHECK(e.value_len == 9 && memcmp(e.value, "last wins", 9) == 0);
    reftab_kv_iter_free(vi);
    OK(reftab_kv_put(kv, "abc", 3, "last wins", 9, &err));
  }

  /* Reopened (the log replayed), the data is there; a second writer is refused; a
   * read-only handle without refresh-on-read sees a flushed write after reftab_kv_refresh. */
  OK(reftab_kv_put(kv, "unflushed", 9, "u", 1, &err));
  reftab_kv_free(kv);
  kv = NULL;
  OK(reftab_kv_open(dir, REFTAB_KV_SYNC_WRITES, &kv, &err));
  expect_value(kv, "unflushed", 9, "u", 1);
  {
    reftab_kv* second = NULL;
    FAILS(REFTAB_LOCK_HELD, reftab_kv_open(dir, 0, &second, &err));
    CHECK(second == NULL);
    reftab_kv* lazy = NULL;
    OK(reftab_kv_open(dir, REFTAB_KV_READ_ONLY | REFTAB_KV_NO_REFRESH_ON_READ, &lazy, &err));
    OK(reftab_kv_put(kv, "late", 4, "x", 1, &err));
    FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_put(lazy, "k", 1, "v", 1, &err));
    OK(reftab_kv_flush(kv, &err));
    expect_value(lazy, "late", 4, NULL, 0);
    OK(reftab_kv_refresh(lazy, &err));
    expect_value(lazy, "late", 4, "x", 1);
    reftab_kv_free(lazy);
  }
  expect_value(kv, "abc", 3, "last wins", 9);
  expect_value(kv, nul_key, sizeof nul_key, nul_value, sizeof nul_value);
  reftab_kv_free(kv);

  /* Options from C: a small memtable and block size, no table fsyncs, no auto-compaction;
   * multi-get, the properties, close and destroy. */
  {
    char opts_dir[300];
    snprintf(opts_dir, sizeof opts_dir, "%s/opts", root);
    reftab_kv_options o;
    memset(&o, 0, sizeof o);
    o.flags = REFTAB_KV_NO_AUTO_COMPACT;
    o.memtable_size = 4096;
    o.block_size = 1024;
    o.durability = REFTAB_KV_DURABILITY_NONE;
    reftab_kv_options bad = o;
    bad.block_size = 100;
    FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_open_opts(opts_dir, &bad, &kv, &err));
    bad = o;
    bad.durability = 9;
    FAILS(REFTAB_INVALID_ARGUMENT, reftab_kv_open_opts(opts_dir, &bad, &kv, &err));
    OK(reftab_kv_open_opts(opts_dir, &o, &kv, &err));
    char key[16], value[100];
    memset(value, 'v', sizeof value);
    for (int i = 0; i < 200; i++) {
      snprintf(key, sizeof key, "key%03d", i);
      OK(reftab_kv_put(kv, key, strlen(key), value, sizeof value, &err));
    }
    OK(reftab_kv_flush(kv, &err));
    OK(reftab_kv_delete(kv, "key000", 6, &err));
    reftab_kv_properties p;
    OK(reftab_kv_get_properties(kv, &p, &err));
    CHECK(p.tables >= 5); /* 200 entries of ~170 accounted bytes, a flush per 4 KiB */
    CHECK(p.flushes == p.tables);
    CHECK(p.table_sizes != NULL && p.table_sizes[0] > 0);
    CHECK(p.memtable_bytes == 6 + 64);
    CHECK(p.user_bytes_written == 200 * (6 + 100) + 6);
    CHECK(p.write_amplification > 1.0);
    CHECK(p.log_writes == 201 && p.log_syncs == 0);
    const void* keys[3] = {"key001", "key000", "nope"};
    size_t key_lens[3] = {6, 6, 4};
    const void* values[3];
    size_t value_lens[3];
    int found[3];
    OK(reftab_kv_multi_get(kv, 3, keys, key_lens, values, value_lens, found, &err));
    CHECK(found[0] == 1 && value_lens[0] == 100 && memcmp(values[0], value, 100) == 0);
    CHECK(found[1] == 0 && found[2] == 0);
    OK(reftab_kv_multi_get(kv, 0, NULL, NULL, NULL, NULL, NULL, &err));
    FAILS(REFTAB_LOCK_HELD, reftab_kv_destroy(opts_dir, &err));
    OK(reftab_kv_close(kv, &err));
    kv = NULL;
    OK(reftab_kv_destroy(opts_dir, &err));
    CHECK(access(opts_dir, F_OK) != 0);
    FAILS(REFTAB_NOT_FOUND, reftab_kv_destroy(opts_dir, &err));
    /* A memtable full at 50 writes, whatever their bytes: the 51st put goes to the next
     * one (the first memtable is never held back by a flush running), then a flush. */
    memset(&o, 0, sizeof o);
    o.flags = REFTAB_KV_NO_AUTO_COMPACT;
    o.memtable_entries = 50;
    o.durability = REFTAB_KV_DURABILITY_NONE;
    OK(reftab_kv_open_opts(opts_dir, &o, &kv, &err));
    for (int i = 0; i < 51; i++) {
      snprintf(key, sizeof key, "key%03d", i);
      OK(reftab_kv_put(kv, key, strlen(key), value, sizeof value, &err));
    }
    OK(reftab_kv_flush(kv, &err));
    OK(reftab_kv_get_properties(kv, &p, &err));
    CHECK(p.flushes == 2 && p.tables == 2);
    OK(reftab_kv_close(kv, &err));
    kv = NULL;
    OK(reftab_kv_destroy(opts_dir, &err));
  }
  reftab_kv_free(NULL);
  reftab_kv_batch_free(NULL);
  reftab_kv_snapshot_free(NULL);
  reftab_kv_iter_free(NULL);
  free(big);

  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  printf("%d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}

/* Exercises every function of reftab's C API (reftab.h), success and error paths: stacks in
 * both hash formats, one table, a git repository with a linked worktree, lookups, symrefs,
 * iteration with seek and prefix, reflogs, transactions (expected values, conflicts, a held
 * lock, git's name rules), compaction, verification, corrupt and missing files.
 * Plain C11; built against the installed library (tests/run_all.sh, pkg-config) and in-tree
 * (tests/store/capi/meson.build). Usage: capi_test (makes and removes its own temporary folder). */
#define _POSIX_C_SOURCE 200809L
#include <reftab.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"

static char root[256];

static void path_of(char* out, size_t size, const char* rel) {
  int n = snprintf(out, size, "%s/%s", root, rel);
  if (n < 0 || (size_t)n >= size) {
    fprintf(stderr, "path too long: %s/%s\n", root, rel);
    exit(2);
  }
}

static void make_dir(const char* rel) {
  char p[512];
  path_of(p, sizeof p, rel);
  CHECK(mkdir(p, 0777) == 0);
}

static void write_file(const char* rel, const char* data, size_t len) {
  char p[512];
  path_of(p, sizeof p, rel);
  FILE* f = fopen(p, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(data, 1, len, f) == len);
  fclose(f);
}

/* Reads a whole file into a malloc'ed buffer (caller frees). */
static char* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

static int contains(const char* haystack, const char* needle) {
  return strstr(haystack, needle) != NULL;
}

static uint8_t id_a[32], id_b[32], id_c[32];

static reftab_value id_value(const uint8_t* id) {
  reftab_value v = {REFTAB_VALUE_ID, id, NULL, NULL};
  return v;
}

static reftab_value symref_value(const char* target) {
  reftab_value v = {REFTAB_VALUE_SYMREF, NULL, NULL, target};
  return v;
}

static const reftab_value kAbsent = {REFTAB_VALUE_NONE, NULL, NULL, NULL};

static reftab_log_info who(const char* message) {
  reftab_log_info log = {"A U Thor", "author@example.com", 1700000000, 200, message};
  return log;
}

static void test_errors(void) {
  CHECK(strcmp(reftab_code_name(REFTAB_OK), "ok") == 0);
  CHECK(strcmp(reftab_code_name(REFTAB_CONFLICT), "conflict") == 0);
  CHECK(strcmp(reftab_code_name(REFTAB_UNSUPPORTED), "unsupported") == 0);
  CHECK(strcmp(reftab_code_name(REFTAB_INTERNAL), "internal") == 0);
  CHECK(strcmp(reftab_code_name((reftab_code)99), "unknown") == 0);
  CHECK(strlen(reftab_version()) > 0);
  CHECK(reftab_error_code(NULL) == REFTAB_OK);
  CHECK(strcmp(reftab_error_message(NULL), "") == 0);
  reftab_error_free(NULL);

  uint8_t id[32];
  reftab_error* err = NULL;
  CHECK(reftab_parse_hex_id("xyz", 20, id, &err) == REFTAB_INVALID_ARGUMENT);
  CHECK(err != NULL && reftab_error_code(err) == REFTAB_INVALID_ARGUMENT);
  CHECK(err != NULL && contains(reftab_error_message(err), "xyz"));
  /* A second failure replaces the first error (no leak under ASan). */
  CHECK(reftab_parse_hex_id("00", 7, id, &err) == REFTAB_INVALID_ARGUMENT);
  CHECK(contains(reftab_error_message(err), "20 or 32"));
  reftab_error_free(err);
  /* err = NULL: the code only. */
  CHECK(reftab_parse_hex_id(NULL, 20, id, NULL) == REFTAB_INVALID_ARGUMENT);

  const char* hex = "88751306180ff00d452d6f429b84d058fdf2d98b";
  OK(reftab_parse_hex_id(hex, 20, id, &err));
  char back[65];
  reftab_format_hex_id(id, 20, back);
  CHECK(strcmp(back, hex) == 0);
}

static void test_missing_files(void) {
  reftab_store* store = NULL;
  reftab_error* err = NULL;
  char p[512];
  path_of(p, sizeof p, "no-such-dir");
  CHECK(reftab_store_open_stack(p, REFTAB_HASH_DEFAULT, 0, &store, &err) != REFTAB_OK);
  CHECK(store == NULL);
  CHECK(err != NULL && contains(reftab_error_message(err), "no-such-dir"));
  path_of(p, sizeof p, "no-such-table.ref");
  CHECK(reftab_store_open_table(p, &store, &err) == REFTAB_NOT_FOUND);
  CHECK(contains(reftab_error_message(err), "no-such-table.ref"));
  path_of(p, sizeof p, "no-such-repo");
  CHECK(reftab_store_open_repo(p, 0, &store, &err) != REFTAB_OK);
  CHECK(reftab_store_open_stack(NULL, REFTAB_HASH_DEFAULT, 0, &store, &err) ==
        REFTAB_INVALID_ARGUMENT);
  CHECK(reftab_store_open_stack(p, (reftab_hash)7, 0, &store, &err) == REFTAB_INVALID_ARGUMENT);
  reftab_error_free(err);
}

/* Counts the refs under `prefix` and checks they come in order; the last name into `last`. */
static int count_refs(reftab_store* store, const char* prefix, const char* seek, char* last) {
  reftab_ref_iter* it = NULL;
  int n = 0, has = 0;
  reftab_ref ref;
  char prev[256] = "";
  OK(reftab_ref_iter_new(store, prefix, &it, NULL));
  if (seek) OK(reftab_ref_iter_seek(it, seek, NULL));
  while (reftab_ref_iter_next(it, &ref, &has, NULL) == REFTAB_OK && has) {
    CHECK(ref.name[ref.name_len] == '\0');
    CHECK(strncmp(ref.name, prefix ? prefix : "", strlen(prefix ? prefix : "")) == 0);
    CHECK(strcmp(prev, ref.name) < 0);
    snprintf(prev, sizeof prev, "%s", ref.name);
    n++;
  }
  if (last) strcpy(last, prev);
  reftab_ref_iter_free(it);
  return n;
}

/* The name of the only table in folder `rel` (from tables.list) into `out`. */
static void only_table(const char* rel, char* out, size_t size) {
  char p[512], q[512];
  snprintf(q, sizeof q, "%s/tables.list", rel);
  path_of(p, sizeof p, q);
  size_t len = 0;
  char* list = read_file(p, &len);
  CHECK(list != NULL);
  if (!list) return;
  CHECK(len > 0 && list[len - 1] == '\n' && memchr(list, '\n', len) == list + len - 1);
  list[len - 1] = '\0';
  snprintf(q, sizeof q, "%s/%s", rel, list);
  path_of(out, size, q);
  free(list);
}

static void test_plain_stack(void) {
  make_dir("stack");
  char dir[512];
  path_of(dir, sizeof dir, "stack");
  reftab_store* store = NULL;
  reftab_error* err = NULL;
  OK(reftab_store_open_stack(dir, REFTAB_HASH_DEFAULT, REFTAB_OPEN_DURABLE, &store, &err));
  CHECK(reftab_store_hash(store) == REFTAB_HASH_SHA1);
  CHECK(reftab_store_hash_size(store) == 20);

  /* One transaction: two branches with reflog entries and a symref. */
  reftab_tx* tx = NULL;
  reftab_value a = id_value(id_a), b = id_value(id_b), head = symref_value("refs/heads/main");
  reftab_log_info log = who("first\n");
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/main", &a, &kAbsent, &log, 0, &err));
  OK(reftab_tx_update(tx, "refs/heads/topic", &b, NULL, &log, 0, &err));
  OK(reftab_tx_update(tx, "refs/tags/v1", &a, NULL, NULL, 0, &err));
  OK(reftab_tx_update(tx, "HEAD", &head, NULL, NULL, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  CHECK(reftab_tx_commit(tx, &err) == REFTAB_INVALID_ARGUMENT); /* only once */
  CHECK(reftab_tx_update(tx, "refs/x", &a, NULL, NULL, 0, &err) == REFTAB_INVALID_ARGUMENT);
  reftab_tx_free(tx);

  /* Lookup and symref resolution. */
  reftab_ref ref;
  int found = 0;
  OK(reftab_store_read_ref(store, "refs/heads/main", &ref, &found, &err));
  CHECK(found && ref.type == REFTAB_VALUE_ID && memcmp(ref.id, id_a, 20) == 0);
  CHECK(ref.name_len == strlen("refs/heads/main") && ref.peeled == NULL && ref.target == NULL);
  OK(reftab_store_read_ref(store, "HEAD", &ref, &found, &err));
  CHECK(found && ref.type == REFTAB_VALUE_SYMREF && strcmp(ref.target, "refs/heads/main") == 0);
  CHECK(ref.target_len == strlen("refs/heads/main"));
  OK(reftab_store_resolve(store, "HEAD", &ref, &found, &err));
  CHECK(found && strcmp(ref.name, "refs/heads/main") == 0 && memcmp(ref.id, id_a, 20) == 0);
  OK(reftab_store_read_ref(store, "refs/heads/nope", &ref, &found, &err));
  CHECK(!found);
  OK(reftab_store_resolve(store, "refs/heads/nope", &ref, &found, &err));
  CHECK(!found);
  CHECK(reftab_store_read_ref(store, NULL, &ref, &found, &err) == REFTAB_INVALID_ARGUMENT);
  uint8_t rev[32];
  CHECK(reftab_store_resolve_revision(store, "HEAD", rev, &found, &err) == REFTAB_UNSUPPORTED);

  /* Iteration with prefix and seek. */
  char last[256];
  CHECK(count_refs(store, NULL, NULL, NULL) == 4);
  CHECK(count_refs(store, "refs/heads/", NULL, last) == 2);
  CHECK(strcmp(last, "refs/heads/topic") == 0);
  CHECK(count_refs(store, "refs/heads/", "refs/heads/n", NULL) == 1);
  CHECK(count_refs(store, "refs/heads/", "refs/z", NULL) == 0);
  CHECK(count_refs(store, "refs/", "A", NULL) == 3); /* seek before the prefix: the prefix */
  CHECK(count_refs(store, "refs/nothing/", NULL, NULL) == 0);

  /* Expected-old-value mismatch: REFTAB_CONFLICT naming the ref, nothing written. */
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/main", &b, &b, NULL, 0, &err));
  CHECK(reftab_tx_commit(tx, &err) == REFTAB_CONFLICT);
  CHECK(contains(reftab_error_message(err), "refs/heads/main"));
  reftab_tx_free(tx);
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_verify(tx, "refs/heads/topic", &kAbsent, 0, &err));
  CHECK(reftab_tx_commit(tx, &err) == REFTAB_CONFLICT);
  reftab_tx_free(tx);
  /* Bad values are refused when queued. */
  OK(reftab_tx_begin(store, &tx, &err));
  reftab_value no_id = {REFTAB_VALUE_ID, NULL, NULL, NULL};
  CHECK(reftab_tx_update(tx, "refs/heads/x", &no_id, NULL, NULL, 0, &err) ==
        REFTAB_INVALID_ARGUMENT);
  CHECK(contains(reftab_error_message(err), "new_value"));
  reftab_value bad_type = {(reftab_value_type)9, NULL, NULL, NULL};
  CHECK(reftab_tx_verify(tx, "refs/heads/x", &bad_type, 0, &err) == REFTAB_INVALID_ARGUMENT);
  reftab_tx_free(tx); /* abandoned without commit */

  /* A held lock: another writer's tables.list.lock. */
  write_file("stack/tables.list.lock", "", 0);
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/locked", &a, NULL, NULL, 0, &err));
  CHECK(reftab_tx_commit(tx, &err) == REFTAB_LOCK_HELD);
  CHECK(contains(reftab_error_message(err), "tables.list.lock"));
  reftab_tx_free(tx);
  char lock[512];
  path_of(lock, sizeof lock, "stack/tables.list.lock");
  CHECK(unlink(lock) == 0);

  /* Second transaction: move main (checked), delete topic, peeled tag; verify passes. */
  reftab_log_info log2 = who("second\n");
  reftab_value peeled = {REFTAB_VALUE_PEELED, id_c, id_a, NULL};
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/main", &b, &a, &log2, 0, &err));
  OK(reftab_tx_delete(tx, "refs/heads/topic", &b, NULL, 0, &err));
  OK(reftab_tx_update(tx, "refs/tags/v2", &peeled, &kAbsent, NULL, 0, &err));
  OK(reftab_tx_verify(tx, "HEAD", &head, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  OK(reftab_store_read_ref(store, "refs/tags/v2", &ref, &found, &err));
  CHECK(found && ref.type == REFTAB_VALUE_PEELED && memcmp(ref.peeled, id_a, 20) == 0);
  CHECK(count_refs(store, "refs/heads/", NULL, NULL) == 1);

  /* Reflogs: main has two entries, newest first; topic's went with it. */
  reftab_log_iter* logs = NULL;
  reftab_log entry;
  int has = 0;
  OK(reftab_log_iter_new(store, "refs/heads/", &logs, &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has && strcmp(entry.name, "refs/heads/main") == 0);
  CHECK(has && strcmp(entry.message, "second\n") == 0 && memcmp(entry.new_id, id_b, 20) == 0);
  CHECK(has && memcmp(entry.old_id, id_a, 20) == 0 && entry.tz_offset == 200);
  CHECK(has && strcmp(entry.committer_email, "author@example.com") == 0);
  CHECK(has && entry.committer_name_len == 8 && entry.time == 1700000000);
  uint64_t newer = entry.update_index;
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has && strcmp(entry.message, "first\n") == 0 && entry.update_index < newer);
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(!has);
  OK(reftab_log_iter_seek(logs, "refs/heads/main", &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has && strcmp(entry.message, "second\n") == 0);
  OK(reftab_log_iter_seek(logs, "refs/heads/n", &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(!has);
  reftab_log_iter_free(logs);

  /* Another handle sees other writers' changes after a refresh; read only means read only. */
  reftab_store* other = NULL;
  OK(reftab_store_open_stack(dir, REFTAB_HASH_DEFAULT, REFTAB_OPEN_READ_ONLY, &other, &err));
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/later", &a, NULL, NULL, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  OK(reftab_store_read_ref(other, "refs/heads/later", &ref, &found, &err));
  CHECK(!found);
  OK(reftab_store_refresh(other, &err));
  OK(reftab_store_read_ref(other, "refs/heads/later", &ref, &found, &err));
  CHECK(found);
  CHECK(reftab_tx_begin(other, &tx, &err) == REFTAB_UNSUPPORTED);
  CHECK(reftab_store_compact(other, NULL, &err) == REFTAB_UNSUPPORTED);
  reftab_store_free(other);

  /* Verification and compaction: three tables become one; reflog expiry by count. */
  reftab_verify_report report;
  OK(reftab_store_verify(store, &report, &err));
  CHECK(report.tables >= 1 && report.refs >= 5 && report.logs >= 2 && report.warnings == 0);
  reftab_compact_options copts = {0, 1};
  OK(reftab_store_compact(store, &copts, &err));
  OK(reftab_store_verify(store, &report, &err));
  CHECK(report.tables == 1 && report.logs == 1);
  OK(reftab_store_verify(store, NULL, &err));
  OK(reftab_store_compact(store, NULL, &err));
  reftab_store_free(store);
  reftab_error_free(err);
}

/* The stack's one table opened alone, then a corrupt copy of it. */
static void test_table(void) {
  char path[512];
  only_table("stack", path, sizeof path);
  reftab_store* table = NULL;
  reftab_error* err = NULL;
  OK(reftab_store_open_table(path, &table, &err));
  CHECK(reftab_store_hash_size(table) == 20);
  CHECK(count_refs(table, "refs/", NULL, NULL) == 4);
  reftab_ref ref;
  int found = 0;
  OK(reftab_store_resolve(table, "HEAD", &ref, &found, &err));
  CHECK(found && memcmp(ref.id, id_b, 20) == 0);
  OK(reftab_store_read_ref(table, "refs/heads/topic", &ref, &found, &err));
  CHECK(!found);
  reftab_log_iter* logs = NULL;
  reftab_log entry;
  int has = 0;
  OK(reftab_log_iter_new(table, NULL, &logs, &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has);
  reftab_log_iter_free(logs);
  reftab_verify_report report;
  OK(reftab_store_verify(table, &report, &err));
  CHECK(report.tables == 1);
  OK(reftab_store_refresh(table, &err));
  reftab_tx* tx = NULL;
  CHECK(reftab_tx_begin(table, &tx, &err) == REFTAB_UNSUPPORTED);
  CHECK(reftab_store_compact(table, NULL, &err) == REFTAB_UNSUPPORTED);
  reftab_store_free(table);

  size_t len = 0;
  char* bytes = read_file(path, &len);
  CHECK(bytes != NULL && len > 100);
  if (!bytes) return;
  /* A broken footer: the open fails naming the file and the footer's offset. */
  bytes[len - 10] ^= 0x5a;
  write_file("bad-footer.ref", bytes, len);
  bytes[len - 10] ^= 0x5a;
  char bad[512];
  path_of(bad, sizeof bad, "bad-footer.ref");
  CHECK(reftab_store_open_table(bad, &table, &err) == REFTAB_CORRUPTION);
  CHECK(contains(reftab_error_message(err), "bad-footer.ref"));
  CHECK(contains(reftab_error_message(err), "offset"));
  /* A broken first block (its length, after the 24-byte header and the type byte): reading
   * it fails naming the block's offset. */
  bytes[26] = (char)0xff;
  write_file("bad-block.ref", bytes, len);
  path_of(bad, sizeof bad, "bad-block.ref");
  reftab_code code = reftab_store_open_table(bad, &table, &err);
  if (code == REFTAB_OK) {
    code = reftab_store_verify(table, NULL, &err);
    reftab_ref_iter* it = NULL;
    reftab_code next = reftab_ref_iter_new(table, NULL, &it, NULL);
    if (next == REFTAB_OK) next = reftab_ref_iter_next(it, &ref, &has, NULL);
    CHECK(next == REFTAB_CORRUPTION);
    reftab_ref_iter_free(it);
    reftab_store_free(table);
  }
  CHECK(code == REFTAB_CORRUPTION);
  CHECK(contains(reftab_error_message(err), "bad-block.ref"));
  CHECK(contains(reftab_error_message(err), "block at offset 0"));
  free(bytes);
  reftab_error_free(err);
}

static void test_sha256(void) {
  make_dir("stack256");
  char dir[512];
  path_of(dir, sizeof dir, "stack256");
  reftab_store* store = NULL;
  reftab_error* err = NULL;
  OK(reftab_store_open_stack(dir, REFTAB_HASH_SHA256, 0, &store, &err));
  CHECK(reftab_store_hash(store) == REFTAB_HASH_SHA256);
  CHECK(reftab_store_hash_size(store) == 32);
  reftab_tx* tx = NULL;
  reftab_value a = id_value(id_a);
  reftab_log_info log = who("sha256\n");
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/main", &a, &kAbsent, &log, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  reftab_store_free(store);
  /* Reopened without saying: the hash comes from the table. */
  OK(reftab_store_open_stack(dir, REFTAB_HASH_DEFAULT, 0, &store, &err));
  CHECK(reftab_store_hash_size(store) == 32);
  reftab_ref ref;
  int found = 0;
  OK(reftab_store_read_ref(store, "refs/heads/main", &ref, &found, &err));
  CHECK(found && memcmp(ref.id, id_a, 32) == 0);
  reftab_log_iter* logs = NULL;
  reftab_log entry;
  int has = 0;
  OK(reftab_log_iter_new(store, NULL, &logs, &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has && memcmp(entry.new_id, id_a, 32) == 0);
  reftab_log_iter_free(logs);
  reftab_store_free(store);
  /* Asking for the other format than the files have fails. */
  CHECK(reftab_store_open_stack(dir, REFTAB_HASH_SHA1, 0, &store, &err) != REFTAB_OK);
  reftab_error_free(err);
}

/* A git repository (its git directory only: config, HEAD stub, reftable/) with a linked
 * worktree "wt", as git lays them out; no objects/, so ids are taken on trust. */
static void make_repo(void) {
  static const char kConfig[] =
      "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tlogallrefupdates = true\n"
      "[extensions]\n\trefstorage = reftable\n";
  static const char kHead[] = "ref: refs/heads/.invalid\n";
  make_dir("repo");
  make_dir("repo/.git");
  write_file("repo/.git/config", kConfig, strlen(kConfig));
  write_file("repo/.git/HEAD", kHead, strlen(kHead));
  make_dir("repo/.git/refs");
  make_dir("repo/.git/refs/heads");
  make_dir("repo/.git/reftable");
  make_dir("repo/.git/worktrees");
  make_dir("repo/.git/worktrees/wt");
  write_file("repo/.git/worktrees/wt/HEAD", kHead, strlen(kHead));
  write_file("repo/.git/worktrees/wt/commondir", "../..\n", 6);
  make_dir("repo/.git/worktrees/wt/refs");
  make_dir("repo/.git/worktrees/wt/reftable");
}

static void test_git_repo(void) {
  make_repo();
  char git_dir[512], wt_dir[512];
  path_of(git_dir, sizeof git_dir, "repo/.git");
  path_of(wt_dir, sizeof wt_dir, "repo/.git/worktrees/wt");
  reftab_store* repo = NULL;
  reftab_error* err = NULL;
  OK(reftab_store_open_repo(git_dir, 0, &repo, &err));
  CHECK(reftab_store_hash_size(repo) == 20);

  /* git's rules: HEAD made a symref (no-deref), then a commit through HEAD moves main. */
  reftab_tx* tx = NULL;
  reftab_value a = id_value(id_a), b = id_value(id_b), head = symref_value("refs/heads/main");
  reftab_log_info log = who("branch: Created from nothing");
  OK(reftab_tx_begin(repo, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/main", &a, &kAbsent, &log, 0, &err));
  OK(reftab_tx_update(tx, "HEAD", &head, NULL, NULL, REFTAB_TX_NO_DEREF, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  reftab_log_info commit = who("commit: second");
  OK(reftab_tx_begin(repo, &tx, &err));
  OK(reftab_tx_update(tx, "HEAD", &b, &a, &commit, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  reftab_ref ref;
  int found = 0, has = 0;
  OK(reftab_store_read_ref(repo, "refs/heads/main", &ref, &found, &err));
  CHECK(found && memcmp(ref.id, id_b, 20) == 0);
  OK(reftab_store_resolve(repo, "HEAD", &ref, &found, &err));
  CHECK(found && strcmp(ref.name, "refs/heads/main") == 0);
  /* HEAD got reflog entries too (it points at the branch that changed). */
  reftab_log_iter* logs = NULL;
  reftab_log entry;
  OK(reftab_log_iter_new(repo, "HEAD", &logs, &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has && strcmp(entry.name, "HEAD") == 0 && contains(entry.message, "commit: second"));
  reftab_log_iter_free(logs);

  /* Revisions: names, "@", reflog selectors; a selector past the log's start or a name that
   * names nothing is not found; a suffix needs objects this repository lacks. */
  uint8_t rev[32];
  OK(reftab_store_resolve_revision(repo, "main", rev, &found, &err));
  CHECK(found && memcmp(rev, id_b, 20) == 0);
  OK(reftab_store_resolve_revision(repo, "@", rev, &found, &err));
  CHECK(found && memcmp(rev, id_b, 20) == 0);
  OK(reftab_store_resolve_revision(repo, "main@{1}", rev, &found, &err));
  CHECK(found && memcmp(rev, id_a, 20) == 0);
  OK(reftab_store_resolve_revision(repo, "@{1}", rev, &found, &err));
  CHECK(found && memcmp(rev, id_a, 20) == 0);
  OK(reftab_store_resolve_revision(repo, "main@{5}", rev, &found, &err));
  CHECK(!found);
  OK(reftab_store_resolve_revision(repo, "nope", rev, &found, &err));
  CHECK(!found);
  CHECK(reftab_store_resolve_revision(repo, "main~1", rev, &found, &err) ==
        REFTAB_INVALID_ARGUMENT);
  CHECK(!found);
  CHECK(reftab_store_resolve_revision(repo, NULL, rev, &found, &err) == REFTAB_INVALID_ARGUMENT);

  /* Refused by git's rules: a bad name, a ref below an existing ref, a wrong old value. */
  OK(reftab_tx_begin(repo, &tx, &err));
  CHECK(reftab_tx_update(tx, "refs/heads/a..b", &a, NULL, NULL, 0, &err) != REFTAB_OK);
  CHECK(contains(reftab_error_message(err), "refs/heads/a..b"));
  OK(reftab_tx_update(tx, "refs/heads/main/sub", &a, NULL, NULL, 0, &err));
  CHECK(reftab_tx_commit(tx, &err) != REFTAB_OK);
  CHECK(contains(reftab_error_message(err), "refs/heads/main"));
  reftab_tx_free(tx);
  OK(reftab_tx_begin(repo, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/main", &a, &a, NULL, 0, &err));
  CHECK(reftab_tx_commit(tx, &err) == REFTAB_CONFLICT);
  reftab_tx_free(tx);

  /* The linked worktree: its own HEAD lives in its own stack, branches are shared. */
  reftab_store* wt = NULL;
  OK(reftab_store_open_repo(wt_dir, 0, &wt, &err));
  reftab_value topic = symref_value("refs/heads/topic");
  OK(reftab_tx_begin(wt, &tx, &err));
  OK(reftab_tx_update(tx, "refs/heads/topic", &a, &kAbsent, NULL, 0, &err));
  OK(reftab_tx_update(tx, "HEAD", &topic, NULL, NULL, REFTAB_TX_NO_DEREF, &err));
  OK(reftab_tx_update(tx, "refs/bisect/bad", &a, NULL, NULL, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  OK(reftab_store_resolve(wt, "HEAD", &ref, &found, &err));
  CHECK(found && strcmp(ref.name, "refs/heads/topic") == 0);
  OK(reftab_store_refresh(repo, &err));
  OK(reftab_store_resolve(repo, "HEAD", &ref, &found, &err));
  CHECK(found && strcmp(ref.name, "refs/heads/main") == 0);
  OK(reftab_store_read_ref(repo, "refs/heads/topic", &ref, &found, &err));
  CHECK(found);
  OK(reftab_store_read_ref(repo, "refs/bisect/bad", &ref, &found, &err));
  CHECK(!found);
  /* Iteration in the worktree merges both stacks: HEAD, refs/bisect/bad, two branches. */
  char last[256];
  CHECK(count_refs(wt, NULL, NULL, last) == 4);
  CHECK(strcmp(last, "refs/heads/topic") == 0);
  CHECK(count_refs(wt, "refs/", "refs/c", NULL) == 2);
  CHECK(count_refs(repo, NULL, NULL, NULL) == 3);
  reftab_verify_report report;
  OK(reftab_store_verify(wt, &report, &err));
  CHECK(report.tables >= 2);
  OK(reftab_store_compact(wt, NULL, &err));
  OK(reftab_store_compact(repo, NULL, &err));
  CHECK(count_refs(wt, NULL, NULL, NULL) == 4);
  reftab_store_free(wt);
  reftab_store_free(repo);

  /* Read only: a reader; a folder that is not a reftable repository is refused. */
  OK(reftab_store_open_repo(git_dir, REFTAB_OPEN_READ_ONLY, &repo, &err));
  CHECK(reftab_tx_begin(repo, &tx, &err) == REFTAB_UNSUPPORTED);
  reftab_store_free(repo);
  path_of(git_dir, sizeof git_dir, "repo/.git/refs");
  CHECK(reftab_store_open_repo(git_dir, 0, &repo, &err) == REFTAB_NOT_FOUND);
  CHECK(contains(reftab_error_message(err), "reftable"));

  /* A stack with git's rules but no repository. */
  make_dir("gitstack");
  char dir[512];
  path_of(dir, sizeof dir, "gitstack");
  reftab_store* store = NULL;
  OK(reftab_store_open_stack(dir, REFTAB_HASH_SHA1, REFTAB_OPEN_GIT_RULES, &store, &err));
  OK(reftab_tx_begin(store, &tx, &err));
  CHECK(reftab_tx_update(tx, "refs/heads/bad..name", &a, NULL, NULL, 0, &err) != REFTAB_OK);
  OK(reftab_tx_update(tx, "refs/heads/ok", &a, NULL, NULL, REFTAB_TX_CREATE_REFLOG, &err));
  OK(reftab_tx_delete(tx, "refs/heads/missing", NULL, NULL, 0, &err));
  OK(reftab_tx_commit(tx, &err));
  reftab_tx_free(tx);
  OK(reftab_log_iter_new(store, NULL, &logs, &err));
  OK(reftab_log_iter_next(logs, &entry, &has, &err));
  CHECK(has && strcmp(entry.name, "refs/heads/ok") == 0);
  reftab_log_iter_free(logs);

  /* A batch: the updates that fail for reasons of their own are rejected alone, with git's
   * reasons and the values as queued, and the rest is written. */
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_set_batch_updates(tx, 1, &err));
  OK(reftab_tx_update(tx, "refs/heads/ok/sub", &a, NULL, NULL, 0, &err));
  OK(reftab_tx_update(tx, "refs/heads/ok", &b, &b, NULL, 0, &err));
  OK(reftab_tx_update(tx, "refs/heads/fresh", &b, &kAbsent, NULL, 0, &err));
  OK(reftab_tx_verify(tx, "refs/heads/nothing", &b, 0, &err));
  CHECK(reftab_tx_set_batch_updates(tx, 0, &err) == REFTAB_INVALID_ARGUMENT);
  CHECK(reftab_tx_rejected_count(tx) == 0);
  OK(reftab_tx_commit(tx, &err));
  CHECK(reftab_tx_rejected_count(tx) == 3);
  reftab_rejection rej;
  int conflict = 0, missing = 0, old_value = 0;
  for (size_t i = 0; i < reftab_tx_rejected_count(tx); i++) {
    OK(reftab_tx_rejected(tx, i, &rej, &err));
    CHECK(rej.message != NULL && strlen(rej.message) > 0);
    if (rej.reason == REFTAB_REJECT_NAME_CONFLICT) {
      conflict++;
      CHECK(strcmp(rej.name, "refs/heads/ok/sub") == 0);
      CHECK(strcmp(rej.reason_text, "refname conflict") == 0);
      CHECK(rej.has_new_value && rej.new_value.type == REFTAB_VALUE_ID);
      CHECK(memcmp(rej.new_value.id, id_a, 20) == 0 && !rej.has_old_value);
    } else if (rej.reason == REFTAB_REJECT_NONEXISTENT_REF) {
      missing++;
      CHECK(strcmp(rej.name, "refs/heads/nothing") == 0 && !rej.has_new_value);
      CHECK(rej.has_old_value && memcmp(rej.old_value.id, id_b, 20) == 0);
    } else if (rej.reason == REFTAB_REJECT_INCORRECT_OLD_VALUE) {
      old_value++;
      CHECK(strcmp(rej.name, "refs/heads/ok") == 0 && rej.has_new_value);
      CHECK(rej.has_old_value && rej.old_value.type == REFTAB_VALUE_ID);
      CHECK(memcmp(rej.new_value.id, id_b, 20) == 0 && memcmp(rej.old_value.id, id_b, 20) == 0);
    }
  }
  CHECK(conflict == 1 && missing == 1 && old_value == 1);
  CHECK(reftab_tx_rejected(tx, 3, &rej, &err) == REFTAB_INVALID_ARGUMENT);
  CHECK(contains(reftab_error_message(err), "there are 3"));
  reftab_tx_free(tx);
  OK(reftab_store_read_ref(store, "refs/heads/fresh", &ref, &found, &err));
  CHECK(found && memcmp(ref.id, id_b, 20) == 0);
  OK(reftab_store_read_ref(store, "refs/heads/ok", &ref, &found, &err));
  CHECK(found && memcmp(ref.id, id_a, 20) == 0);
  OK(reftab_store_read_ref(store, "refs/heads/ok/sub", &ref, &found, &err));
  CHECK(!found);
  /* Two updates of one ref fail the whole batch, with git's message. */
  OK(reftab_tx_begin(store, &tx, &err));
  OK(reftab_tx_set_batch_updates(tx, 1, &err));
  OK(reftab_tx_update(tx, "refs/heads/ok", &b, NULL, NULL, 0, &err));
  OK(reftab_tx_verify(tx, "refs/heads/ok", &a, 0, &err));
  CHECK(reftab_tx_commit(tx, &err) == REFTAB_INVALID_ARGUMENT);
  CHECK(contains(reftab_error_message(err), "multiple updates for ref 'refs/heads/ok'"));
  reftab_tx_free(tx);
  reftab_store_free(store);

  /* Without git's rules there are no per-update reasons to reject for. */
  make_dir("plainbatch");
  path_of(dir, sizeof dir, "plainbatch");
  OK(reftab_store_open_stack(dir, REFTAB_HASH_SHA1, 0, &store, &err));
  OK(reftab_tx_begin(store, &tx, &err));
  CHECK(reftab_tx_set_batch_updates(tx, 1, &err) == REFTAB_UNSUPPORTED);
  CHECK(reftab_tx_rejected_count(tx) == 0 && reftab_tx_rejected_count(NULL) == 0);
  reftab_tx_free(tx);
  reftab_store_free(store);
  reftab_error_free(err);
}

int main(void) {
  snprintf(root, sizeof root, "%s/reftab-capi-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 2;
  }
  for (int i = 0; i < 32; i++) {
    id_a[i] = (uint8_t)(0x11 * (i % 15 + 1));
    id_b[i] = (uint8_t)(i + 1);
    id_c[i] = (uint8_t)(0xc0 + i % 16);
  }
  test_errors();
  test_missing_files();
  test_plain_stack();
  test_table();
  test_sha256();
  test_git_repo();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}

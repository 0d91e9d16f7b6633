/*
 * git-reftable-bench: reftab-bench's twin over git's reftable library, so that perf/run.sh
 * can time both on the same tables in the same run. It only calls the library's public
 * headers (reftable/reftable-*.h of a git build tree, -Dgit_peer in meson_options.txt).
 *
 * Modes, arguments and the output line are reftab-bench's (perf/reftab_bench.cc):
 *
 *   git-reftable-bench write IN.txt OUT.ref [noobj]   write IN.txt's refs as one table
 *   git-reftable-bench scan DIR [reps]                iterate every ref of the stack in DIR
 *   git-reftable-bench lookup DIR NAMES.txt [reps]    exact lookup of every name in NAMES.txt
 *   git-reftable-bench prefix DIR PREFIX [reps]       seek to PREFIX, iterate while it matches
 *   git-reftable-bench rewrite SRC DST                write every table of the stack in SRC
 *                                                     again with git's writer into DST (same
 *                                                     records, update indexes and file names)
 *
 *   <mode> n=<ops> best_ns_per_op=<x> median_ns_per_op=<y>
 *
 * As in reftab-bench, timing covers only the operation: reading the input, opening the stack
 * and process start are outside it; every rep builds a fresh iterator or writer, and a write
 * rep a fresh file (the last rep's is removed before the clock starts). Lookups are
 * made as git's reftable backend makes them: seek and read one record with one iterator kept
 * across lookups (faster than the one-call reftable_stack_read_ref()). Default reps: 5 for
 * write, 10 otherwise; REFTAB_BENCH_REPS overrides the default; REFTAB_BENCH_MEM=1 prints
 * VmHWM, VmRSS, RssAnon and RssFile on stderr afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reftable/reftable-blocksource.h"
#include "reftable/reftable-error.h"
#include "reftable/reftable-iterator.h"
#include "reftable/reftable-record.h"
#include "reftable/reftable-stack.h"
#include "reftable/reftable-table.h"
#include "reftable/reftable-writer.h"

#define HASH_SIZE REFTABLE_HASH_SIZE_SHA1

static int die(const char* what, const char* detail) {
  fprintf(stderr, "git-reftable-bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

static int die_code(const char* what, int code) { return die(what, reftable_error_str(code)); }

static int usage(void) {
  fputs(
      "usage: git-reftable-bench write IN.txt OUT.ref [noobj]\n"
      "       git-reftable-bench scan DIR [reps]\n"
      "       git-reftable-bench lookup DIR NAMES.txt [reps]\n"
      "       git-reftable-bench prefix DIR PREFIX [reps]\n"
      "       git-reftable-bench rewrite SRC DST\n",
      stderr);
  return 2;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One ns-per-op figure per rep, printed as reftab-bench prints them. */
struct timings {
  double ns_per_op[1024];
  int n;
};

static void timings_add(struct timings* t, uint64_t ns, uint64_t ops) {
  if (t->n < 1024) t->ns_per_op[t->n++] = ops ? (double)ns / (double)ops : 0.0;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void timings_print(struct timings* t, const char* mode, uint64_t ops) {
  int n = t->n;
  double median = 0, best = 0;
  qsort(t->ns_per_op, (size_t)n, sizeof(double), cmp_double);
  if (n) {
    best = t->ns_per_op[0];
    median = n % 2 ? t->ns_per_op[n / 2] : (t->ns_per_op[n / 2 - 1] + t->ns_per_op[n / 2]) / 2;
  }
  printf("%s n=%llu best_ns_per_op=%.2f median_ns_per_op=%.2f\n", mode, (unsigned long long)ops,
         best, median);
}

static int reps_of(int argc, char** argv, int at, int def) {
  const char* e = getenv("REFTAB_BENCH_REPS");
  int r = def;
  if (argc > at) {
    r = atoi(argv[at]);
  } else if (e) {
    r = atoi(e);
  }
  if (r < 1) r = 1;
  return r > 1024 ? 1024 : r;
}

static void print_memory(void) {
  char line[256];
  FILE* f;
  if (!getenv("REFTAB_BENCH_MEM")) return;
  f = fopen("/proc/self/status", "r");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "VmHWM", 5) || !strncmp(line, "VmRSS", 5) || !strncmp(line, "RssAnon", 7) ||
        !strncmp(line, "RssFile", 7)) {
      fprintf(stderr, "mem %s", line);
    }
  }
  fclose(f);
}

/* "<hex> SP <name>" lines, held as one buffer with the names NUL-terminated in place. */
struct lines {
  char* buf;
  char** names;
  unsigned char (*ids)[HASH_SIZE];
  size_t n;
};

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int parse_id(const char* hex, size_t len, unsigned char* out) {
  size_t i;
  if (len != 2 * HASH_SIZE) return -1;
  for (i = 0; i < HASH_SIZE; i++) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i] = (unsigned char)(hi << 4 | lo);
  }
  return 0;
}

static char* slurp(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* buf;
  long len;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return NULL;
  }
  buf = malloc((size_t)len + 1);
  if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  *size = (size_t)len;
  return buf;
}

static int read_lines(const char* path, int want_ids, struct lines* out) {
  size_t size = 0, cap = 0, no = 0;
  char *p, *end;
  memset(out, 0, sizeof *out);
  out->buf = slurp(path, &size);
  if (!out->buf) return die(path, "cannot open");
  for (p = out->buf; p < out->buf + size; p++) cap += *p == '\n';
  cap++;
  out->names = calloc(cap, sizeof *out->names);
  if (want_ids) out->ids = calloc(cap, sizeof *out->ids);
  if (!out->names || (want_ids && !out->ids)) return die("out of memory", NULL);
  for (p = out->buf; p < out->buf + size; p = end + 1) {
    char* sp;
    end = memchr(p, '\n', (size_t)(out->buf + size - p));
    if (!end) end = out->buf + size;
    *end = '\0';
    no++;
    if (p == end) continue;
    sp = strchr(p, ' ');
    if (!sp || !sp[1]) {
      fprintf(stderr, "git-reftable-bench: %s:%zu: expected '<hex id> <refname>'\n", path, no);
      return 1;
    }
    if (want_ids && parse_id(p, (size_t)(sp - p), out->ids[out->n]) != 0) {
      fprintf(stderr, "git-reftable-bench: %s:%zu: bad object id\n", path, no);
      return 1;
    }
    out->names[out->n++] = sp + 1;
  }
  return 0;
}

static void free_lines(struct lines* l) {
  free(l->buf);
  free(l->names);
  free(l->ids);
}

static int open_stack(const char* dir, struct reftable_stack** st) {
  struct reftable_stack_options opts = {0};
  int err;
  opts.hash_id = REFTABLE_HASH_SHA1;
  err = reftable_new_stack(st, dir, &opts);
  if (err) return die_code(dir, err);
  return 0;
}

/* The writer's output: straight to the file descriptor, as git's own stack writes tables. */
static ssize_t fd_write(void* arg, const void* data, size_t len) {
  int fd = *(int*)arg;
  const char* p = data;
  size_t left = len;
  while (left) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    left -= (size_t)w;
  }
  return (ssize_t)len;
}

static int fd_flush(void* arg) {
  (void)arg;
  return 0;
}

/* Writes `n` refs (names[i] -> ids[i], update index 1) to `path` with `opts`. */
static int write_table(const char* path, const struct reftable_write_options* opts,
                       char* const* names, unsigned char (*ids)[HASH_SIZE], size_t n) {
  struct reftable_writer* w = NULL;
  struct reftable_ref_record rec;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  int err;
  size_t i;
  if (fd < 0) return die(path, strerror(errno));
  err = reftable_writer_new(&w, fd_write, fd_flush, &fd, REFTABLE_HASH_SHA1, opts);
  if (!err) err = reftable_writer_set_limits(w, 1, 1);
  memset(&rec, 0, sizeof rec);
  rec.update_index = 1;
  rec.value_type = REFTABLE_REF_VAL1;
  for (i = 0; !err && i < n; i++) {
    rec.refname = names[i];
    memcpy(rec.value.val1, ids[i], HASH_SIZE);
    err = reftable_writer_add_ref(w, &rec);
  }
  if (!err) err = reftable_writer_close(w);
  reftable_writer_free(w);
  if (close(fd) != 0 && !err) return die(path, strerror(errno));
  return err ? die_code(path, err) : 0;
}

static int mode_write(int argc, char** argv) {
  struct reftable_write_options opts = {0};
  struct lines in;
  struct timings t = {{0}, 0};
  int noobj = argc == 5 && !strcmp(argv[4], "noobj");
  int reps, rep;
  if (argc < 4 || argc > 5 || (argc == 5 && !noobj)) return usage();
  if (read_lines(argv[2], 1, &in)) return 1;
  opts.skip_index_objects = noobj;
  reps = reps_of(0, NULL, 0, 5);
  for (rep = 0; rep < reps; rep++) {
    uint64_t t0;
    if (unlink(argv[3]) != 0 && errno != ENOENT) return die(argv[3], strerror(errno));
    t0 = now_ns();
    if (write_table(argv[3], &opts, in.names, in.ids, in.n)) return 1;
    timings_add(&t, now_ns() - t0, in.n);
  }
  timings_print(&t, "write", in.n);
  print_memory();
  free_lines(&in);
  return 0;
}

/* Iterates from `seek` while names start with `prefix` (NULL: to the end); returns the number
 * of refs, or -1 on error. */
static int64_t iterate(struct reftable_stack* st, const char* seek, const char* prefix,
                       uint64_t* check) {
  struct reftable_iterator it = {0};
  struct reftable_ref_record rec;
  size_t plen = prefix ? strlen(prefix) : 0;
  int64_t n = 0;
  int err;
  memset(&rec, 0, sizeof rec);
  err = reftable_stack_init_ref_iterator(st, &it);
  if (!err) err = reftable_iterator_seek_ref(&it, seek);
  while (!err) {
    err = reftable_iterator_next_ref(&it, &rec);
    if (err) break;
    if (plen && strncmp(rec.refname, prefix, plen) != 0) break;
    n++;
    *check += rec.value.val1[0];
  }
  reftable_iterator_destroy(&it);
  reftable_ref_record_release(&rec);
  if (err < 0) {
    die_code("iteration", err);
    return -1;
  }
  return n;
}

/* scan (`prefix` NULL: every ref) and prefix: the optional reps follow at argv[at]. */
static int mode_iterate(int argc, char** argv, const char* mode, const char* prefix, int at) {
  struct reftable_stack* st = NULL;
  struct timings t = {{0}, 0};
  uint64_t check = 0;
  int64_t n = 0;
  int reps, rep;
  if (argc < at || argc > at + 1) return usage();
  if (open_stack(argv[2], &st)) return 1;
  reps = reps_of(argc, argv, at, 10);
  for (rep = 0; rep < reps; rep++) {
    uint64_t t0 = now_ns();
    n = iterate(st, prefix ? prefix : "", prefix, &check);
    if (n < 0) return 1;
    timings_add(&t, now_ns() - t0, (uint64_t)n);
  }
  if (check == 1) fputs("", stderr); /* keeps the loop's work observable */
  timings_print(&t, mode, (uint64_t)n);
  print_memory();
  reftable_stack_destroy(st);
  return 0;
}

/* One exact lookup the way git's reftable backend reads a ref (refs/reftable-backend.c): one
 * iterator kept across lookups, seek, read one record, check its name. 1: not found. */
static int lookup_one(struct reftable_iterator* it, const char* name,
                      struct reftable_ref_record* rec) {
  int err = reftable_iterator_seek_ref(it, name);
  if (!err) err = reftable_iterator_next_ref(it, rec);
  if (err) return err;
  return strcmp(rec->refname, name) != 0 || reftable_ref_record_is_deletion(rec);
}

static int mode_lookup(int argc, char** argv) {
  struct reftable_stack* st = NULL;
  struct reftable_ref_record rec;
  struct timings t = {{0}, 0};
  struct lines names;
  uint64_t found = 0;
  int reps, rep;
  size_t i;
  if (argc < 4 || argc > 5) return usage();
  if (open_stack(argv[2], &st)) return 1;
  if (read_lines(argv[3], 0, &names)) return 1;
  memset(&rec, 0, sizeof rec);
  reps = reps_of(argc, argv, 4, 10);
  for (rep = 0; rep < reps; rep++) {
    struct reftable_iterator it = {0};
    uint64_t t0 = now_ns();
    int err = reftable_stack_init_ref_iterator(st, &it);
    if (err) return die_code(argv[2], err);
    found = 0;
    for (i = 0; i < names.n; i++) {
      err = lookup_one(&it, names.names[i], &rec);
      if (err < 0) return die_code(names.names[i], err);
      found += err == 0;
    }
    reftable_iterator_destroy(&it);
    timings_add(&t, now_ns() - t0, names.n);
  }
  if (found != names.n) {
    fprintf(stderr, "git-reftable-bench: warning: %llu of %zu names not found\n",
            (unsigned long long)(names.n - found), names.n);
  }
  timings_print(&t, "lookup", names.n);
  print_memory();
  reftable_ref_record_release(&rec);
  reftable_stack_destroy(st);
  free_lines(&names);
  return 0;
}

/* Copies one table: every ref record, the same update index range, default options. */
static int rewrite_table(const char* src, const char* dst) {
  struct reftable_block_source source = {0};
  struct reftable_table* table = NULL;
  struct reftable_iterator it = {0};
  struct reftable_ref_record rec;
  struct reftable_write_options opts = {0};
  struct reftable_writer* w = NULL;
  int fd, err;
  memset(&rec, 0, sizeof rec);
  err = reftable_block_source_from_file(&source, src);
  if (!err) err = reftable_table_new(&table, &source, src);
  if (err) return die_code(src, err);
  fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) return die(dst, strerror(errno));
  err = reftable_writer_new(&w, fd_write, fd_flush, &fd, REFTABLE_HASH_SHA1, &opts);
  if (!err) {
    err = reftable_writer_set_limits(w, reftable_table_min_update_index(table),
                                     reftable_table_max_update_index(table));
  }
  if (!err) err = reftable_table_init_ref_iterator(table, &it);
  if (!err) err = reftable_iterator_seek_ref(&it, "");
  while (!err && (err = reftable_iterator_next_ref(&it, &rec)) == 0) {
    err = reftable_writer_add_ref(w, &rec);
  }
  if (err > 0) err = 0; /* the end of the table */
  if (!err) err = reftable_writer_close(w);
  reftable_iterator_destroy(&it);
  reftable_ref_record_release(&rec);
  reftable_writer_free(w);
  reftable_table_decref(table);
  if (close(fd) != 0 && !err) return die(dst, strerror(errno));
  return err ? die_code(dst, err) : 0;
}

static int mode_rewrite(int argc, char** argv) {
  char path[4096], dst[4096];
  char *list, *names, *name, *save = NULL;
  size_t size;
  FILE* out;
  if (argc != 4) return usage();
  snprintf(path, sizeof path, "%s/tables.list", argv[2]);
  list = slurp(path, &size);
  names = list ? malloc(size + 1) : NULL;
  if (!names) return die(path, "cannot read");
  memcpy(names, list, size + 1);
  if (mkdir(argv[3], 0777) != 0 && errno != EEXIST) return die(argv[3], strerror(errno));
  for (name = strtok_r(names, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
    snprintf(path, sizeof path, "%s/%s", argv[2], name);
    snprintf(dst, sizeof dst, "%s/%s", argv[3], name);
    if (rewrite_table(path, dst)) return 1;
  }
  snprintf(dst, sizeof dst, "%s/tables.list", argv[3]);
  out = fopen(dst, "wb");
  if (!out || fwrite(list, 1, size, out) != size || fclose(out) != 0) {
    return die(dst, "cannot write");
  }
  free(names);
  free(list);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  if (!strcmp(argv[1], "write")) return mode_write(argc, argv);
  if (!strcmp(argv[1], "scan")) return mode_iterate(argc, argv, "scan", NULL, 3);
  if (!strcmp(argv[1], "lookup")) return mode_lookup(argc, argv);
  if (!strcmp(argv[1], "prefix")) {
    if (argc < 4) return usage();
    return mode_iterate(argc, argv, "prefix", argv[3], 4);
  }
  if (!strcmp(argv[1], "rewrite")) return mode_rewrite(argc, argv);
  return usage();
}

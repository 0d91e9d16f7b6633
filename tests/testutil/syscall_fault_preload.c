/* An LD_PRELOAD library for fault-injection tests of whole processes: it interposes the
 * system calls that change files (write, pwrite, writev, pwritev; fsync, fdatasync,
 * syncfs; rename, renameat, renameat2; ftruncate, truncate) and makes one of them fail.
 *
 * Only calls on files inside one directory count, so the process's own output and the
 * files of the test around it do not move the numbering. Environment:
 *   REFTAB_SYSFAULT_DIR   the directory (absolute, symbolic links resolved); unset: inert
 *   REFTAB_SYSFAULT_FAIL  the 1-based number of the counted call to fail; unset or 0: none
 *   REFTAB_SYSFAULT_LOG   a file each counted call appends a line to:
 *                         "<n> <class> <call> <path>[ -> <target>][ FAILED]"
 *                         (class: write, sync, rename or truncate), so a counting run gives
 *                         the range of n and the failed call can be named.
 * A failed write says ENOSPC, any other failed call EIO; the call does nothing. Calls are
 * numbered in the order they reach the library, across threads. */
#define _GNU_SOURCE
/* Both names of the calls that have a 64-bit twin are defined here, so neither may be
 * renamed to the other (meson asks for 64-bit offsets everywhere). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static char g_dir[PATH_MAX];
static size_t g_dir_len;
static unsigned long g_fail_at;
static int g_log_fd = -1;
static unsigned long g_count;

__attribute__((constructor)) static void sysfault_init(void) {
  const char* dir = getenv("REFTAB_SYSFAULT_DIR");
  const char* fail = getenv("REFTAB_SYSFAULT_FAIL");
  const char* log = getenv("REFTAB_SYSFAULT_LOG");
  if (dir && strlen(dir) < sizeof g_dir) {
    strcpy(g_dir, dir);
    g_dir_len = strlen(g_dir);
    while (g_dir_len > 1 && g_dir[g_dir_len - 1] == '/') g_dir[--g_dir_len] = '\0';
  }
  if (fail) g_fail_at = strtoul(fail, NULL, 10);
  if (log) g_log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

/* `path` made absolute against `dirfd` (AT_FDCWD: the working directory). Not normalised:
 * the tests name their files by absolute paths without "." or "..". */
static void absolute(int dirfd, const char* path, char* out, size_t size) {
  char base[PATH_MAX];
  out[0] = '\0';
  if (!path) return;
  if (path[0] == '/') {
    snprintf(out, size, "%s", path);
    return;
  }
  if (dirfd == AT_FDCWD) {
    if (!getcwd(base, sizeof base)) return;
  } else {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, base, sizeof base - 1);
    if (n < 0) return;
    base[n] = '\0';
  }
  if (snprintf(out, size, "%s/%s", base, path) >= (int)size) out[0] = '\0'; /* too long */
}

static void fd_path(int fd, char* out, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, out, size - 1);
  out[n < 0 ? 0 : n] = '\0';
}

static int inside(const char* path) {
  return g_dir_len > 0 && strncmp(path, g_dir, g_dir_len) == 0 &&
         (path[g_dir_len] == '/' || path[g_dir_len] == '\0');
}

/* Counts a call on `path` (and `to`, for a rename) if it is inside the directory; returns 1
 * if this call is the one to fail, with errno set to `err`. */
static int should_fail(const char* cls, const char* call, const char* path, const char* to,
                       int err) {
  if (!inside(path) && !(to && inside(to))) return 0;
  const unsigned long n = __atomic_add_fetch(&g_count, 1, __ATOMIC_SEQ_CST);
  const int fail = n == g_fail_at;
  if (g_log_fd >= 0) {
    char line[3 * PATH_MAX];
    int len = snprintf(line, sizeof line, "%lu %s %s %s%s%s%s\n", n, cls, call, path,
                       to ? " -> " : "", to ? to : "", fail ? " FAILED" : "");
    if (len > (int)sizeof line - 1) len = (int)sizeof line - 1;
    /* Straight to the kernel: through write() it would go through this library again. */
    if (syscall(SYS_write, g_log_fd, line, (size_t)len) < 0) { /* nothing to do */
    }
  }
  if (fail) errno = err;
  return fail;
}

static int fd_fails(const char* cls, const char* call, int fd, int err) {
  if (g_dir_len == 0) return 0;
  char path[PATH_MAX];
  fd_path(fd, path, sizeof path);
  return should_fail(cls, call, path, NULL, err);
}

static int path_fails(const char* cls, const char* call, int dirfd, const char* p, int err) {
  if (g_dir_len == 0) return 0;
  char path[PATH_MAX];
  absolute(dirfd, p, path, sizeof path);
  return should_fail(cls, call, path, NULL, err);
}

static int rename_fails(const char* call, int fromfd, const char* from, int tofd, const char* to) {
  if (g_dir_len == 0) return 0;
  char a[PATH_MAX], b[PATH_MAX];
  absolute(fromfd, from, a, sizeof a);
  absolute(tofd, to, b, sizeof b);
  return should_fail("rename", call, a, b, EIO);
}

/* The next definition of `name` (the C library's, or a sanitizer's interceptor), looked up
 * on first use. Copied through memcpy: ISO C has no cast from an object pointer to a
 * function pointer. */
#define REAL(name)                          \
  static __typeof__(name)* real_##name;     \
  if (!real_##name) {                       \
    void* sym = dlsym(RTLD_NEXT, #name);    \
    memcpy(&real_##name, &sym, sizeof sym); \
  }

ssize_t write(int fd, const void* buf, size_t n) {
  REAL(write);
  if (fd_fails("write", "write", fd, ENOSPC)) return -1;
  return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  REAL(pwrite);
  if (fd_fails("write", "pwrite", fd, ENOSPC)) return -1;
  return real_pwrite(fd, buf, n, at);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t at) {
  REAL(pwrite64);
  if (fd_fails("write", "pwrite64", fd, ENOSPC)) return -1;
  return real_pwrite64(fd, buf, n, at);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  REAL(writev);
  if (fd_fails("write", "writev", fd, ENOSPC)) return -1;
  return real_writev(fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t at) {
  REAL(pwritev);
  if (fd_fails("write", "pwritev", fd, ENOSPC)) return -1;
  return real_pwritev(fd, iov, count, at);
}

int fsync(int fd) {
  REAL(fsync);
  if (fd_fails("sync", "fsync", fd, EIO)) return -1;
  return real_fsync(fd);
}

int fdatasync(int fd) {
  REAL(fdatasync);
  if (fd_fails("sync", "fdatasync", fd, EIO)) return -1;
  return real_fdatasync(fd);
}

int syncfs(int fd) {
  REAL(syncfs);
  if (fd_fails("sync", "syncfs", fd, EIO)) return -1;
  return real_syncfs(fd);
}

int rename(const char* from, const char* to) {
  REAL(rename);
  if (rename_fails("rename", AT_FDCWD, from, AT_FDCWD, to)) return -1;
  return real_rename(from, to);
}

int renameat(int fromfd, const char* from, int tofd, const char* to) {
  REAL(renameat);
  if (rename_fails("renameat", fromfd, from, tofd, to)) return -1;
  return real_renameat(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char* from, int tofd, const char* to, unsigned flags) {
  REAL(renameat2);
  if (rename_fails("renameat2", fromfd, from, tofd, to)) return -1;
  return real_renameat2(fromfd, from, tofd, to, flags);
}

int ftruncate(int fd, off_t size) {
  REAL(ftruncate);
  if (fd_fails("truncate", "ftruncate", fd, EIO)) return -1;
  return real_ftruncate(fd, size);
}

int ftruncate64(int fd, off64_t size) {
  REAL(ftruncate64);
  if (fd_fails("truncate", "ftruncate64", fd, EIO)) return -1;
  return real_ftruncate64(fd, size);
}

int truncate(const char* path, off_t size) {
  REAL(truncate);
  if (path_fails("truncate", "truncate", AT_FDCWD, path, EIO)) return -1;
  return real_truncate(path, size);
}

int truncate64(const char* path, off64_t size) {
  REAL(truncate64);
  if (path_fails("truncate", "truncate64", AT_FDCWD, path, EIO)) return -1;
  return real_truncate64(path, size);
}

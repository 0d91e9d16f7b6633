// Internal: tracing for the store's slow and rare paths.
//
//   REFTAB_TRACE(trace::kInfo, "%s: reloaded, %zu tables", dir.c_str(), n);
//
// Levels: 1 kError, 2 kInfo (table open, stack reload, compaction decisions), 3 kDebug
// (locking, retries), 4 kBlock (every block read: very verbose).
//
// Cost model, so that tracing can stay in hot code:
//   * A call above the build's maximum level (Meson option trace_max_level, passed as
//     REFTAB_TRACE_MAX_LEVEL) is removed at compile time (`if constexpr`), arguments and all.
//   * Otherwise it is one load of the runtime level and one branch marked unlikely. The
//     runtime level is read once, when the library is loaded, from the environment variable
//     REFTAB_TRACE (0..4; unset or unparsable = 0 = off). It is the only global state.
//   * Arguments are evaluated only when the message is printed, and all formatting lives in
//     Emit(), which is cold and never inlined, so the hot path carries only the call.
// perf/RESULTS.md measures scan and lookup with tracing compiled in but off against a build
// with it compiled out.
//
// Messages go to stderr as one line: "reftab trace[<level>] <file>:<line>: <message>".
#ifndef REFTAB_STORE_TRACE_H_
#define REFTAB_STORE_TRACE_H_

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#ifndef REFTAB_TRACE_MAX_LEVEL
#define REFTAB_TRACE_MAX_LEVEL 4
#endif

namespace reftab::trace {

enum Level : int {
  kOff = 0,
  kError = 1,
  kInfo = 2,
  kDebug = 3,
  kBlock = 4,
};

// REFTAB_TRACE as a number in 0..4; anything else is 0.
inline int LevelFromEnvironment() {
  const char* v = std::getenv("REFTAB_TRACE");
  if (v == nullptr || v[0] < '0' || v[0] > '4' || v[1] != '\0') return kOff;
  return v[0] - '0';
}

// The runtime level, read once at load time (before main). One instance per process.
inline const int g_level = LevelFromEnvironment();

// Formats and writes one trace line. Cold and out of line by design.
[[gnu::cold, gnu::noinline, gnu::format(printf, 4, 5)]] inline void Emit(int level,
                                                                         const char* file, int line,
                                                                         const char* fmt, ...) {
  char buf[1024];
  int n = std::snprintf(buf, sizeof buf, "reftab trace[%d] %s:%d: ", level, file, line);
  if (n < 0) return;
  size_t used = size_t(n) < sizeof buf ? size_t(n) : sizeof buf - 1;
  va_list ap;
  va_start(ap, fmt);
  int m = std::vsnprintf(buf + used, sizeof buf - used, fmt, ap);
  va_end(ap);
  if (m > 0) used += size_t(m) < sizeof buf - used ? size_t(m) : sizeof buf - used - 1;
  if (used < sizeof buf - 1) buf[used++] = '\n';
  std::fwrite(buf, 1, used, stderr);
}

}  // namespace reftab::trace

// `level` must be a constant expression (one of trace::Level).
#define REFTAB_TRACE(level, ...)                                         \
  do {                                                                   \
    if constexpr ((level) <= REFTAB_TRACE_MAX_LEVEL) {                   \
      if (__builtin_expect((level) <= ::reftab::trace::g_level, 0)) {    \
        ::reftab::trace::Emit((level), __FILE__, __LINE__, __VA_ARGS__); \
      }                                                                  \
    }                                                                    \
  } while (0)

#endif  // REFTAB_STORE_TRACE_H_

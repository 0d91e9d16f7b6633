/* The checks both C API tests make (capi_test.c, kv_capi_test.c): a count of checks and of
 * failures, CHECK for a condition, OK for a call that must succeed. Include after reftab.h or
 * reftab_kv.h (both declare reftab_code and reftab_error). */
#ifndef REFTAB_TESTS_STORE_CAPI_CHECKS_H_
#define REFTAB_TESTS_STORE_CAPI_CHECKS_H_

#include <stdio.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* `call` must succeed. It is given `&err`: this scope's own (shadowing the caller's), so the
 * message of a failure can be printed, and it is freed here. */
#define OK(call)                                                                           \
  do {                                                                                     \
    reftab_error* err = NULL;                                                              \
    reftab_code ok_code_ = (call);                                                         \
    checks++;                                                                              \
    if (ok_code_ != REFTAB_OK) {                                                           \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,             \
              reftab_code_name(ok_code_), err ? reftab_error_message(err) : "(no error)"); \
      failures++;                                                                          \
    }                                                                                      \
    reftab_error_free(err);                                                                \
  } while (0)

#endif /* REFTAB_TESTS_STORE_CAPI_CHECKS_H_ */

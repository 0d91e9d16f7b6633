/* Public API: reftab's C interface, for programs in C and for bindings from other languages.
 *
 * Installed as <reftab.h> (and <reftab/reftab.h>); `pkg-config --cflags --libs reftab`.
 * Plain C11 (also valid C++); no C++ type or exception ever crosses it.
 *
 * CONVENTIONS (every function follows them; other parts of reftab, such as the key/value
 * store, add functions in the same style):
 *
 *  - Names: every symbol starts with reftab_ (REFTAB_ for constants). Handles are opaque
 *    structs, `reftab_<thing>`, made by `reftab_<thing>_open/new/begin` and released by
 *    `reftab_<thing>_free` (which accepts NULL). Functions on a handle are
 *    `reftab_<thing>_<verb>(handle, ...)`.
 *
 *  - Errors: every function that can fail returns a `reftab_code`: REFTAB_OK (0) on
 *    success, another code on failure. Its last parameter is `reftab_error** err`: when it is
 *    not NULL and the call fails, *err receives a new error object that the caller owns and
 *    releases with reftab_error_free() (a previous error left in *err is freed first, so one
 *    `reftab_error* err = NULL;` may be reused for several calls). On success *err is left as
 *    it was. The message names the file and, for corrupt data, the byte offset where there is
 *    one. Pass err = NULL to get the code only.
 *
 *  - Absence is not an error: a lookup of a missing name returns REFTAB_OK with *found = 0.
 *    REFTAB_NOT_FOUND means a *file* (table, directory) is missing.
 *
 *  - Ownership: strings passed in are copied (or only read during the call); the library
 *    keeps no pointer to them. Every pointer the library hands out is one of:
 *      * a handle: owned by the caller until its _free function;
 *      * an error: owned by the caller until reftab_error_free();
 *      * a VIEW (reftab_ref, reftab_log, and the strings and ids in them): owned by the handle
 *        that filled it, valid until the next call on that handle or its _free, whichever
 *        comes first. Every string in a view also ends with a NUL (name[name_len] == '\0').
 *        Copy what you keep.
 *    Filling a view allocates nothing per record once the handle's buffers have grown.
 *
 *  - Threads: a handle is used by one thread at a time. Different handles (also on the same
 *    files, in any number of processes) may be used concurrently: writers serialise on
 *    tables.list.lock, readers never lock.
 *
 *  - Out of memory and other unexpected failures inside the library are reported as
 *    REFTAB_INTERNAL; nothing aborts the calling program.
 */
#ifndef REFTAB_H_
#define REFTAB_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define REFTAB_C_EXPORT
#else
#define REFTAB_C_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Errors ------------------------------------------------------------------------------ */

typedef enum reftab_code {
  REFTAB_OK = 0,
  REFTAB_CORRUPTION = 1,       /* bytes of a table or tables.list are not valid reftable data */
  REFTAB_IO_ERROR = 2,         /* the operating system refused a read, write, sync or rename */
  REFTAB_NOT_FOUND = 3,        /* a file or directory is missing */
  REFTAB_INVALID_ARGUMENT = 4, /* API misuse or a bad name or value; nothing was changed */
  REFTAB_LOCK_HELD = 5,        /* another writer holds a lock; retrying later may succeed */
  REFTAB_OUTDATED = 6,         /* the stack changed under the caller */
  REFTAB_TOO_LARGE = 7,        /* a record does not fit in a block */
  REFTAB_CONFLICT = 8,         /* an expected old value did not match */
  REFTAB_UNSUPPORTED = 9,      /* the operation does not apply to this kind of handle */
  REFTAB_INTERNAL = 10         /* out of memory or another unexpected failure */
} reftab_code;

typedef struct reftab_error reftab_error;

/* The error's code and its one-line message (owned by the error). */
REFTAB_C_EXPORT reftab_code reftab_error_code(const reftab_error* err);
REFTAB_C_EXPORT const char* reftab_error_message(const reftab_error* err);
/* Releases an error; NULL is accepted. */
REFTAB_C_EXPORT void reftab_error_free(reftab_error* err);
/* A short static lower-case name for a code ("corruption", "conflict", ...). */
REFTAB_C_EXPORT const char* reftab_code_name(reftab_code code);
/* The library's version, e.g. "0.1.0" (static string). */
REFTAB_C_EXPORT const char* reftab_version(void);

/* ---- Values -------------------------------------------------------------------------------- */

typedef enum reftab_hash {
  REFTAB_HASH_DEFAULT = 0, /* opening: take it from the files (SHA-1 for a new, empty stack) */
  REFTAB_HASH_SHA1 = 1,    /* 20-byte object ids */
  REFTAB_HASH_SHA256 = 2   /* 32-byte object ids */
} reftab_hash;

typedef enum reftab_value_type {
  REFTAB_VALUE_NONE = 0,   /* deleted / does not exist */
  REFTAB_VALUE_ID = 1,     /* an object id */
  REFTAB_VALUE_PEELED = 2, /* an object id and the id it peels to (annotated tag) */
  REFTAB_VALUE_SYMREF = 3  /* a symbolic ref: `target` names another ref */
} reftab_value_type;

/* A ref record (a VIEW: see Ownership). `id` and `peeled` point at hash_size bytes. */
typedef struct reftab_ref {
  const char* name;
  size_t name_len;
  uint64_t update_index;
  reftab_value_type type;
  const uint8_t* id;     /* REFTAB_VALUE_ID, _PEELED; else NULL */
  const uint8_t* peeled; /* REFTAB_VALUE_PEELED; else NULL */
  const char* target;    /* REFTAB_VALUE_SYMREF; else NULL */
  size_t target_len;
} reftab_ref;

/* A reflog entry (a VIEW). Entries of one ref come newest first. */
typedef struct reftab_log {
  const char* name; /* the ref's name */
  size_t name_len;
  uint64_t update_index;
  const uint8_t* old_id; /* hash_size bytes */
  const uint8_t* new_id;
  const char* committer_name;
  size_t committer_name_len;
  const char* committer_email; /* without < > */
  size_t committer_email_len;
  uint64_t time;     /* seconds since the epoch */
  int16_t tz_offset; /* git's convention: +0530 is 530, -0800 is -800 */
  const char* message;
  size_t message_len;
} reftab_log;

/* A value to write or to expect, given by the caller (read during the call only). */
typedef struct reftab_value {
  reftab_value_type type;
  const uint8_t* id;     /* hash_size bytes, for _ID and _PEELED */
  const uint8_t* peeled; /* hash_size bytes, for _PEELED */
  const char* target;    /* NUL-terminated, for _SYMREF */
} reftab_value;

/* Who made a change and why: a reflog entry. */
typedef struct reftab_log_info {
  const char* name;    /* NUL-terminated; ignored by git-rule stores (see transactions) */
  const char* email;   /* idem */
  uint64_t time;       /* idem */
  int16_t tz_offset;   /* idem */
  const char* message; /* NUL-terminated, may be NULL */
} reftab_log_info;

/* Hex helpers: `hex` must hold exactly 2 * hash_size digits; `out` 2 * hash_size + 1 bytes. */
REFTAB_C_EXPORT reftab_code reftab_parse_hex_id(const char* hex, size_t hash_size, uint8_t* out,
                                                reftab_error** err);
REFTAB_C_EXPORT void reftab_format_hex_id(const uint8_t* id, size_t hash_size, char* out);

/* ---- Opening ------------------------------------------------------------------------------- */

/* A store: a git repository, a stack directory or one table file. */
typedef struct reftab_store reftab_store;

/* Flags for the open functions, combined with '|'. */
enum {
  /* Read only: writes fail with REFTAB_UNSUPPORTED. For a repository, a malformed write
   * setting in its config does not stop readers (as in git). */
  REFTAB_OPEN_READ_ONLY = 1u << 0,
  /* For reftab_store_open_stack: apply git's ref rules (names, symrefs, directory/file
   * conflicts, reflog policy) with git's defaults, as for a repository. */
  REFTAB_OPEN_GIT_RULES = 1u << 1,
  /* Sync tables and tables.list to disk at every commit (default: as git does). */
  REFTAB_OPEN_DURABLE = 1u << 2
};

/* Opens the ref storage of the git repository whose git directory is `git_dir` (a `.git`
 * directory, a bare repository, or a linked worktree's .git/worktrees/<id>, whose own refs
 * (HEAD, refs/bisect/, ...) then come from the worktree's stack and the rest from the main
 * one). The config is read as git reads it. Writes follow git's rules. */
REFTAB_C_EXPORT reftab_code reftab_store_open_repo(const char* git_dir, unsigned flags,
                                                   reftab_store** out, reftab_error** err);
/* Opens the reftable stack in directory `dir` (which must exist; an empty directory is an
 * empty stack). `hash`: the stack's object format, or REFTAB_HASH_DEFAULT. */
REFTAB_C_EXPORT reftab_code reftab_store_open_stack(const char* dir, reftab_hash hash,
                                                    unsigned flags, reftab_store** out,
                                                    reftab_error** err);
/* Opens one table file, read only. */
REFTAB_C_EXPORT reftab_code reftab_store_open_table(const char* path, reftab_store** out,
                                                    reftab_error** err);
REFTAB_C_EXPORT void reftab_store_free(reftab_store* store);

REFTAB_C_EXPORT reftab_hash reftab_store_hash(const reftab_store* store);
REFTAB_C_EXPORT size_t reftab_store_hash_size(const reftab_store* store);

/* Reads see the files as they were when the store was opened, last refreshed, or last
 * committed to through it. Refresh picks up other writers' changes (one stat() when there
 * are none). */
REFTAB_C_EXPORT reftab_code reftab_store_refresh(reftab_store* store, reftab_error** err);

/* ---- Lookup -------------------------------------------------------------------------------- */

/* The record stored under exactly `name` (no symref following). *found = 0 if there is none.
 * `out` is a VIEW owned by the store. */
REFTAB_C_EXPORT reftab_code reftab_store_read_ref(reftab_store* store, const char* name,
                                                  reftab_ref* out, int* found, reftab_error** err);
/* Follows `name` through symrefs as git does (at most 5 names deep). *found = 1 when the chain
 * ends at a ref holding an object id; `out` is then that ref's record (out->name is the last
 * name reached). *found = 0 for a missing ref or a chain git treats as broken (too deep). */
REFTAB_C_EXPORT reftab_code reftab_store_resolve(reftab_store* store, const char* name,
                                                 reftab_ref* out, int* found, reftab_error** err);

/* The object `revision` names, read as `git rev-parse --verify --quiet` reads it: a full or
 * abbreviated id, a ref name by git's rules ("main", "origin/main"), "@", reflog selectors
 * ("main@{1}", "@{yesterday}"), "@{-N}", "[branch]@{upstream}" / "@{push}", and the suffixes
 * ~N, ^N, ^{}, ^{commit|tree|blob|tag|object}, ^{/regex}, plus ":/regex". Stores with git's
 * rules only (a repository, or a stack opened with REFTAB_OPEN_GIT_RULES); REFTAB_UNSUPPORTED
 * otherwise. *found = 1 with the id in `id_out` (room for reftab_store_hash_size() bytes) when
 * it names an object; *found = 0 when it names none — also where git's rev-parse would stop
 * (an ambiguous abbreviation, a reflog without that many entries, a branch without upstream).
 * Nothing is printed. Errors: I/O and corruption; REFTAB_INVALID_ARGUMENT for a name that
 * needs the object database where it cannot be read (no objects/, or SHA-256 without support)
 * and for paths ("<rev>:<path>"), which are not supported. */
REFTAB_C_EXPORT reftab_code reftab_store_resolve_revision(reftab_store* store, const char* revision,
                                                          uint8_t* id_out, int* found,
                                                          reftab_error** err);

/* ---- Iteration ----------------------------------------------------------------------------- */

/* Iterates over a consistent snapshot of the store, taken when the iterator is made; later
 * writes are not seen. An iterator may outlive nothing: free it before its store. */
typedef struct reftab_ref_iter reftab_ref_iter;
typedef struct reftab_log_iter reftab_log_iter;

/* Live refs whose names start with `prefix` (NULL or "" for all), in name order. */
REFTAB_C_EXPORT reftab_code reftab_ref_iter_new(reftab_store* store, const char* prefix,
                                                reftab_ref_iter** out, reftab_error** err);
/* Repositions before the first ref >= `name` (still within the prefix). */
REFTAB_C_EXPORT reftab_code reftab_ref_iter_seek(reftab_ref_iter* it, const char* name,
                                                 reftab_error** err);
/* Fills `out` (a VIEW owned by the iterator) with the next ref and sets *has = 1, or *has = 0
 * at the end. */
REFTAB_C_EXPORT reftab_code reftab_ref_iter_next(reftab_ref_iter* it, reftab_ref* out, int* has,
                                                 reftab_error** err);
REFTAB_C_EXPORT void reftab_ref_iter_free(reftab_ref_iter* it);

/* Reflog entries of refs whose names start with `prefix` (NULL or "" for all), by name, and
 * newest first within a ref. */
REFTAB_C_EXPORT reftab_code reftab_log_iter_new(reftab_store* store, const char* prefix,
                                                reftab_log_iter** out, reftab_error** err);
/* Repositions before the newest entry of the first ref >= `name`. */
REFTAB_C_EXPORT reftab_code reftab_log_iter_seek(reftab_log_iter* it, const char* name,
                                                 reftab_error** err);
REFTAB_C_EXPORT reftab_code reftab_log_iter_next(reftab_log_iter* it, reftab_log* out, int* has,
                                                 reftab_error** err);
REFTAB_C_EXPORT void reftab_log_iter_free(reftab_log_iter* it);

/* ---- Transactions -------------------------------------------------------------------------- */

/* An atomic batch of ref updates, applied as one new table per stack on commit. On a
 * repository (or a stack opened with REFTAB_OPEN_GIT_RULES) git's rules apply: names are
 * checked, updates go through symrefs, directory/file conflicts are refused, reflog entries
 * are written where git writes them, by the committer git would name (GIT_COMMITTER_*, the
 * config), with the message given in reftab_log_info. On a plain stack names are taken
 * literally, and a reflog entry is written exactly when `log` is not NULL. */
typedef struct reftab_tx reftab_tx;

enum {
  /* git rules: change the named symref itself instead of the ref it points to. */
  REFTAB_TX_NO_DEREF = 1u << 0,
  /* git rules: write a reflog entry even where core.logAllRefUpdates would not. */
  REFTAB_TX_CREATE_REFLOG = 1u << 1
};

REFTAB_C_EXPORT reftab_code reftab_tx_begin(reftab_store* store, reftab_tx** out,
                                            reftab_error** err);
/* Sets `name` to `new_value`. `old_value`: NULL (not checked), or the value the ref must hold
 * at commit (type REFTAB_VALUE_NONE: must not exist); a mismatch fails the commit with
 * REFTAB_CONFLICT. `log`: NULL or the reflog entry's details. */
REFTAB_C_EXPORT reftab_code reftab_tx_update(reftab_tx* tx, const char* name,
                                             const reftab_value* new_value,
                                             const reftab_value* old_value,
                                             const reftab_log_info* log, unsigned flags,
                                             reftab_error** err);
/* Deletes `name` and its reflog (old_value as for reftab_tx_update). */
REFTAB_C_EXPORT reftab_code reftab_tx_delete(reftab_tx* tx, const char* name,
                                             const reftab_value* old_value,
                                             const reftab_log_info* log, unsigned flags,
                                             reftab_error** err);
/* Checks at commit that `name` holds `expected` (REFTAB_VALUE_NONE: does not exist). */
REFTAB_C_EXPORT reftab_code reftab_tx_verify(reftab_tx* tx, const char* name,
                                             const reftab_value* expected, unsigned flags,
                                             reftab_error** err);
/* Applies everything or nothing. REFTAB_CONFLICT: an expected value did not match;
 * REFTAB_LOCK_HELD: another writer kept the lock past the lock timeout. A transaction is
 * committed at most once; free it afterwards in any case. */
REFTAB_C_EXPORT reftab_code reftab_tx_commit(reftab_tx* tx, reftab_error** err);
/* Releases a transaction (abandoning it if it was not committed); NULL is accepted. */
REFTAB_C_EXPORT void reftab_tx_free(reftab_tx* tx);

/* Batches (git's `update-ref --batch-updates`; git rules only, REFTAB_UNSUPPORTED on a plain
 * stack): an update that fails for a reason of its own is left out, listed as rejected, and
 * the others are committed together; what fails the whole (a bad name, two updates of one
 * ref, a lock held, I/O) still fails everything. Turn it on before the first update. */
REFTAB_C_EXPORT reftab_code reftab_tx_set_batch_updates(reftab_tx* tx, int on, reftab_error** err);

/* Why a batch rejected an update: git's per-update transaction errors. */
typedef enum reftab_reject_reason {
  REFTAB_REJECT_NAME_CONFLICT = 0,       /* a directory/file clash, or a second update of a ref */
  REFTAB_REJECT_CREATE_EXISTS = 1,       /* expected not to exist, but does */
  REFTAB_REJECT_NONEXISTENT_REF = 2,     /* expected to exist, but does not */
  REFTAB_REJECT_INCORRECT_OLD_VALUE = 3, /* exists with another value than the expected one */
  REFTAB_REJECT_INVALID_NEW_VALUE = 4,   /* the new object is missing, or not a commit */
  REFTAB_REJECT_EXPECTED_SYMREF = 5      /* an old symref target was given for a regular ref */
} reftab_reject_reason;

/* A rejected update (a VIEW into the transaction, valid until it is freed), with the values
 * as they were queued. */
typedef struct reftab_rejection {
  const char* name; /* the ref (the referent, for an update made through a symref) */
  reftab_reject_reason reason;
  const char* reason_text; /* git's words for the reason ("refname conflict") */
  const char* message;     /* git's error message for the update ("cannot lock ref ...") */
  int has_new_value;       /* 0: the update was a verify */
  reftab_value new_value;
  int has_old_value;      /* 0: the old value was not checked */
  reftab_value old_value; /* type REFTAB_VALUE_NONE: the ref had to not exist */
} reftab_rejection;

/* How many updates the batch has rejected so far: those refused when queued (a missing new
 * object), then, after reftab_tx_commit, those refused there. 0 for NULL. */
REFTAB_C_EXPORT size_t reftab_tx_rejected_count(const reftab_tx* tx);
/* The i-th rejection (0-based, in that order); REFTAB_INVALID_ARGUMENT past the count. */
REFTAB_C_EXPORT reftab_code reftab_tx_rejected(const reftab_tx* tx, size_t i, reftab_rejection* out,
                                               reftab_error** err);

/* ---- Maintenance --------------------------------------------------------------------------- */

typedef struct reftab_compact_options {
  uint64_t expire_logs_before; /* 0: keep; else drop reflog entries older than this time */
  size_t max_logs_per_ref;     /* 0: keep all; else keep the newest N entries of each ref */
} reftab_compact_options;

/* Merges every table of the store's stacks into one (options may be NULL). */
REFTAB_C_EXPORT reftab_code reftab_store_compact(reftab_store* store,
                                                 const reftab_compact_options* options,
                                                 reftab_error** err);

typedef struct reftab_verify_report {
  uint64_t tables;
  uint64_t blocks;
  uint64_t refs;
  uint64_t logs;
  uint64_t warnings; /* problems that leave data readable (e.g. an odd table name) */
} reftab_verify_report;

/* Deep structural check of every table (and of the stacks' update index ranges). The first
 * problem found fails the call with REFTAB_CORRUPTION, naming the file and offset. */
REFTAB_C_EXPORT reftab_code reftab_store_verify(reftab_store* store, reftab_verify_report* out,
                                                reftab_error** err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* REFTAB_H_ */

// Helpers for tests of the git ref store (store/git/refs/ref_store.h): the options they open it
// with, a bare reftable directory or a minimal git directory to open, and one-ref writes and
// reads through it.
#ifndef REFTAB_TESTS_TESTUTIL_GIT_STORE_UTIL_H_
#define REFTAB_TESTS_TESTUTIL_GIT_STORE_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "store/git/refs/ref_store.h"
#include "store/git/refs/ref_transaction.h"
#include "tests/testutil/store_util.h"

namespace reftab::testutil {

// No syncing (tests), and reflog messages kept exactly as given.
inline StackOptions GitStoreOptions() {
  StackOptions o;
  o.durability = Durability::kNone;
  o.write_options.exact_log_message = true;
  return o;
}

// A git ref store over the bare reftable directory `tmp`/stack.
inline std::unique_ptr<GitRefStore> OpenBareGitStore(const TempDir& tmp) {
  auto s = GitRefStore::OpenStack(tmp.Subdir("stack"), GitStoreOptions());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// A git directory `tmp`/repo.git whose [core] section ends with `core_lines`; with `objects`,
// an (empty) object database that every new id must name.
inline std::unique_ptr<GitRefStore> OpenGitDirStore(const TempDir& tmp,
                                                    const std::string& core_lines,
                                                    bool objects = false) {
  std::string g = tmp.Subdir("repo.git");
  WriteFileOrDie(g + "/config", "[core]\n\trepositoryformatversion = 1\n" + core_lines +
                                    "[extensions]\n\trefstorage = reftable\n");
  WriteFileOrDie(g + "/HEAD", "ref: refs/heads/.invalid\n");
  tmp.Subdir("repo.git/refs");
  tmp.Subdir("repo.git/reftable");
  if (objects) tmp.Subdir("repo.git/objects");
  auto s = GitRefStore::OpenRepo(g, GitStoreOptions());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// Sets `name` itself (no-deref) to `v` in one transaction.
inline Status SetRefNoDeref(GitRefStore& store, const std::string& name, const RefValue& v) {
  GitRefTransaction tx(&store);
  REFTAB_RETURN_IF_ERROR(tx.Update(name, v, std::nullopt, kGitRefNoDeref));
  return tx.Commit();
}

// What `name` holds (Absent when it does not exist).
inline RefValue ReadRefValue(GitRefStore& store, const std::string& name) {
  RefRecord r;
  bool found = false;
  EXPECT_TRUE(store.ReadRef(name, &r, &found).ok());
  return found ? RefValue::Of(r) : RefValue::Absent();
}

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_GIT_STORE_UTIL_H_

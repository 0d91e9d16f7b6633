// A GoogleTest environment that keeps the machine's and the caller's git configuration out of
// a test binary: HOME and XDG_CONFIG_HOME point into an empty temporary folder, there is no
// system config, and the GIT_* variables that name configs or repositories are unset
// (GitRepo::Open reads the process's environment as git does).
#ifndef REFTAB_TESTS_TESTUTIL_GIT_ENVIRONMENT_H_
#define REFTAB_TESTS_TESTUTIL_GIT_ENVIRONMENT_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "tests/testutil/store_util.h"

namespace reftab::testutil {

class IsolatedGitEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    home_ = std::make_unique<TempDir>("githome");
    setenv("HOME", home_->path().c_str(), 1);
    setenv("XDG_CONFIG_HOME", (home_->path() + "/xdg").c_str(), 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    for (const char* v : {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS",
                          "GIT_CONFIG_COUNT", "GIT_DIR", "GIT_COMMON_DIR", "GIT_CONFIG"}) {
      unsetenv(v);
    }
  }
  void TearDown() override { home_.reset(); }

 private:
  std::unique_ptr<TempDir> home_;
};

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_GIT_ENVIRONMENT_H_

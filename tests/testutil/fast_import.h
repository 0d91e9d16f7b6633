// Histories for tests, written as `git fast-import` input: a commit per mark, with a file
// whose content names the mark, so that every commit and tree is distinct.
#ifndef REFTAB_TESTS_TESTUTIL_FAST_IMPORT_H_
#define REFTAB_TESTS_TESTUTIL_FAST_IMPORT_H_

#include <string>
#include <vector>

namespace reftab::testutil {

// fast-import's "data" command.
inline std::string FastImportData(const std::string& s) {
  return "data " + std::to_string(s.size()) + "\n" + s;
}

// A commit on `branch` with the given mark; `parents` by mark, the first one "from". Author
// and committer date: 1700000000 + `time`, +0100.
inline std::string FastImportCommit(const std::string& branch, int mark, std::vector<int> parents,
                                    int time) {
  std::string when = std::to_string(1700000000 + time) + " +0100";
  std::string s = "commit refs/heads/" + branch + "\nmark :" + std::to_string(mark) +
                  "\nauthor A <a@x> " + when + "\ncommitter C <c@x> " + when + "\n" +
                  FastImportData("commit " + std::to_string(mark) + "\n\nbody\n");
  for (size_t i = 0; i < parents.size(); ++i) {
    s += (i == 0 ? "from :" : "merge :") + std::to_string(parents[i]) + "\n";
  }
  return s + "M 100644 inline f\n" + FastImportData("file of " + std::to_string(mark) + "\n") +
         "\n";
}

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_FAST_IMPORT_H_

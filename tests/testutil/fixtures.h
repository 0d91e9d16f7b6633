// Locating ../shared/fixtures and reading files from it.
#ifndef REFTAB_TESTS_TESTUTIL_FIXTURES_H_
#define REFTAB_TESTS_TESTUTIL_FIXTURES_H_

#include <string>
#include <vector>

namespace reftab::testutil {

// $REFTAB_FIXTURES, or ../shared/fixtures relative to the source tree.
std::string FixturesDir();
// Reads a whole file; a name ending in .gz is decompressed. Fails the test if unreadable.
std::string ReadFileOrDie(const std::string& path);
bool FileExists(const std::string& path);
// Files below `dir` (recursively) whose path ends with `suffix`, sorted.
std::vector<std::string> FindFiles(const std::string& dir, const std::string& suffix);

}  // namespace reftab::testutil

#endif  // REFTAB_TESTS_TESTUTIL_FIXTURES_H_

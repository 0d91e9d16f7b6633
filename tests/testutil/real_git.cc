#include "tests/testutil/real_git.h"

#include "tests/testutil/process.h"

namespace reftab::testutil {

int RunProgram(const std::string& program, const std::vector<std::string>& args,
               const std::string& home, const std::string& input, std::string* output) {
  testing::ProcessOptions options;
  options.input = input;
  options.env = {
      {"GIT_CONFIG_NOSYSTEM", "1"}, {"HOME", home}, {"XDG_CONFIG_HOME", home + "/.config"}};
  for (const std::string who : {"COMMITTER", "AUTHOR"}) {
    options.env["GIT_" + who + "_NAME"] = "C O Mitter";
    options.env["GIT_" + who + "_EMAIL"] = "committer@example.com";
    options.env["GIT_" + who + "_DATE"] = "1700000000 +0000";
  }
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::ProcessResult r = testing::RunProcess(argv, options);
  if (output) *output = r.out + r.err;
  return r.exit_code;
}

}  // namespace reftab::testutil

// store/git/signature.h and run_program.h: how a signed commit splits into payload and
// signature, how gpg's status lines become git's verdict, and a whole check run against a
// stand-in verifier script (so these tests need no gpg). The real gpg is compared with git in
// tests/cli/git_compare_for_each_ref.sh.
#include "store/git/signature.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "store/git/run_program.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

const std::string kSigned =
    "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
    "author A <a@example.com> 1700000000 +0000\n"
    "committer C <c@example.com> 1700000000 +0000\n"
    "gpgsig -----BEGIN PGP SIGNATURE-----\n"
    " \n"
    " abc\n"
    " -----END PGP SIGNATURE-----\n"
    "gpgsig-sha256 -----BEGIN PGP SIGNATURE-----\n"
    " def\n"
    " -----END PGP SIGNATURE-----\n"
    "\n"
    "subject\n"
    "gpgsig in the message stays\n";

const std::string kHeaders =
    "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
    "author A <a@example.com> 1700000000 +0000\n"
    "committer C <c@example.com> 1700000000 +0000\n";
const std::string kMessage = "\nsubject\ngpgsig in the message stays\n";

TEST(SplitSignedCommit, TakesTheHeaderOfTheHashAndDropsTheOther) {
  std::string payload, signature;
  ASSERT_TRUE(SplitSignedCommit(kSigned, 20, &payload, &signature));
  EXPECT_EQ(signature, "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n");
  EXPECT_EQ(payload, kHeaders + kMessage);
  ASSERT_TRUE(SplitSignedCommit(kSigned, 32, &payload, &signature));
  EXPECT_EQ(signature, "-----BEGIN PGP SIGNATURE-----\ndef\n-----END PGP SIGNATURE-----\n");
  EXPECT_EQ(payload, kHeaders + kMessage);
}

TEST(SplitSignedCommit, UnsignedCommitHasNone) {
  std::string payload, signature;
  EXPECT_FALSE(SplitSignedCommit(kHeaders + kMessage, 20, &payload, &signature));
  EXPECT_FALSE(SplitSignedCommit("", 20, &payload, &signature));
  EXPECT_FALSE(SplitSignedCommit("gpgsig\n", 20, &payload, &signature));  // no value
}

TEST(ParseGpgStatus, GoodSignatureWithFingerprintsAndTrust) {
  GitSignatureCheck c;
  ParseGpgStatus(
      "[GNUPG:] NEWSIG\n"
      "[GNUPG:] GOODSIG 1D0B151407F296DB Signer <s@example.com>\n"
      "[GNUPG:] VALIDSIG C614 2026-12-05 1796467563 0 4 0 22 8 00 P1D0B\n"
      "[GNUPG:] TRUST_ULTIMATE 0 pgp\n",
      &c);
  EXPECT_EQ(c.result, 'G');
  EXPECT_EQ(c.key, "1D0B151407F296DB");
  EXPECT_EQ(c.signer, "Signer <s@example.com>");
  EXPECT_EQ(c.fingerprint, "C614");
  EXPECT_EQ(c.primary_key_fingerprint, "P1D0B");
  EXPECT_EQ(c.trust_level, GitTrustLevel::kUltimate);
  EXPECT_EQ(GitSignatureGrade(c), 'G');
  EXPECT_EQ(GitTrustLevelName(c.trust_level), "ultimate");
}

TEST(ParseGpgStatus, UntrustedKeyGradesU) {
  GitSignatureCheck c;
  ParseGpgStatus("[GNUPG:] GOODSIG K S\n[GNUPG:] TRUST_UNDEFINED 0 pgp\n", &c);
  EXPECT_EQ(GitSignatureGrade(c), 'U');
  c = GitSignatureCheck();
  ParseGpgStatus("[GNUPG:] GOODSIG K S\n[GNUPG:] TRUST_NEVER\n", &c);
  EXPECT_EQ(GitSignatureGrade(c), 'U');
  c = GitSignatureCheck();
  ParseGpgStatus("[GNUPG:] GOODSIG K S\n[GNUPG:] TRUST_MARGINAL\n", &c);
  EXPECT_EQ(GitSignatureGrade(c), 'G');
}

TEST(ParseGpgStatus, VerdictsOtherThanGood) {
  for (auto [line, grade] : {std::pair<const char*, char>{"BADSIG K S", 'B'},
                             {"EXPSIG K S", 'X'},
                             {"EXPKEYSIG K S", 'Y'},
                             {"REVKEYSIG K S", 'R'},
                             {"ERRSIG K 22 8 00 1700000000 9 F", 'E'}}) {
    GitSignatureCheck c;
    ParseGpgStatus(std::string("[GNUPG:] ") + line + "\n", &c);
    EXPECT_EQ(GitSignatureGrade(c), grade) << line;
    EXPECT_EQ(c.key, "K") << line;
    EXPECT_EQ(c.signer, grade == 'E' ? "" : "S") << line;
  }
}

TEST(ParseGpgStatus, TwoVerdictsOrAnUnknownTrustAreAnError) {
  GitSignatureCheck c;
  ParseGpgStatus(
      "[GNUPG:] GOODSIG K S\n[GNUPG:] VALIDSIG F a b c d e f g h P\n[GNUPG:] GOODSIG L T\n", &c);
  EXPECT_EQ(c.result, 'E');
  EXPECT_EQ(c.key, "");
  EXPECT_EQ(c.signer, "");
  EXPECT_EQ(c.fingerprint, "");
  EXPECT_EQ(c.primary_key_fingerprint, "");
  c = GitSignatureCheck();
  ParseGpgStatus("[GNUPG:] GOODSIG K S\n[GNUPG:] TRUST_SOMEWHAT\n", &c);
  EXPECT_EQ(c.result, 'E');
}

TEST(ParseGpgStatus, IgnoresOtherLinesAndNoise) {
  GitSignatureCheck c;
  ParseGpgStatus("gpg: hello\n\n\n[GNUPG:] KEY_CONSIDERED X\nGOODSIG K S\n[GNUPG:] GOODSIG", &c);
  EXPECT_EQ(c.result, 'N');
  ParseGpgStatus("", &c);
  EXPECT_EQ(c.result, 'N');
}

class CheckCommitSignatureTest : public ::testing::Test {
 protected:
  // A stand-in for gpg: checks its arguments, copies its input to stderr, prints `status`.
  std::string Verifier(const std::string& status) {
    std::string path = dir_.path() + "/verifier";
    std::ofstream(path) << "#!/bin/sh\n"
                           "[ \"$1 $2 $3 $5\" = \"--keyid-format=long --status-fd=1 --verify -\" ]"
                           " || exit 2\n"
                           "[ \"$(cat \"$4\")\" = \"$(printf -- '-----BEGIN PGP SIGNATURE-----\\n"
                           "\\nabc\\n-----END PGP SIGNATURE-----')\" ] || exit 3\n"
                           "cat >&2\n"
                           "printf '%s' '"
                        << status << "'\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  static GitConfig Program(const std::string& path) {
    return GitConfig::Parse("[gpg]\n program = " + path + "\n");
  }
  TempDir dir_{"signature"};
};

TEST_F(CheckCommitSignatureTest, RunsTheVerifierOnPayloadAndSignature) {
  GitConfig config = Program(Verifier("[GNUPG:] GOODSIG K S\n[GNUPG:] TRUST_FULLY 0 pgp\n"));
  GitSignatureCheck c;
  ASSERT_TRUE(CheckCommitSignature(kSigned, 20, config, &c).ok());
  EXPECT_EQ(c.output, kHeaders + kMessage);  // the payload, echoed on stderr
  EXPECT_EQ(GitSignatureGrade(c), 'G');
  EXPECT_EQ(c.trust_level, GitTrustLevel::kFully);
  EXPECT_EQ(c.diagnostics, "");
}

TEST_F(CheckCommitSignatureTest, UnsignedOrNoCommitterRunsNothing) {
  GitConfig config = Program("/nonexistent/gpg");
  GitSignatureCheck c;
  ASSERT_TRUE(CheckCommitSignature(kHeaders + kMessage, 20, config, &c).ok());
  EXPECT_EQ(c.result, 'N');
  std::string no_committer = kSigned;
  no_committer.replace(no_committer.find("committer C <c@example.com>"), 27, "committer C");
  ASSERT_TRUE(CheckCommitSignature(no_committer, 20, config, &c).ok());
  EXPECT_EQ(c.result, 'N');
  EXPECT_EQ(c.diagnostics, "");
}

TEST_F(CheckCommitSignatureTest, MissingVerifierIsGitsMessage) {
  GitSignatureCheck c;
  ASSERT_TRUE(CheckCommitSignature(kSigned, 20, Program("/nonexistent/gpg"), &c).ok());
  EXPECT_EQ(c.result, 'N');
  EXPECT_EQ(c.diagnostics, "fatal: cannot exec '/nonexistent/gpg': No such file or directory\n");
  ASSERT_TRUE(CheckCommitSignature(kSigned, 20, Program("reftab-no-such-verifier"), &c).ok());
  EXPECT_EQ(c.diagnostics,
            "error: cannot run reftab-no-such-verifier: No such file or directory\n");
}

TEST_F(CheckCommitSignatureTest, OtherFormats) {
  std::string ssh = kSigned, unknown = kSigned;
  ssh.replace(ssh.find("BEGIN PGP"), 9, "BEGIN SSH");
  unknown.replace(unknown.find("BEGIN PGP"), 9, "BEGIN FOO");
  GitConfig config;
  GitSignatureCheck c;
  ASSERT_TRUE(CheckCommitSignature(ssh, 20, config, &c).ok());
  EXPECT_EQ(c.result, 'N');
  EXPECT_NE(c.diagnostics.find("gpg.ssh.allowedSignersFile needs to be configured"),
            std::string::npos);
  config = GitConfig::Parse("[gpg \"ssh\"]\n allowedSignersFile = /some/file\n");
  ASSERT_TRUE(CheckCommitSignature(ssh, 20, config, &c).ok());
  EXPECT_NE(c.unverified, "");
  Status s = CheckCommitSignature(unknown, 20, config, &c);
  EXPECT_EQ(s.message(),
            "bad/incompatible signature '-----BEGIN FOO SIGNATURE-----\n\nabc\n"
            "-----END PGP SIGNATURE-----\n'");
}

TEST(ReadSignatureConfig, LaterProgramWinsAndHomeExpands) {
  GitConfig config = GitConfig::Parse(
      "[gpg]\n program = first\n[gpg \"openpgp\"]\n program = ~/bin/gpg\n"
      "[gpg \"x509\"]\n program = sm\n[gpg \"ssh\"]\n allowedSignersFile = signers\n");
  std::string error;
  Result<GitSignatureConfig> read = ReadSignatureConfig(config, &error);
  ASSERT_TRUE(read.ok());
  const GitSignatureConfig& c = read.value();
  const char* home = getenv("HOME");
  EXPECT_EQ(c.openpgp_program, std::string(home ? home : "~") + "/bin/gpg");
  EXPECT_EQ(c.x509_program, "sm");
  EXPECT_EQ(c.ssh_allowed_signers, "signers");
}

TEST(ReadSignatureConfig, RefusesWhatGitRefuses) {
  std::string error;
  GitConfig bad_format = GitConfig::Parse("[gpg]\n format = bogus\n");
  EXPECT_FALSE(ReadSignatureConfig(bad_format, &error).ok());
  EXPECT_EQ(error, "invalid value for 'gpg.format': 'bogus'");
  EXPECT_TRUE(
      ReadSignatureConfig(GitConfig::Parse("[gpg]\n minTrustLevel = Fully\n"), &error).ok());
  EXPECT_FALSE(
      ReadSignatureConfig(GitConfig::Parse("[gpg]\n minTrustLevel = much\n"), &error).ok());
  EXPECT_EQ(error, "invalid value for 'gpg.mintrustlevel': 'much'");
  Status s = ReadSignatureConfig(GitConfig::Parse("[gpg]\n program\n"), &error).status();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(error, "missing value for 'gpg.program'");
  // Unsigned commits read no config, so bad config is no error for them.
  GitSignatureCheck c;
  EXPECT_TRUE(CheckCommitSignature(kHeaders + kMessage, 20, bad_format, &c).ok());
  EXPECT_FALSE(CheckCommitSignature(kSigned, 20, bad_format, &c).ok());
  EXPECT_EQ(c.diagnostics, "error: invalid value for 'gpg.format': 'bogus'\n");
}

TEST(RunProgram, FeedsLargeInputWhileReadingOutput) {
  std::string input(3 << 20, 'x');
  ProgramRun run;
  ASSERT_TRUE(RunProgram({"cat"}, input, &run).ok());
  EXPECT_TRUE(run.started);
  EXPECT_EQ(run.out.size(), input.size());
  EXPECT_EQ(run.exit_code, 0);
}

TEST_F(CheckCommitSignatureTest, ScriptWithoutInterpreterLineRunsUnderSh) {
  std::string path = dir_.path() + "/plain-script";
  std::ofstream(path) << "cat >/dev/null\necho '[GNUPG:] BADSIG K S'\n";
  chmod(path.c_str(), 0755);
  GitSignatureCheck c;
  ASSERT_TRUE(CheckCommitSignature(kSigned, 20, Program(path), &c).ok());
  EXPECT_EQ(c.result, 'B');
  EXPECT_EQ(c.diagnostics, "");
}

TEST(RunProgram, ProgramThatReadsNothingDoesNotKillTheCaller) {
  ProgramRun run;
  ASSERT_TRUE(
      RunProgram({"sh", "-c", "echo out; echo err >&2; exit 3"}, std::string(1 << 20, 'x'), &run)
          .ok());
  EXPECT_EQ(run.out, "out\n");
  EXPECT_EQ(run.err, "err\n");
  EXPECT_EQ(run.exit_code, 3);
}

}  // namespace
}  // namespace reftab

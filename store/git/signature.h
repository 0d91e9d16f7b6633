// Public API: verifying a signed commit as git's for-each-ref %(signature...) does. The
// signature is the commit's "gpgsig" header ("gpgsig-sha256" in a SHA-256 repository); the
// rest of the commit is the signed payload. OpenPGP and X.509 signatures are checked by
// running gpg (gpgsm) on them and reading its [GNUPG:] status lines; SSH signatures are not
// verified here.
#ifndef REFTAB_STORE_GIT_SIGNATURE_H_
#define REFTAB_STORE_GIT_SIGNATURE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// gpg's trust in the signing key, in gpg's order (a higher value trusts more).
enum class GitTrustLevel : uint8_t { kUndefined, kNever, kMarginal, kFully, kUltimate };

// "undefined", "never", "marginal", "fully", "ultimate": %(signature:trustlevel).
std::string_view GitTrustLevelName(GitTrustLevel level);

// The programs git runs to verify each signature format: gpg.program (or
// gpg.openpgp.program, the later one wins), gpg.x509.program, gpg.ssh.program, with "~/"
// expanded from $HOME; and gpg.ssh.allowedSignersFile, which SSH verification needs.
// git reads this config only to check a signature, and then refuses a valueless entry of
// these keys (or of user.signingKey, gpg.format, gpg.minTrustLevel, gpg.ssh.defaultKeyCommand,
// gpg.ssh.revocationFile) and an unknown gpg.format or gpg.minTrustLevel: `error` is then its
// "error:" line ("invalid value for 'gpg.format': 'bogus'") and the status its fatal message.
struct GitSignatureConfig {
  std::string openpgp_program = "gpg";
  std::string x509_program = "gpgsm";
  std::string ssh_program = "ssh-keygen";
  std::string ssh_allowed_signers;  // "" when unset
};
Result<GitSignatureConfig> ReadSignatureConfig(const GitConfig& config, std::string* error);

// The outcome of one verification, as git's signature_check holds it.
struct GitSignatureCheck {
  // 'G' good, 'B' bad, 'U' good but of a key not trusted (only from Grade), 'X' good but
  // expired, 'Y' good by an expired key, 'R' good by a revoked key, 'E' not checkable
  // (missing key, or several signatures), 'N' no signature or no verdict.
  char result = 'N';
  GitTrustLevel trust_level = GitTrustLevel::kUndefined;
  std::string output;  // the verifier's human-readable report (its standard error)
  std::string signer, key, fingerprint, primary_key_fingerprint;
  // What git prints on its own standard error during the check, each line with its
  // prefix and newline, e.g. "error: cannot run gpg: No such file or directory\n".
  std::string diagnostics;
  // Why the signature was not checked although git would check it (an SSH signature with
  // gpg.ssh.allowedSignersFile set); "" otherwise. The other fields are then meaningless.
  std::string unverified;
};

// %(signature:grade): the result, with a good signature by an untrusted key (trust level
// undefined or never) graded 'U'.
char GitSignatureGrade(const GitSignatureCheck& check);

// Splits a commit object's text into the signed payload (the commit without its signature
// header; without other formats' "gpgsig*" headers either) and the signature (the header's
// value with continuation lines unfolded). `hash_size` (20 or 32) picks "gpgsig" or
// "gpgsig-sha256". False when the commit has no such header.
bool SplitSignedCommit(std::string_view commit, size_t hash_size, std::string* payload,
                       std::string* signature);

// Reads gpg's --status-fd output into `check` (result, key, signer, fingerprints, trust);
// more than one signature verdict makes the result 'E' with the key fields cleared.
void ParseGpgStatus(std::string_view status, GitSignatureCheck* check);

// Verifies the commit `commit` (its object text) as git does: no signature, or a payload
// without a committer, leaves the result 'N' without running anything; otherwise the
// program for the signature's format (ReadSignatureConfig of `config`) verifies it. A program
// that cannot run leaves 'N' and a diagnostic. Fails with git's fatal message for config
// ReadSignatureConfig refuses (its "error:" line in check->diagnostics), for a signature of
// no known format ("bad/incompatible signature '<signature>'"), and where the system fails
// (temporary file, pipes).
Status CheckCommitSignature(std::string_view commit, size_t hash_size, const GitConfig& config,
                            GitSignatureCheck* check);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_SIGNATURE_H_

#include "store/git/signature.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <vector>

#include "store/git/run_program.h"

namespace reftab {
namespace {

constexpr std::array<std::string_view, 5> kTrustNames = {"undefined", "never", "marginal", "fully",
                                                         "ultimate"};

enum class SigFormat : uint8_t { kOpenPgp, kX509, kSsh, kUnknown };

// The format is told by the signature's first line, whatever gpg.format says.
SigFormat FormatOf(std::string_view signature) {
  auto starts = [&](std::string_view p) { return signature.substr(0, p.size()) == p; };
  if (starts("-----BEGIN PGP SIGNATURE-----") || starts("-----BEGIN PGP MESSAGE-----")) {
    return SigFormat::kOpenPgp;
  }
  if (starts("-----BEGIN SIGNED MESSAGE-----")) return SigFormat::kX509;
  if (starts("-----BEGIN SSH SIGNATURE-----")) return SigFormat::kSsh;
  return SigFormat::kUnknown;
}

// git_config_pathname's "~/" (and a bare "~"): the user's home directory.
std::string ExpandHome(const std::string& path) {
  if (path != "~" && path.rfind("~/", 0) != 0) return path;
  const char* home = getenv("HOME");
  if (home == nullptr) return path;
  return std::string(home) + path.substr(1);
}

// git refuses to verify a payload whose committer line does not split into a name and a
// "<mail>" (parse_payload_metadata).
bool HasCommitter(std::string_view payload) {
  constexpr std::string_view kKey = "committer ";
  size_t pos = 0;
  while (pos < payload.size()) {
    size_t eol = payload.find('\n', pos);
    if (eol == std::string_view::npos) eol = payload.size();
    if (eol == pos) return false;  // end of the headers
    std::string_view line = payload.substr(pos, eol - pos);
    if (line.size() > kKey.size() && line.substr(0, kKey.size()) == kKey) {
      std::string_view ident = line.substr(kKey.size());
      size_t lt = ident.find('<');
      return lt != std::string_view::npos && ident.find('>', lt + 1) != std::string_view::npos;
    }
    pos = eol + 1;
  }
  return false;
}

// The kinds of [GNUPG:] status lines git reads, in the order it tries them.
struct StatusKind {
  char result;  // 0: leaves the result alone
  std::string_view word;
  bool exclusive;    // a signature verdict: at most one per check
  bool key;          // the key id follows
  bool uid;          // then the signer's user id
  bool fingerprint;  // VALIDSIG's fingerprints
  bool trust;        // TRUST_<LEVEL>
};
constexpr std::array<StatusKind, 8> kStatusKinds = {{
    {'G', "GOODSIG ", true, true, true, false, false},
    {'B', "BADSIG ", true, true, true, false, false},
    {'E', "ERRSIG ", true, true, false, false, false},
    {'X', "EXPSIG ", true, true, true, false, false},
    {'Y', "EXPKEYSIG ", true, true, true, false, false},
    {'R', "REVKEYSIG ", true, true, true, false, false},
    {0, "VALIDSIG ", false, false, false, true, false},
    {0, "TRUST_", false, false, false, false, true},
}};

// Index of the first `c` at or after `from`, or the end of `s` (strchrnul).
size_t FindOrEnd(std::string_view s, size_t from, char c) {
  size_t at = s.find(c, from);
  return at == std::string_view::npos ? s.size() : at;
}

bool ParseTrust(std::string_view word, GitTrustLevel* level) {
  constexpr std::array<std::string_view, 5> kWords = {"UNDEFINED", "NEVER", "MARGINAL", "FULLY",
                                                      "ULTIMATE"};
  for (size_t i = 0; i < kWords.size(); ++i) {
    if (kWords[i] == word) {
      *level = static_cast<GitTrustLevel>(i);
      return true;
    }
  }
  return false;
}

// Handles the status line whose text (after "[GNUPG:] ") starts at `at`; fields are read as
// git reads them, up to the next space even where that lies on a later line. Returns the
// position from which the next line is searched, or npos when the status is unusable.
size_t ParseStatusLine(std::string_view s, size_t at, int* verdicts, GitSignatureCheck* check) {
  for (const StatusKind& kind : kStatusKinds) {
    if (s.substr(at, kind.word.size()) != kind.word) continue;
    at += kind.word.size();
    if (kind.exclusive && (*verdicts)++ > 0) return std::string_view::npos;
    if (kind.result != 0) check->result = kind.result;
    if (kind.key) {
      size_t next = FindOrEnd(s, at, ' ');
      check->key = std::string(s.substr(at, next - at));
      if (next < s.size() && kind.uid) {
        at = next + 1;
        next = FindOrEnd(s, at, '\n');
        check->signer = std::string(s.substr(at, next - at));
      }
    }
    if (kind.trust) {
      size_t end = s.find_first_of(" \n", at);
      if (end == std::string_view::npos) end = s.size();
      if (!ParseTrust(s.substr(at, end - at), &check->trust_level)) return std::string_view::npos;
    }
    if (kind.fingerprint) {
      size_t next = FindOrEnd(s, at, ' ');
      check->fingerprint = std::string(s.substr(at, next - at));
      // The primary key's fingerprint is the tenth field, on the same line (OpenPGP only).
      size_t limit = FindOrEnd(s, at, '\n');
      int fields = 9;
      for (; fields > 0; --fields) {
        if (next >= s.size() || limit <= next) break;
        at = next + 1;
        next = FindOrEnd(s, at, ' ');
      }
      check->primary_key_fingerprint.clear();
      if (fields == 0) {
        next = FindOrEnd(s, at, '\n');
        check->primary_key_fingerprint = std::string(s.substr(at, next - at));
      }
    }
    break;
  }
  return at;
}

Status WriteTempFile(std::string_view data, std::string* path) {
  const char* dir = getenv("TMPDIR");
  *path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/.git_vtag_tmpXXXXXX";
  int fd = mkstemp(path->data());
  if (fd < 0)
    return Status::IoError(std::string("could not create temporary file: ") + strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      std::string message =
          "failed writing detached signature to '" + *path + "': " + strerror(errno);
      close(fd);
      unlink(path->c_str());
      return Status::IoError(message);
    }
    done += static_cast<size_t>(w);
  }
  if (close(fd) != 0) {
    unlink(path->c_str());
    return Status::IoError("failed writing detached signature to '" + *path + "'");
  }
  return Status::Ok();
}

}  // namespace

std::string_view GitTrustLevelName(GitTrustLevel level) {
  return kTrustNames.at(static_cast<size_t>(level));
}

Result<GitSignatureConfig> ReadSignatureConfig(const GitConfig& config, std::string* error) {
  error->clear();
  GitSignatureConfig out;
  for (const ConfigEntry& e : config.entries()) {
    std::string* path = nullptr;
    if (e.key == "gpg.program" || e.key == "gpg.openpgp.program") {
      path = &out.openpgp_program;
    } else if (e.key == "gpg.x509.program") {
      path = &out.x509_program;
    } else if (e.key == "gpg.ssh.program") {
      path = &out.ssh_program;
    } else if (e.key == "gpg.ssh.allowedsignersfile") {
      path = &out.ssh_allowed_signers;
    } else if (e.key != "user.signingkey" && e.key != "gpg.format" &&
               e.key != "gpg.mintrustlevel" && e.key != "gpg.ssh.defaultkeycommand" &&
               e.key != "gpg.ssh.revocationfile") {
      continue;
    }
    if (!e.value) {
      *error = "missing value for '" + e.key + "'";
      return Status::InvalidArgument(BadConfigVariable(e));
    }
    if (path != nullptr) {
      *path = ExpandHome(*e.value);
      continue;
    }
    bool valid = true;
    if (e.key == "gpg.format") {
      valid = *e.value == "openpgp" || *e.value == "x509" || *e.value == "ssh";
    } else if (e.key == "gpg.mintrustlevel") {
      std::string upper = *e.value;
      for (char& c : upper) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
      GitTrustLevel ignored;  // it only decides git's exit status, which for-each-ref ignores
      valid = ParseTrust(upper, &ignored);
    }
    if (!valid) {
      *error = "invalid value for '" + e.key + "': '" + *e.value + "'";
      return Status::InvalidArgument(BadConfigVariable(e));
    }
  }
  return out;
}

char GitSignatureGrade(const GitSignatureCheck& check) {
  if (check.result == 'G' && check.trust_level <= GitTrustLevel::kNever) return 'U';
  return check.result;
}

bool SplitSignedCommit(std::string_view commit, size_t hash_size, std::string* payload,
                       std::string* signature) {
  const std::string_view header = hash_size == 32 ? "gpgsig-sha256" : "gpgsig";
  payload->clear();
  signature->clear();
  bool in_signature = false, saw_signature = false, other_signature = false;
  size_t pos = 0;
  while (pos < commit.size()) {
    size_t next = commit.find('\n', pos);
    next = next == std::string_view::npos ? commit.size() : next + 1;
    std::string_view line = commit.substr(pos, next - pos);
    size_t sig_at = std::string_view::npos;
    if (in_signature && line[0] == ' ') {
      sig_at = 1;
    } else if (line.substr(0, header.size()) == header && line.size() > header.size() &&
               line[header.size()] == ' ') {
      sig_at = header.size() + 1;
      other_signature = false;
    } else if (line.substr(0, 6) == "gpgsig") {
      other_signature = true;  // the other hash's signature: neither payload nor ours
    } else if (other_signature && line[0] != ' ') {
      other_signature = false;
    }
    if (sig_at != std::string_view::npos) {
      signature->append(line.substr(sig_at));
      saw_signature = in_signature = true;
    } else {
      if (line[0] == '\n') next = commit.size();  // the message: all of it is payload
      if (!other_signature) payload->append(commit.substr(pos, next - pos));
      in_signature = false;
    }
    pos = next;
  }
  return saw_signature;
}

void ParseGpgStatus(std::string_view status, GitSignatureCheck* check) {
  status = status.substr(0, status.find('\0'));  // git reads it as a C string
  constexpr std::string_view kPrefix = "[GNUPG:] ";
  int verdicts = 0;
  size_t line = 0;
  while (line < status.size()) {
    while (line < status.size() && status[line] == '\n') ++line;
    if (line >= status.size()) break;
    size_t at = line;
    if (status.substr(at, kPrefix.size()) == kPrefix) {
      at = ParseStatusLine(status, at + kPrefix.size(), &verdicts, check);
      if (at == std::string_view::npos) {
        check->result = 'E';
        check->primary_key_fingerprint.clear();
        check->fingerprint.clear();
        check->signer.clear();
        check->key.clear();
        return;
      }
    }
    line = at + 1 >= status.size() ? status.size() : FindOrEnd(status, at + 1, '\n');
  }
}

Status CheckCommitSignature(std::string_view commit, size_t hash_size, const GitConfig& git_config,
                            GitSignatureCheck* check) {
  *check = GitSignatureCheck();
  std::string payload, signature;
  if (!SplitSignedCommit(commit, hash_size, &payload, &signature)) return Status::Ok();
  std::string config_error;
  Result<GitSignatureConfig> read = ReadSignatureConfig(git_config, &config_error);
  if (!read.ok()) {
    check->diagnostics = "error: " + config_error + "\n";
    return read.status();
  }
  const GitSignatureConfig& config = read.value();
  SigFormat format = FormatOf(signature);
  if (format == SigFormat::kUnknown) {
    return Status::InvalidArgument("bad/incompatible signature '" + signature + "'");
  }
  if (!HasCommitter(payload)) return Status::Ok();
  if (format == SigFormat::kSsh) {
    if (config.ssh_allowed_signers.empty()) {
      check->diagnostics =
          "error: gpg.ssh.allowedSignersFile needs to be configured and exist for ssh signature "
          "verification\n";
      return Status::Ok();
    }
    check->unverified = "SSH signatures are not verified (that needs ssh-keygen -Y)";
    return Status::Ok();
  }
  std::string sig_file;
  REFTAB_RETURN_IF_ERROR(WriteTempFile(signature, &sig_file));
  std::vector<std::string> args;
  if (format == SigFormat::kOpenPgp) {
    args = {config.openpgp_program, "--keyid-format=long"};
  } else {
    args = {config.x509_program};
  }
  args.insert(args.end(), {"--status-fd=1", "--verify", sig_file, "-"});
  ProgramRun run;
  Status ran = RunProgram(args, payload, &run);
  unlink(sig_file.c_str());
  REFTAB_RETURN_IF_ERROR(ran);
  check->diagnostics = std::move(run.start_error);
  check->output = std::move(run.err);
  ParseGpgStatus(run.out, check);
  return Status::Ok();
}

}  // namespace reftab

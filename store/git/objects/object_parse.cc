#include "store/git/objects/object_parse.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace reftab {
namespace {

// Signature blocks git recognises at the start of a line (OpenPGP, X.509, SSH).
constexpr std::string_view kSignatureStarts[] = {
    "-----BEGIN PGP SIGNATURE-----",
    "-----BEGIN PGP MESSAGE-----",
    "-----BEGIN SIGNED MESSAGE-----",
    "-----BEGIN SSH SIGNATURE-----",
};

// One header: its key, and its value with continuation lines unfolded.
struct Header {
  std::string_view key;
  std::string value;
};

// Splits the header block (up to the first empty line) into headers and returns where the
// message starts (content.size() when there is no empty line).
size_t ReadHeaders(std::string_view content, std::vector<Header>* headers) {
  size_t pos = 0;
  while (pos < content.size() && content[pos] != '\n') {
    size_t nl = content.find('\n', pos);
    if (nl == std::string_view::npos) nl = content.size();
    std::string_view line = content.substr(pos, nl - pos);
    pos = nl + 1;
    if (line[0] == ' ' && !headers->empty()) {
      headers->back().value.append("\n").append(line.substr(1));
      continue;
    }
    size_t sp = line.find(' ');
    std::string_view key = line.substr(0, sp);
    std::string_view value = sp == std::string_view::npos ? "" : line.substr(sp + 1);
    headers->push_back({key, std::string(value)});
  }
  return pos < content.size() ? pos + 1 : content.size();
}

bool ParseLowerHexId(std::string_view hex, size_t hash_size, ObjectId* id) {
  if (hex.size() != 2 * hash_size) return false;
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return ParseHexId(hex, hash_size, id);
}

// Parses an unsigned decimal at the start of `s` as strtoumax would (after blanks); false
// when there are no digits or it overflows.
bool ParseDecimal(std::string_view s, uint64_t* v, size_t* used) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  size_t start = i;
  uint64_t n = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    uint64_t d = uint64_t(s[i] - '0');
    if (n > (UINT64_MAX - d) / 10) return false;
    n = n * 10 + d;
  }
  if (i == start) return false;
  *v = n;
  *used = i;
  return true;
}

// The zone after the timestamp, as strtol reads it: blanks, a sign, digits; 0 when none.
int ParseZone(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  bool negative = i < s.size() && s[i] == '-';
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  long n = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (n > (INT_MAX - 9) / 10) return negative ? INT_MIN : INT_MAX;
    n = n * 10 + (s[i] - '0');
  }
  return int(negative ? -n : n);
}

}  // namespace

GitPerson ParsePerson(std::string_view value) {
  GitPerson p;
  p.line = std::string(value);
  size_t name_end = value.find(" <");
  if (name_end != std::string_view::npos) p.name = std::string(value.substr(0, name_end));
  size_t lt = value.find('<');
  if (lt != std::string_view::npos) {
    size_t gt = value.find('>', lt);
    if (gt != std::string_view::npos) p.email = std::string(value.substr(lt, gt - lt + 1));
  }
  size_t date = value.find("> ");
  uint64_t ts = 0;
  size_t used = 0;
  if (date != std::string_view::npos && ParseDecimal(value.substr(date + 2), &ts, &used)) {
    p.has_date = true;
    p.timestamp = ts;
    p.tz = ParseZone(value.substr(date + 2 + used));
  }
  return p;
}

Status ParseCommit(std::string_view content, size_t hash_size, GitCommit* out) {
  *out = GitCommit();
  std::vector<Header> headers;
  size_t message = ReadHeaders(content, &headers);
  if (headers.empty() || headers[0].key != "tree" ||
      !ParseLowerHexId(headers[0].value, hash_size, &out->tree)) {
    return Status::Corruption("commit object has no valid tree line");
  }
  for (size_t i = 1; i < headers.size(); ++i) {
    const Header& h = headers[i];
    if (h.key == "parent") {
      ObjectId parent{};
      if (!ParseLowerHexId(h.value, hash_size, &parent)) {
        return Status::Corruption("commit object has a bad parent line");
      }
      out->parents.push_back(parent);
    } else if (h.key == "author" && !out->author) {
      out->author = ParsePerson(h.value);
    } else if (h.key == "committer" && !out->committer) {
      out->committer = ParsePerson(h.value);
    } else if (h.key == "encoding" && out->encoding.empty()) {
      out->encoding = h.value;
    } else if (h.key == "gpgsig" && out->gpgsig.empty()) {
      out->gpgsig = h.value;
    } else if (h.key == "gpgsig-sha256" && out->gpgsig_sha256.empty()) {
      out->gpgsig_sha256 = h.value;
    }
  }
  out->message = std::string(content.substr(message));
  return Status::Ok();
}

Status ParseTag(std::string_view content, size_t hash_size, GitTag* out) {
  *out = GitTag();
  std::vector<Header> headers;
  size_t message = ReadHeaders(content, &headers);
  if (headers.size() < 2 || headers[0].key != "object" ||
      !ParseLowerHexId(headers[0].value, hash_size, &out->object)) {
    return Status::Corruption("tag object has no valid object line");
  }
  if (headers[1].key != "type" || GitObjectTypeNamed(headers[1].value) == GitObjectType::kNone) {
    return Status::Corruption("tag object has no valid type line");
  }
  out->type_name = headers[1].value;
  out->type = GitObjectTypeNamed(out->type_name);
  for (size_t i = 2; i < headers.size(); ++i) {
    const Header& h = headers[i];
    if (h.key == "tag" && out->tag.empty()) out->tag = h.value;
    if (h.key == "tagger" && !out->tagger) out->tagger = ParsePerson(h.value);
  }
  out->message = std::string(content.substr(message));
  return Status::Ok();
}

bool IsTreeMode(uint32_t mode) { return (mode & 0170000) == 0040000; }
bool IsGitlinkMode(uint32_t mode) { return (mode & 0170000) == 0160000; }

Status ParseTree(std::string_view content, size_t hash_size, std::vector<GitTreeEntry>* out) {
  out->clear();
  while (!content.empty()) {
    // The shortest entry: a one-digit mode, a space, a one-byte name, a NUL and the id.
    if (content.size() < hash_size + 4) return Status::Corruption("too-short tree object");
    GitTreeEntry e;
    size_t i = 0;
    for (; i < content.size() && content[i] != ' '; ++i) {
      // (Like git's, the number wraps rather than fail when too long.)
      if (content[i] < '0' || content[i] > '7') {
        return Status::Corruption("malformed mode in tree entry");
      }
      e.mode = e.mode << 3 | uint32_t(content[i] - '0');
    }
    if (i == 0 || i == content.size()) return Status::Corruption("malformed mode in tree entry");
    const size_t nul = content.find('\0', i + 1);
    if (nul == std::string_view::npos || content.size() - nul - 1 < hash_size) {
      return Status::Corruption("too-short tree file");
    }
    if (nul == i + 1) return Status::Corruption("empty filename in tree entry");
    std::copy_n(content.data() + nul + 1, hash_size, e.id.begin());
    out->push_back(e);
    content.remove_prefix(nul + 1 + hash_size);
  }
  return Status::Ok();
}

GitMessageParts SplitMessage(std::string_view object_content) {
  std::string_view buf = object_content.substr(0, object_content.find('\0'));
  // Skip the headers up to the empty line, then any further empty lines.
  size_t pos = 0;
  while (pos < buf.size() && buf[pos] != '\n') {
    size_t nl = buf.find('\n', pos);
    pos = nl == std::string_view::npos ? buf.size() : nl + 1;
  }
  while (pos < buf.size() && buf[pos] == '\n') ++pos;
  std::string_view msg = buf.substr(pos);

  // The signature starts at the last line that opens a signature block.
  size_t sig = msg.size();
  for (size_t line = 0; line < msg.size();) {
    for (std::string_view start : kSignatureStarts) {
      if (msg.substr(line).starts_with(start)) sig = line;
    }
    size_t nl = msg.find('\n', line);
    line = nl == std::string_view::npos ? msg.size() : nl + 1;
  }

  // The subject runs to the first blank line (LF LF, else CR LF CR LF), or to the signature
  // when that comes first.
  size_t blank = msg.find("\n\n");
  if (blank == std::string_view::npos) blank = msg.find("\r\n\r\n");
  const size_t sub_end = std::min(blank, sig);
  std::string_view raw_subject = msg.substr(0, sub_end);
  while (!raw_subject.empty() && (raw_subject.back() == '\n' || raw_subject.back() == '\r')) {
    raw_subject.remove_suffix(1);
  }
  size_t body = sub_end;
  while (body < msg.size() && (msg[body] == '\n' || msg[body] == '\r')) ++body;

  GitMessageParts parts;
  parts.raw_subject = std::string(raw_subject);
  for (size_t i = 0; i < raw_subject.size(); ++i) {
    if (raw_subject[i] == '\r' && i + 1 < raw_subject.size() && raw_subject[i + 1] == '\n') {
      continue;  // CR of a CR LF
    }
    parts.subject.push_back(raw_subject[i] == '\n' ? ' ' : raw_subject[i]);
  }
  parts.body_and_sig = std::string(msg.substr(body));
  parts.body = body < sig ? std::string(msg.substr(body, sig - body)) : std::string();
  parts.signature = std::string(msg.substr(sig));
  parts.contents = std::string(msg);
  parts.unsigned_part = std::string(msg.substr(0, sig));
  return parts;
}

}  // namespace reftab

// Atom values read from objects: the type and size of what a ref names, and the fields of
// commits and tags (%(subject), %(authordate), %(tagger), ...), the "%(*...)" ones from the
// object an annotated tag finally points at. Parsing follows git's ref-filter: header lines
// up to the first blank line, the message after it, a trailing signature block apart.
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/ref_objects.h"
#include "cli/ref_values.h"
#include "store/git/date_format.h"
#include "store/git/objects/object_parse.h"
#include "store/git/signature.h"

namespace reftab::cli {

struct RefValues::ObjectData {
  ObjectId id{};
  GitObjectType type = GitObjectType::kNone;
  uint64_t size = 0;
  std::string content;  // read only when an atom needs more than type and size
};

namespace {

// The rest of the buffer after "<who> " on a header line, or "" (git's find_wholine).
std::string_view WhoLine(std::string_view who, std::string_view buf) {
  while (!buf.empty()) {
    if (buf.starts_with(who) && buf.size() > who.size() && buf[who.size()] == ' ') {
      return buf.substr(who.size() + 1);
    }
    size_t eol = buf.find('\n');
    if (eol == std::string_view::npos) return "";
    buf.remove_prefix(eol + 1);
    if (!buf.empty() && buf[0] == '\n') return "";  // end of the header
  }
  return "";
}

std::string_view Line(std::string_view s) { return s.substr(0, s.find('\n')); }

std::string PersonName(std::string_view line) {
  line = Line(line);
  size_t at = line.find(" <");
  return at == std::string_view::npos ? "" : std::string(line.substr(0, at));
}

std::string PersonEmail(std::string_view buf, unsigned opt) {
  size_t lt = buf.find('<');
  if (lt == std::string_view::npos) return "";
  std::string_view email = buf.substr(lt);
  if (opt & (kEmailLocalpart | kEmailTrim)) email.remove_prefix(1);
  size_t end = std::string_view::npos;
  if (opt & kEmailLocalpart) {
    end = email.find('@');
    if (end == std::string_view::npos) end = email.find('>');
  } else if (opt & kEmailTrim) {
    end = email.find('>');
  } else {
    end = email.find('>');
    if (end != std::string_view::npos) ++end;
  }
  return end == std::string_view::npos ? "" : std::string(email.substr(0, end));
}

// git's grab_date: the time after "> " and its zone; "" when unparsable.
Status PersonDate(std::string_view buf, const UsedAtom& a, std::string_view name, AtomValue* v) {
  size_t colon = name.find(':');
  DateMode mode;
  std::string error;
  if (colon != std::string_view::npos &&
      !ParseDateMode(name.substr(colon + 1), isatty(STDOUT_FILENO), &mode, &error)) {
    return Status::InvalidArgument(error);
  }
  size_t gt = buf.find("> ");
  if (gt == std::string_view::npos) return Status::Ok();
  std::string rest(buf.substr(gt + 2, 64));
  char* zone = nullptr;
  errno = 0;
  uintmax_t t = std::strtoumax(rest.c_str(), &zone, 10);
  if (t == UINTMAX_MAX || t > uintmax_t(INT64_MAX)) return Status::Ok();
  long tz = std::strtol(zone, nullptr, 10);
  v->s = ShowDate(int64_t(t), int(tz), mode);
  v->value = t;
  (void)a;
  return Status::Ok();
}

bool TitleChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_';
}

// git's format_sanitized_subject: a file-name-friendly subject.
std::string SanitizedSubject(std::string_view s) {
  std::string out;
  int space = 2;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (!TitleChar(c)) {
      space |= 1;
      continue;
    }
    if (space == 1) out.push_back('-');
    space = 0;
    out.push_back(c);
    if (c == '.') {
      while (i + 1 < s.size() && s[i + 1] == '.') ++i;
    }
  }
  while (!out.empty() && (out.back() == '.' || out.back() == '-')) out.pop_back();
  return out;
}

std::string Lines(std::string_view buf, unsigned lines) {
  std::string out;
  size_t sp = 0;
  for (unsigned i = 0; i < lines && sp < buf.size(); ++i) {
    if (i) out.append("\n    ");
    size_t eol = buf.find('\n', sp);
    out.append(buf.substr(sp, eol == std::string_view::npos ? std::string_view::npos : eol - sp));
    if (eol == std::string_view::npos) break;
    sp = eol + 1;
  }
  return out;
}

// The value of a header field ("tree", "object", "type", "tag"); every "parent" joined.
std::vector<std::string_view> HeaderValues(std::string_view buf, std::string_view key) {
  std::vector<std::string_view> out;
  while (!buf.empty() && buf[0] != '\n') {
    std::string_view line = Line(buf);
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ' ') {
      out.push_back(line.substr(key.size() + 1));
    }
    buf.remove_prefix(std::min(buf.size(), line.size() + 1));
  }
  return out;
}

// %(tag), %(type), %(object) of a tag: its header fields.
void TagField(const UsedAtom& a, std::string_view content, AtomValue* v) {
  const char* key = a.kind == AtomKind::kTag    ? "tag"
                    : a.kind == AtomKind::kType ? "type"
                                                : "object";
  std::vector<std::string_view> vals = HeaderValues(content, key);
  if (!vals.empty()) v->s = std::string(vals[0]);
}

bool IsOneOf(AtomKind k, std::initializer_list<AtomKind> kinds) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

}  // namespace

// %(subject), %(body), %(contents:...), %(trailers) of a commit or tag.
Status RefValues::MessageAtom(const UsedAtom& a, std::string_view content, AtomValue* v) {
  GitMessageParts m = SplitMessage(content);
  switch (a.contents) {
    case ContentsOption::kSubject: v->s = m.subject; break;
    case ContentsOption::kSubjectSanitize: v->s = SanitizedSubject(m.raw_subject); break;
    case ContentsOption::kBodyDep: v->s = m.body_and_sig; break;
    case ContentsOption::kLength:
      v->value = m.contents.size();
      v->s = std::to_string(v->value);
      break;
    case ContentsOption::kBody: v->s = m.body; break;
    case ContentsOption::kSignature: v->s = m.signature; break;
    case ContentsOption::kLines: v->s = Lines(m.unsigned_part, a.lines); break;
    case ContentsOption::kBare: v->s = m.contents; break;
    case ContentsOption::kTrailers: {
      if (!trailer_config_) trailer_config_ = ReadTrailerConfig(store_.config());
      // The message from its subject on, without a signature.
      std::string_view message(m.contents);
      message.remove_suffix(m.signature.size());
      v->s = FormatTrailers(message, a.trailers, *trailer_config_);
      break;
    }
  }
  return Status::Ok();
}

// %(signature...) of a commit: verified once per object and ref, as git runs gpg once for all
// the signature atoms of a ref; what git prints on its standard error during the check
// (a verifier that cannot run) is printed then.
Status RefValues::SignatureAtom(const UsedAtom& a, const ObjectData& d, AtomValue* v) {
  if (!signature_) {
    GitSignatureCheck check;
    Status s = CheckCommitSignature(d.content, hash_size_, store_.config(), &check);
    std::fputs(check.diagnostics.c_str(), stderr);
    REFTAB_RETURN_IF_ERROR(s);
    if (!check.unverified.empty()) {
      return Status::InvalidArgument("reftab cannot verify %(" + a.name + ") of commit " +
                                     HexId(d.id, hash_size_) + ": " + check.unverified);
    }
    signature_ = std::move(check);
  }
  const GitSignatureCheck& c = *signature_;
  switch (a.signature) {
    case SignatureOption::kBare: v->s = c.output; break;
    case SignatureOption::kGrade: v->s.push_back(GitSignatureGrade(c)); break;
    case SignatureOption::kSigner: v->s = c.signer; break;
    case SignatureOption::kKey: v->s = c.key; break;
    case SignatureOption::kFingerprint: v->s = c.fingerprint; break;
    case SignatureOption::kPrimaryKeyFingerprint: v->s = c.primary_key_fingerprint; break;
    case SignatureOption::kTrustLevel: v->s = GitTrustLevelName(c.trust_level); break;
  }
  return Status::Ok();
}

// %(describe...): `git describe` of the commit a commit or tag names; "" for other objects
// and where git describe finds no name.
Status RefValues::DescribeAtom(size_t index, const UsedAtom& a, const ObjectData& d, AtomValue* v) {
  GitObjects* objects = store_.objects();
  ObjectId commit = d.id;
  if (d.type == GitObjectType::kTag) {
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects->Peel(d.id, &commit, &ok));
    GitObjectType type = GitObjectType::kNone;
    if (ok) REFTAB_RETURN_IF_ERROR(objects->TypeOf(commit, &type));
    if (!ok || type != GitObjectType::kCommit) return Status::Ok();
  }
  if (describers_.size() <= index) describers_.resize(index + 1);
  if (!describers_[index]) {
    describers_[index] = std::make_unique<GitDescriber>(store_, abbrev_, a.describe);
  }
  return describers_[index]->Describe(commit, &v->s);
}

// %(objectsize:disk) and %(deltabase): how the object is stored.
Status RefValues::StorageAtom(const UsedAtom& a, const ObjectData& d, AtomValue* v) {
  uint64_t disk_size = 0;
  ObjectId base{};
  bool found = false;
  REFTAB_RETURN_IF_ERROR(store_.objects()->Storage(d.id, &disk_size, &base, &found));
  if (a.kind == AtomKind::kDeltabase) {
    v->s = HexId(base, hash_size_);
  } else {
    v->value = disk_size;
    v->s = std::to_string(disk_size);
  }
  return Status::Ok();
}

Status RefValues::Load(const ObjectId& id, const RefItem& ref, bool content, ObjectData* data) {
  data->id = id;
  GitObjects* objects = store_.objects();
  if (content) {
    REFTAB_RETURN_IF_ERROR(ReadObject(*objects, id, &data->type, &data->content));
    data->size = data->content.size();
  } else {
    REFTAB_RETURN_IF_ERROR(ObjectSize(*objects, id, &data->type, &data->size));
  }
  if (data->type == GitObjectType::kNone) {
    return Status::InvalidArgument("missing object " + HexId(id, hash_size_) + " for " +
                                   ref.refname);
  }
  return Status::Ok();
}

// %(tree), %(parent), %(numparent) of a commit.
Status RefValues::CommitField(const UsedAtom& a, std::string_view content, AtomValue* v) {
  std::vector<std::string_view> vals =
      HeaderValues(content, a.kind == AtomKind::kTree ? "tree" : "parent");
  if (a.kind == AtomKind::kNumparent) {
    v->value = vals.size();
    v->s = std::to_string(v->value);
    return Status::Ok();
  }
  for (size_t k = 0; k < vals.size(); ++k) {
    ObjectId id{};
    if (!ParseHexId(vals[k], hash_size_, &id)) continue;
    if (k) v->s.push_back(' ');
    REFTAB_RETURN_IF_ERROR(Abbrev(id, a, &v->s));
  }
  return Status::Ok();
}

// The atoms any object has (type, size, id, raw content); *done is false for the others.
Status RefValues::CommonAtom(const UsedAtom& a, const ObjectData& d, bool deref,
                             bool* ahead_behind_seen, AtomValue* v, bool* done) {
  *done = true;
  switch (a.kind) {
    case AtomKind::kAheadBehind:
      if (!deref) REFTAB_RETURN_IF_ERROR(AheadBehind(a, d, !*ahead_behind_seen, &v->s));
      *ahead_behind_seen = true;
      return Status::Ok();
    case AtomKind::kObjecttype: v->s = ObjectTypeName(d.type); return Status::Ok();
    case AtomKind::kDeltabase: return StorageAtom(a, d, v);
    case AtomKind::kObjectsize:
      if (a.disk) return StorageAtom(a, d, v);
      v->value = d.size;
      v->s = std::to_string(v->value);
      return Status::Ok();
    case AtomKind::kObjectname:  // the ref's own id was filled without reading the object
      return deref ? Abbrev(d.id, a, &v->s) : Status::Ok();
    case AtomKind::kRaw:
      if (a.raw_size) {
        v->value = d.content.size();
        v->s = std::to_string(v->value);
      } else {
        v->s = d.content;
      }
      return Status::Ok();
    default: *done = false; return Status::Ok();
  }
}

Status RefValues::ObjectAtoms(const RefFormat& format, bool deref, const ObjectData& d,
                              std::vector<AtomValue>* values) {
  const bool is_commit = d.type == GitObjectType::kCommit, is_tag = d.type == GitObjectType::kTag;
  bool ahead_behind_seen = false;
  signature_.reset();  // git checks a signature anew for each ref (and for its peeled object)
  for (size_t i = 0; i < format.atoms.size(); ++i) {
    const UsedAtom& a = format.atoms[i];
    if (a.deref != deref || !a.needs_object) continue;
    AtomValue& v = (*values)[i];
    bool done = false;
    REFTAB_RETURN_IF_ERROR(CommonAtom(a, d, deref, &ahead_behind_seen, &v, &done));
    if (done) continue;
    if (is_tag && IsOneOf(a.kind, {AtomKind::kTag, AtomKind::kType, AtomKind::kObject})) {
      TagField(a, d.content, &v);
    } else if (is_commit &&
               IsOneOf(a.kind, {AtomKind::kTree, AtomKind::kParent, AtomKind::kNumparent})) {
      REFTAB_RETURN_IF_ERROR(CommitField(a, d.content, &v));
    } else if (a.kind == AtomKind::kBody && a.name != (deref ? "*body" : "body")) {
      // "%(body:)": git takes no argument, yet only the exact name "body" gets a value
    } else if ((is_commit || is_tag) &&
               IsOneOf(a.kind, {AtomKind::kSubject, AtomKind::kBody, AtomKind::kContents,
                                AtomKind::kTrailers})) {
      REFTAB_RETURN_IF_ERROR(MessageAtom(a, d.content, &v));
    } else if (a.kind == AtomKind::kSignature) {
      if (is_commit) REFTAB_RETURN_IF_ERROR(SignatureAtom(a, d, &v));
    } else if (a.kind == AtomKind::kDescribe) {
      if (is_commit || is_tag) REFTAB_RETURN_IF_ERROR(DescribeAtom(i, a, d, &v));
    } else if (a.kind == AtomKind::kIsBase) {
      // filled by Fill from the listing as a whole
    } else {
      REFTAB_RETURN_IF_ERROR(PersonAtom(a, std::string_view(a.name).substr(deref ? 1 : 0), d, &v));
    }
  }
  return Status::Ok();
}

Status RefValues::PersonAtom(const UsedAtom& a, std::string_view name, const ObjectData& d,
                             AtomValue* v) {
  const bool is_commit = d.type == GitObjectType::kCommit, is_tag = d.type == GitObjectType::kTag;
  if (!is_commit && !is_tag) return Status::Ok();
  std::string_view who;
  if (a.kind == AtomKind::kCreator || a.kind == AtomKind::kCreatordate) {
    who = is_commit ? "committer" : "tagger";
  } else {
    for (std::string_view w : {"author", "committer", "tagger"}) {
      if (name.starts_with(w)) who = w;
    }
    if (who.empty() || (who == "tagger") != is_tag) return Status::Ok();
  }
  // %(creator) is the whole line whatever its arguments (git ignores them).
  std::string_view rest = a.kind == AtomKind::kCreator       ? std::string_view()
                          : a.kind == AtomKind::kCreatordate ? name.substr(7)
                                                             : name.substr(who.size());
  // Without a mailmap the :mailmap forms are the plain ones; reftab reads no mailmap.
  if ((a.mailmap || (a.email & kEmailMailmap)) && MailmapInUse()) {
    return Status::InvalidArgument("reftab does not support mailmap in %(" + a.name + ")");
  }
  std::string_view line = WhoLine(who, d.content);
  if (rest.empty()) {
    v->s = std::string(Line(line));
  } else if (rest.starts_with("name")) {
    v->s = PersonName(line);
  } else if (rest.starts_with("email")) {
    v->s = PersonEmail(line, a.email);
  } else if (rest.starts_with("date")) {
    return PersonDate(line, a, name, v);
  }
  return Status::Ok();
}

// "<ahead> <behind>" of the ref's commit against the atom's, or "" for a ref to no commit.
Status RefValues::AheadBehind(const UsedAtom& a, const ObjectData& d, bool first,
                              std::string* out) {
  GitObjects* objects = store_.objects();
  ObjectId commit{};
  bool ok = false;
  REFTAB_RETURN_IF_ERROR(objects->Peel(d.id, &commit, &ok));
  GitObjectType type = GitObjectType::kNone;
  if (ok) REFTAB_RETURN_IF_ERROR(objects->TypeOf(commit, &type));
  if (!ok || type != GitObjectType::kCommit) {
    if (first) {  // git says so once per ref, whatever the number of atoms
      GitObjectType peeled = GitObjectType::kNone;
      if (ok) REFTAB_RETURN_IF_ERROR(objects->TypeOf(commit, &peeled));
      std::fprintf(stderr, "error: object %s is a %s, not a commit\n",
                   HexId(d.id, hash_size_).c_str(), GitObjectTypeName(peeled));
    }
    return Status::Ok();
  }
  size_t ahead = 0, behind = 0;
  if (commit != a.base) {
    // By generation, as git's ahead-behind walks: exact where commit dates are skewed.
    REFTAB_RETURN_IF_ERROR(
        CountAheadBehind(*objects, commit, a.base, &ahead, &behind, GitWalkOrder::kGeneration));
  }
  out->append(std::to_string(ahead)).push_back(' ');
  out->append(std::to_string(behind));
  return Status::Ok();
}

bool RefValues::MailmapInUse() {
  const GitConfig& c = store_.config();
  if (c.Get("mailmap.file") || c.Get("mailmap.blob") || store_.bare()) return true;
  if (!store_.repo()) return false;
  std::string dir = store_.repo()->common_dir();
  if (dir.size() < 5 || dir.compare(dir.size() - 5, 5, "/.git") != 0) return true;
  return access((dir.substr(0, dir.size() - 4) + ".mailmap").c_str(), F_OK) == 0;
}

Status RefValues::Fill(const RefFormat& format, const RefItem& ref,
                       std::vector<AtomValue>* values) {
  // Emptied in place rather than assigned afresh: the strings keep their buffers from ref to
  // ref of a listing.
  values->resize(format.atoms.size());
  for (AtomValue& v : *values) {
    v.s.clear();
    v.value = 0;
  }
  bool need_object = false, need_tagged = false, need_content = false;
  const char* first_object_atom = nullptr;
  const std::vector<std::string>* is_base = nullptr;
  if (!is_base_.empty()) {
    auto it = is_base_.find(ref.refname);
    if (it != is_base_.end()) is_base = &it->second;
  }
  size_t is_base_slot = 0;
  for (size_t i = 0; i < format.atoms.size(); ++i) {
    const UsedAtom& a = format.atoms[i];
    bool done = false;
    if (a.kind == AtomKind::kIsBase) {
      if (is_base && is_base_slot < is_base->size() && !(*is_base)[is_base_slot].empty()) {
        (*values)[i].s = "(" + (*is_base)[is_base_slot] + ")";
      }
      ++is_base_slot;
      continue;
    }
    REFTAB_RETURN_IF_ERROR(RefAtom(a, ref, &(*values)[i], &done));
    need_tagged |= a.deref;
    need_content |=
        a.needs_object &&
        !IsOneOf(a.kind, {AtomKind::kObjecttype, AtomKind::kObjectsize, AtomKind::kObjectname,
                          AtomKind::kDeltabase, AtomKind::kAheadBehind, AtomKind::kIsBase});
    if (!done || a.deref) {
      need_object = true;
      if (!first_object_atom) first_object_atom = a.name.c_str();
    }
  }
  if (!need_object) return Status::Ok();
  GitObjects* objects = nullptr;
  REFTAB_RETURN_IF_ERROR(Objects(first_object_atom, &objects));
  ObjectData main;
  // A tag is read whole when "%(*...)" atoms need what it points at (git reads it too).
  REFTAB_RETURN_IF_ERROR(Load(ref.oid, ref, need_content || need_tagged, &main));
  REFTAB_RETURN_IF_ERROR(ObjectAtoms(format, false, main, values));
  if (!need_tagged || main.type != GitObjectType::kTag) return Status::Ok();
  ObjectId peeled = ref.peeled;
  if (!ref.has_peeled) {
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects->Peel(ref.oid, &peeled, &ok));
    if (!ok) return Status::InvalidArgument("bad tag");
  }
  ObjectData target;
  REFTAB_RETURN_IF_ERROR(Load(peeled, ref, need_content, &target));
  return ObjectAtoms(format, true, target, values);
}

}  // namespace reftab::cli

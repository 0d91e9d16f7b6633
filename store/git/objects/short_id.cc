#include "store/git/objects/short_id.h"

#include <algorithm>

#include "store/git/date_format.h"
#include "store/git/objects/abbrev.h"
#include "store/git/objects/object_parse.h"

namespace reftab {
namespace {

bool IsHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// What a tag chain from `id` ends at (kNone when it breaks).
Status PeeledType(GitObjects& objects, const ObjectId& id, GitObjectType* type) {
  ObjectId peeled{};
  bool ok = false;
  REFTAB_RETURN_IF_ERROR(objects.Peel(id, &peeled, &ok));
  *type = GitObjectType::kNone;
  if (ok) REFTAB_RETURN_IF_ERROR(objects.TypeOf(peeled, type));
  return Status::Ok();
}

// Whether `id` is of the kind `hint` asks for (git's disambiguate_*_only).
Status Fits(GitObjects& objects, const ObjectId& id, ObjectKindHint hint, bool* fits) {
  GitObjectType type = GitObjectType::kNone;
  REFTAB_RETURN_IF_ERROR(objects.TypeOf(id, &type));
  const bool ish = hint == ObjectKindHint::kCommittish || hint == ObjectKindHint::kTreeish;
  if (ish && type == GitObjectType::kTag) REFTAB_RETURN_IF_ERROR(PeeledType(objects, id, &type));
  switch (hint) {
    case ObjectKindHint::kAny: *fits = true; break;
    case ObjectKindHint::kCommit:
    case ObjectKindHint::kCommittish: *fits = type == GitObjectType::kCommit; break;
    case ObjectKindHint::kTree: *fits = type == GitObjectType::kTree; break;
    case ObjectKindHint::kTreeish:
      *fits = type == GitObjectType::kTree || type == GitObjectType::kCommit;
      break;
    case ObjectKindHint::kBlob: *fits = type == GitObjectType::kBlob; break;
  }
  return Status::Ok();
}

// One candidate line of git's hint, without the leading two blanks.
Status Describe(GitObjects& objects, GitAbbreviator& abbrev, size_t hash_size, const ObjectId& id,
                std::string* line) {
  REFTAB_RETURN_IF_ERROR(abbrev.Abbreviate(id, kAbbrevDefault, line));
  GitObjectType type = GitObjectType::kNone;
  std::string content;
  REFTAB_RETURN_IF_ERROR(objects.Read(id, &type, &content));
  DateMode short_date;
  short_date.style = DateStyle::kShort;
  if (type == GitObjectType::kCommit) {
    GitCommit commit;
    std::string date;
    if (ParseCommit(content, hash_size, &commit).ok() && commit.author && commit.author->has_date) {
      date = ShowDate(int64_t(commit.author->timestamp), commit.author->tz, short_date);
    }
    line->append(" commit ").append(date).append(" - ").append(SplitMessage(content).subject);
  } else if (type == GitObjectType::kTag) {
    GitTag tag;
    if (ParseTag(content, hash_size, &tag).ok() && !tag.tag.empty()) {
      const uint64_t when = tag.tagger && tag.tagger->has_date ? tag.tagger->timestamp : 0;
      line->append(" tag ").append(ShowDate(int64_t(when), 0, short_date));
      line->append(" - ").append(tag.tag);
    } else {
      line->append(" [bad tag, could not parse it]");
    }
  } else if (type == GitObjectType::kNone) {
    line->append(" [bad object]");
  } else {
    line->append(" ").append(GitObjectTypeName(type));
  }
  return Status::Ok();
}

// git's order of candidates: tags, commits, trees, blobs; by id within a kind.
Status SortCandidates(GitObjects& objects, std::vector<ObjectId>* ids) {
  std::vector<std::pair<int, ObjectId>> keyed;
  for (const ObjectId& id : *ids) {
    GitObjectType type = GitObjectType::kNone;
    REFTAB_RETURN_IF_ERROR(objects.TypeOf(id, &type));
    keyed.emplace_back(int(type) % 4, id);
  }
  std::sort(keyed.begin(), keyed.end());
  ids->clear();
  for (auto& [kind, id] : keyed) ids->push_back(id);
  return Status::Ok();
}

}  // namespace

ObjectKindHint ReadCoreDisambiguate(const GitConfig& config) {
  std::optional<std::string> v = config.Get("core.disambiguate");
  if (!v) return ObjectKindHint::kAny;
  std::string lower = *v;
  for (char& c : lower) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  static constexpr std::pair<std::string_view, ObjectKindHint> kNames[] = {
      {"none", ObjectKindHint::kAny},
      {"commit", ObjectKindHint::kCommit},
      {"committish", ObjectKindHint::kCommittish},
      {"tree", ObjectKindHint::kTree},
      {"treeish", ObjectKindHint::kTreeish},
      {"blob", ObjectKindHint::kBlob},
  };
  for (const auto& [name, hint] : kNames) {
    if (lower == name) return hint;
  }
  return ObjectKindHint::kAny;
}

Status ResolveShortId(GitObjects& objects, size_t hash_size, int core_abbrev, std::string_view hex,
                      ObjectKindHint hint, bool describe, ShortIdResult* out) {
  *out = ShortIdResult();
  if (hex.size() < size_t(kMinimumAbbrev) || hex.size() > 2 * kMaxHashSize || !IsHex(hex)) {
    return Status::Ok();
  }
  // git compares prefixes over its widest id, where a shorter id is padded with zero bytes:
  // a whole id followed by zeros still names it.
  if (hex.size() > 2 * hash_size) {
    if (hex.find_first_not_of('0', 2 * hash_size) != std::string_view::npos) return Status::Ok();
    hex = hex.substr(0, 2 * hash_size);
  }
  std::vector<ObjectId> candidates;
  REFTAB_RETURN_IF_ERROR(objects.FindByPrefix(hex, &candidates));
  if (candidates.empty()) return Status::Ok();
  if (candidates.size() == 1) {
    out->kind = ShortIdResult::Kind::kFound;
    out->id = candidates[0];
    return Status::Ok();
  }
  // More than one: exactly one of the wanted kind wins.
  std::vector<ObjectId> fitting;
  if (hint != ObjectKindHint::kAny) {
    for (const ObjectId& id : candidates) {
      bool fits = false;
      REFTAB_RETURN_IF_ERROR(Fits(objects, id, hint, &fits));
      if (fits) fitting.push_back(id);
    }
  }
  if (fitting.size() == 1) {
    out->kind = ShortIdResult::Kind::kFound;
    out->id = fitting[0];
    return Status::Ok();
  }
  out->kind = ShortIdResult::Kind::kAmbiguous;
  if (!describe) return Status::Ok();
  // git lists the candidates of the wanted kind when there are several, else all of them.
  std::vector<ObjectId> shown = fitting.size() > 1 ? fitting : candidates;
  REFTAB_RETURN_IF_ERROR(SortCandidates(objects, &shown));
  GitAbbreviator abbrev(&objects, hash_size, core_abbrev);
  out->hints.push_back("The candidates are:");
  for (const ObjectId& id : shown) {
    std::string line;
    REFTAB_RETURN_IF_ERROR(Describe(objects, abbrev, hash_size, id, &line));
    out->hints.push_back("  " + line);
  }
  return Status::Ok();
}

}  // namespace reftab

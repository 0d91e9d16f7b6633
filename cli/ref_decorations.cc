#include "cli/ref_decorations.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "cli/pager.h"
#include "store/git/config/config.h"
#include "store/git/objects/object_parse.h"
#include "store/git/objects/objects.h"

namespace reftab::cli {
namespace {

// The kind of a ref git decorates by default, or kNone for one it leaves out.
DecorationType TypeOf(std::string_view name) {
  if (name == "HEAD") return DecorationType::kHead;
  if (name.starts_with("refs/heads/")) return DecorationType::kBranch;
  if (name.starts_with("refs/tags/")) return DecorationType::kTag;
  if (name.starts_with("refs/remotes/")) return DecorationType::kRemoteBranch;
  if (name == "refs/stash") return DecorationType::kStash;
  return DecorationType::kNone;
}

// git's short form of a decoration's name.
std::string_view Prettify(std::string_view name) {
  for (std::string_view p : {"refs/heads/", "refs/tags/", "refs/remotes/"}) {
    if (name.starts_with(p)) return name.substr(p.size());
  }
  return name;
}

}  // namespace

DecorateStyle ParseDecorateStyle(std::string_view value) {
  std::optional<bool> b = ParseGitBool(std::string(value));
  if (b) return *b ? DecorateStyle::kShort : DecorateStyle::kNo;
  if (value == "full") return DecorateStyle::kFull;
  if (value == "short") return DecorateStyle::kShort;
  if (value == "auto") return DecorateStyle::kAuto;
  return DecorateStyle::kInvalid;
}

DecorateStyle ResolveDecorateStyle(DecorateStyle style) {
  if (style != DecorateStyle::kAuto) return style;
  return isatty(STDOUT_FILENO) || PagerInUse() ? DecorateStyle::kShort : DecorateStyle::kNo;
}

Result<RefDecorations> RefDecorations::Load(Store& store) {
  RefDecorations d;
  GitObjects* objects = store.objects();
  if (objects && !objects->available()) objects = nullptr;
  // Adds the ref `name` at `id`, and what an annotated tag peels to.
  auto add = [&](const std::string& name, const ObjectId& id,
                 const std::optional<ObjectId>& peeled) -> Status {
    DecorationType type = TypeOf(name);
    if (type == DecorationType::kNone) return Status::Ok();
    if (!objects) {  // ids on trust; the stored peeled id stands for the tag's target
      d.by_id_[id].push_back({type, name});
      if (peeled) d.by_id_[*peeled].push_back({DecorationType::kTag, name});
      return Status::Ok();
    }
    GitObjectType t = GitObjectType::kNone;
    if (!objects->TypeOf(id, &t).ok() || t == GitObjectType::kNone) return Status::Ok();
    d.by_id_[id].push_back({type, name});
    ObjectId at = id;
    // A chain of tags is short; the bound only guards against a corrupt database.
    for (int depth = 0; t == GitObjectType::kTag && depth < 64; ++depth) {
      std::string content;
      REFTAB_RETURN_IF_ERROR(objects->Read(at, &t, &content));
      GitTag tag;
      if (!ParseTag(content, store.hash_size(), &tag).ok()) break;
      at = tag.object;
      t = tag.type;
      d.by_id_[at].push_back({DecorationType::kTag, name});
    }
    return Status::Ok();
  };
  Status failed;
  Status s = store.ForEachRef("refs/", [&](const RefRecord& r) {
    std::optional<ObjectId> peeled;
    if (r.value_type == RefValueType::kVal2) peeled = r.peeled;
    if (r.value_type == RefValueType::kSymref) {
      ResolvedRef to;
      failed = store.Resolve(r.refname, &to);
      if (!failed.ok()) return false;
      if (!to.resolved || !to.exists) return true;
      failed = add(r.refname, to.id, to.peeled);
    } else {
      failed = add(r.refname, r.value, peeled);
    }
    return failed.ok();
  });
  REFTAB_RETURN_IF_ERROR(s);
  REFTAB_RETURN_IF_ERROR(failed);
  ResolvedRef head;
  REFTAB_RETURN_IF_ERROR(store.Resolve("HEAD", &head));
  if (head.resolved && head.exists) REFTAB_RETURN_IF_ERROR(add("HEAD", head.id, head.peeled));
  if (head.through_symref && head.name.starts_with("refs/")) d.head_branch_ = head.name;
  return d;
}

void RefDecorations::Append(const ObjectId& id, DecorateStyle style, const LogColorConfig* colors,
                            std::string* out) const {
  auto it = by_id_.find(id);
  if (style == DecorateStyle::kNo || it == by_id_.end()) return;
  const std::vector<Decoration>& list = it->second;
  auto color = [&](DecorationType t) -> std::string_view {
    return colors ? std::string_view(colors->decorate[size_t(t)]) : std::string_view();
  };
  const std::string_view commit = colors ? std::string_view(colors->commit) : "";
  const std::string_view reset = color(DecorationType::kNone);
  auto name = [&](const Decoration& d) {
    return style == DecorateStyle::kFull ? std::string_view(d.name) : Prettify(d.name);
  };
  // git lists the last ref loaded first. With HEAD there, the branch it points to is shown
  // as "HEAD -> branch" in HEAD's place.
  const Decoration* current = nullptr;
  const bool has_head = std::any_of(list.begin(), list.end(), [](const Decoration& d) {
    return d.type == DecorationType::kHead;
  });
  if (has_head && !head_branch_.empty()) {
    for (const Decoration& d : list) {
      if (d.type == DecorationType::kBranch && d.name == head_branch_) current = &d;
    }
  }
  std::string_view prefix = " (";
  for (auto d = list.rbegin(); d != list.rend(); ++d) {
    if (&*d == current) continue;
    out->append(commit).append(prefix).append(reset);
    if (d->type == DecorationType::kTag) out->append(color(d->type)).append("tag: ").append(reset);
    out->append(color(d->type)).append(name(*d)).append(reset);
    if (current && d->type == DecorationType::kHead) {
      out->append(commit).append(" -> ").append(reset);
      out->append(color(current->type)).append(name(*current)).append(reset);
    }
    prefix = ", ";
  }
  out->append(commit).append(")").append(reset);
}

}  // namespace reftab::cli

#include "store/git/objects/objects.h"

#include <algorithm>
#include <cstring>

#include "store/git/objects/abbrev.h"
#include "store/git/objects/object_count.h"
#include "store/git/objects/object_headers.h"
#include "store/git/objects/object_parse.h"

#ifdef REFTAB_HAVE_LIBGIT2
#include <dlfcn.h>
#include <git2.h>
#endif

namespace reftab {

const char* GitObjectTypeName(GitObjectType type) {
  switch (type) {
    case GitObjectType::kCommit: return "commit";
    case GitObjectType::kTree: return "tree";
    case GitObjectType::kBlob: return "blob";
    case GitObjectType::kTag: return "tag";
    case GitObjectType::kNone: break;
  }
  return "";
}

GitObjectType GitObjectTypeNamed(std::string_view name) {
  for (GitObjectType t :
       {GitObjectType::kCommit, GitObjectType::kTree, GitObjectType::kBlob, GitObjectType::kTag}) {
    if (name == GitObjectTypeName(t)) return t;
  }
  return GitObjectType::kNone;
}

#ifdef REFTAB_HAVE_LIBGIT2

namespace {

constexpr const char* kLibName = "libgit2.so." LIBGIT2_SOVERSION;

// Looks `name` up in the loaded library; remembers the first name that is missing.
template <class F>
bool Resolve(void* handle, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(handle, name));
  if (!*fn && missing->empty()) *missing = name;
  return *fn != nullptr;
}

}  // namespace

// The libgit2 functions we call, typed from libgit2's own declarations so that a mismatch
// with the headers is a compile error, resolved once per GitObjects from the library it
// loaded. The handle is per instance too: the dynamic loader counts dlopen() calls, so each
// GitObjects holds (and releases) a reference of its own and there is no shared state of
// ours. git_libgit2_init/shutdown are counted the same way inside libgit2.
struct GitObjects::Lib {
  void* handle = nullptr;
  decltype(&git_libgit2_init) init = nullptr;
  decltype(&git_libgit2_shutdown) shutdown = nullptr;
  decltype(&git_error_last) error_last = nullptr;
  decltype(&git_odb_open) odb_open = nullptr;
  decltype(&git_odb_free) odb_free = nullptr;
  decltype(&git_odb_read_header) read_header = nullptr;
  decltype(&git_odb_read) read = nullptr;
  decltype(&git_odb_object_data) object_data = nullptr;
  decltype(&git_odb_object_size) object_size = nullptr;
  decltype(&git_odb_object_type) object_type = nullptr;
  decltype(&git_odb_object_free) object_free = nullptr;
  decltype(&git_odb_exists_prefix) exists_prefix = nullptr;
  bool initialised = false;
  git_odb* odb = nullptr;

  Lib() = default;
  Lib(const Lib&) = delete;
  Lib& operator=(const Lib&) = delete;
  ~Lib() {
    if (odb) odb_free(odb);
    if (initialised) shutdown();
    if (handle) dlclose(handle);
  }

  // Fills every function pointer; false with the first missing name.
  bool ResolveAll(std::string* missing) {
    bool ok = true;
    ok &= Resolve(handle, "git_libgit2_init", &init, missing);
    ok &= Resolve(handle, "git_libgit2_shutdown", &shutdown, missing);
    ok &= Resolve(handle, "git_error_last", &error_last, missing);
    ok &= Resolve(handle, "git_odb_open", &odb_open, missing);
    ok &= Resolve(handle, "git_odb_free", &odb_free, missing);
    ok &= Resolve(handle, "git_odb_read_header", &read_header, missing);
    ok &= Resolve(handle, "git_odb_read", &read, missing);
    ok &= Resolve(handle, "git_odb_object_data", &object_data, missing);
    ok &= Resolve(handle, "git_odb_object_size", &object_size, missing);
    ok &= Resolve(handle, "git_odb_object_type", &object_type, missing);
    ok &= Resolve(handle, "git_odb_object_free", &object_free, missing);
    ok &= Resolve(handle, "git_odb_exists_prefix", &exists_prefix, missing);
    return ok;
  }

  // "libgit2: <what>: <libgit2's last error>".
  std::string Error(const std::string& what) const {
    const git_error* e = error_last ? error_last() : nullptr;
    return "libgit2: " + what + ": " + (e && e->message ? e->message : "unknown error");
  }
};

namespace {

GitObjectType FromLibgit2(git_object_t t) {
  switch (t) {
    case GIT_OBJECT_COMMIT: return GitObjectType::kCommit;
    case GIT_OBJECT_TREE: return GitObjectType::kTree;
    case GIT_OBJECT_BLOB: return GitObjectType::kBlob;
    case GIT_OBJECT_TAG: return GitObjectType::kTag;
    default: return GitObjectType::kNone;
  }
}

git_oid ToLibgit2(const ObjectId& id) {
  git_oid oid;
  static_assert(sizeof(oid.id) == 20, "libgit2 built for SHA-1 object ids");
  std::memcpy(oid.id, id.data(), sizeof(oid.id));
  return oid;
}

}  // namespace

Status GitObjects::Load() {
  if (tried_) return lib_ ? Status::Ok() : Unavailable();
  tried_ = true;
  if (hash_size_ != 20) {
    reason_ = "cannot read objects of a SHA-256 repository: libgit2 " LIBGIT2_VERSION
              " has no SHA-256 object format";
    return Unavailable();
  }
  auto lib = std::make_unique<Lib>();
  // RTLD_NODELETE: libgit2 pulls in libraries (libcrypto, via libssh2) that register exit
  // handlers; keeping the code mapped after dlclose() makes those safe to run at exit.
  // RTLD_LAZY: of libgit2's many functions we call a dozen; binding only those is cheaper.
  // This load (~2 ms) and git_libgit2_init (~4 ms: Debian's build parses the system's CA
  // certificates there) are what the first object lookup of a process costs.
  lib->handle = dlopen(kLibName, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
  if (!lib->handle) {
    const char* why = dlerror();
    reason_ = std::string("cannot load ") + kLibName + ": " + (why ? why : "unknown error");
    return Unavailable();
  }
  std::string missing;
  if (!lib->ResolveAll(&missing)) {
    reason_ = std::string(kLibName) + " has no function " + missing;
    return Unavailable();
  }
  if (lib->init() < 0) {
    reason_ = lib->Error("cannot initialise");
    return Unavailable();
  }
  lib->initialised = true;
  if (lib->odb_open(&lib->odb, objects_dir_.c_str()) < 0) {
    lib->odb = nullptr;
    reason_ = lib->Error("cannot open " + objects_dir_);
    return Unavailable();
  }
  lib_ = std::move(lib);
  return Status::Ok();
}

Status GitObjects::Size(const ObjectId& id, GitObjectType* type, uint64_t* size) {
  *type = GitObjectType::kNone;
  *size = 0;
  REFTAB_RETURN_IF_ERROR(Load());
  git_oid oid = ToLibgit2(id);
  size_t len = 0;
  git_object_t t = GIT_OBJECT_INVALID;
  int rc = lib_->read_header(&len, &t, lib_->odb, &oid);
  if (rc == GIT_ENOTFOUND) return Status::Ok();
  if (rc < 0) return Status::IoError(lib_->Error("reading object " + HexId(id, hash_size_)));
  *type = FromLibgit2(t);
  *size = len;
  return Status::Ok();
}

Status GitObjects::Read(const ObjectId& id, GitObjectType* type, std::string* content) {
  *type = GitObjectType::kNone;
  content->clear();
  REFTAB_RETURN_IF_ERROR(Load());
  git_oid oid = ToLibgit2(id);
  git_odb_object* obj = nullptr;
  int rc = lib_->read(&obj, lib_->odb, &oid);
  if (rc == GIT_ENOTFOUND) return Status::Ok();
  if (rc < 0) return Status::IoError(lib_->Error("reading object " + HexId(id, hash_size_)));
  *type = FromLibgit2(lib_->object_type(obj));
  content->assign(static_cast<const char*>(lib_->object_data(obj)), lib_->object_size(obj));
  lib_->object_free(obj);
  return Status::Ok();
}

Status GitObjects::Abbreviate(const ObjectId& id, size_t min_len, std::string* hex) {
  const size_t hex_len = 2 * hash_size_;
  *hex = HexId(id, hash_size_);
  REFTAB_RETURN_IF_ERROR(Load());
  if (min_len == 0) return Status::Ok();
  git_oid oid = ToLibgit2(id);
  // The shortest prefix that names no other object: either it names `id` alone, or (for an
  // id the database lacks) nothing at all.
  for (size_t len = std::clamp(min_len, size_t(kMinimumAbbrev), hex_len); len < hex_len; ++len) {
    git_oid found;
    int rc = lib_->exists_prefix(&found, lib_->odb, &oid, len);
    if (rc == GIT_ENOTFOUND || (rc == 0 && std::memcmp(found.id, oid.id, hash_size_) == 0)) {
      hex->resize(len);
      return Status::Ok();
    }
    if (rc < 0 && rc != GIT_EAMBIGUOUS) {
      return Status::IoError(lib_->Error("abbreviating " + *hex));
    }
  }
  return Status::Ok();
}

#else  // !REFTAB_HAVE_LIBGIT2

struct GitObjects::Lib {};

Status GitObjects::Load() {
  tried_ = true;
  reason_ = "reftab was built without libgit2";
  return Unavailable();
}

Status GitObjects::Size(const ObjectId&, GitObjectType* type, uint64_t* size) {
  *type = GitObjectType::kNone;
  *size = 0;
  return Load();
}

Status GitObjects::Read(const ObjectId&, GitObjectType* type, std::string* content) {
  *type = GitObjectType::kNone;
  content->clear();
  return Load();
}

Status GitObjects::Abbreviate(const ObjectId& id, size_t, std::string* hex) {
  *hex = HexId(id, hash_size_);
  return Load();
}

#endif  // REFTAB_HAVE_LIBGIT2

GitObjects::GitObjects(std::string objects_dir, size_t hash_size, std::string shallow_file)
    : objects_dir_(std::move(objects_dir)),
      hash_size_(hash_size),
      shallow_file_(std::move(shallow_file)) {}

GitObjects::~GitObjects() = default;

bool GitObjects::available() { return Load().ok(); }

const std::string& GitObjects::reason() {
  (void)Load();
  return reason_;
}

Status GitObjects::Unavailable() const { return Status::IoError(reason_); }

GitObjectHeaders& GitObjects::headers() {
  if (!headers_) headers_ = std::make_unique<GitObjectHeaders>(objects_dir_, hash_size_);
  return *headers_;
}

Status GitObjects::TypeOf(const ObjectId& id, GitObjectType* type) {
  return headers().TypeOf(id, type);
}

Status GitObjects::Has(const ObjectId& id, bool* found) { return headers().Has(id, found); }

Status GitObjects::Peel(const ObjectId& id, ObjectId* peeled, bool* ok) {
  return headers().Peel(id, peeled, ok);
}

Status GitObjects::PeelToCommit(const ObjectId& id, ObjectId* commit, bool* ok) {
  *ok = false;
  *commit = id;
  GitObjectType type = GitObjectType::kNone;
  REFTAB_RETURN_IF_ERROR(TypeOf(id, &type));
  if (type == GitObjectType::kTag) {
    bool peeled = false;
    REFTAB_RETURN_IF_ERROR(Peel(id, commit, &peeled));
    if (!peeled) return Status::Ok();
    REFTAB_RETURN_IF_ERROR(TypeOf(*commit, &type));
  }
  *ok = type == GitObjectType::kCommit;
  return Status::Ok();
}

Status GitObjects::DefaultAbbrevLength(size_t* len) {
  uint64_t count = 0;
  // git falls back to 0 objects when it cannot count them.
  if (!ApproximateObjectCount(objects_dir_, &count).ok()) count = 0;
  *len = AbbrevLengthForCount(count, 2 * hash_size_);
  return Status::Ok();
}

}  // namespace reftab

// The C API's iterators (store/capi/reftab.h): refs and reflog entries of a store, with seek and
// prefix. A store with a linked worktree has two sorted sources (the main stack minus the
// per-worktree names, and the worktree's stack), merged here by name; the names of the two
// never coincide. Each source keeps its current record in a buffer of its own, which is what
// the caller's view points into, so a record stays valid until the next call and nothing is
// allocated per record.
#include <optional>
#include <string>

#include "store/capi/internal.h"
#include "store/git/repo.h"
#include "store/merge_cursor.h"
#include "store/merged_iterator.h"
#include "store/snapshot_access.h"

namespace reftab::capi {
namespace {

template <class It, class Record>
class SourceMerge {
 public:
  // `make` builds source i's merged iterator from its snapshot.
  template <class Make>
  SourceMerge(std::vector<Source> sources, std::string prefix, Make make)
      : sources_(std::move(sources)), prefix_(std::move(prefix)) {
    for (const Source& s : sources_) {
      lanes_.push_back(Lane{make(*s.snapshot), {}, s.role});
      lanes_.back().it.set_suppress_deletions(true);
    }
  }

  // Positions before the first record whose name is >= max(prefix, name).
  Status Seek(std::string_view name) {
    std::string_view from = name > std::string_view(prefix_) ? name : std::string_view(prefix_);
    for (Lane& lane : lanes_) {
      lane.state = Lane::kStale;
      REFTAB_RETURN_IF_ERROR(lane.it.Seek(from));
    }
    return Status::Ok();
  }

  // The next record (owned by this object until the next call), or nullptr at the end or on
  // an error (then *status is set).
  const Record* Next(Status* status) {
    Lane* best = nullptr;
    for (Lane& lane : lanes_) {
      if (lane.state == Lane::kStale) Pull(&lane);
      if (!lane.it.status().ok()) {
        *status = lane.it.status();
        return nullptr;
      }
      if (lane.state == Lane::kReady && (!best || lane.record.refname < best->record.refname)) {
        best = &lane;
      }
    }
    if (!best) return nullptr;
    best->state = Lane::kStale;  // advanced on the next call, after the caller is done with it
    return &best->record;
  }

 private:
  struct Lane {
    It it;
    Record record;
    Source::Role role;
    enum State { kStale, kReady, kDone } state = kStale;
  };

  void Pull(Lane* lane) {
    while (lane->it.Next(&lane->record)) {
      std::string_view name = lane->record.refname;
      if (name.substr(0, prefix_.size()) != prefix_) break;
      if (lane->role == Source::Role::kSharedOfWorktree && IsPerWorktreeRef(name)) continue;
      lane->state = Lane::kReady;
      return;
    }
    lane->state = Lane::kDone;
  }

  std::vector<Source> sources_;  // keeps the snapshots (and their mapped tables) alive
  std::string prefix_;
  std::vector<Lane> lanes_;
};

using RefMerge = SourceMerge<RefMergeCursor, RefRecord>;
using LogMerge = SourceMerge<LogMergeCursor, LogRecord>;

template <class Merge, class Make, class Handle>
reftab_code NewIter(reftab_store* store, const char* prefix, Make make, Handle** out,
                    reftab_error** err) {
  REFTAB_C_REQUIRE(err, store);
  REFTAB_C_REQUIRE(err, out);
  auto sources = SourcesOf(store);
  if (!sources.ok()) return Report(err, sources.status());
  auto handle =
      std::make_unique<Handle>(Handle{Merge(std::move(*sources), prefix ? prefix : "", make)});
  if (reftab_code c = Report(err, handle->merge.Seek(""))) return c;
  *out = handle.release();
  return REFTAB_OK;
}

}  // namespace
}  // namespace reftab::capi

struct reftab_ref_iter {
  reftab::capi::RefMerge merge;
};

struct reftab_log_iter {
  reftab::capi::LogMerge merge;
};

using reftab::Status;
using reftab::capi::Guard;
using reftab::capi::Report;

extern "C" {

reftab_code reftab_ref_iter_new(reftab_store* store, const char* prefix, reftab_ref_iter** out,
                                reftab_error** err) {
  return Guard(err, [&] {
    auto make = [](const reftab::Snapshot& s) {
      reftab::RefMergeCursor merge(s.readers());
      merge.set_merge_order(reftab::SnapshotAccess::RefOrder(s));
      return merge;
    };
    return reftab::capi::NewIter<reftab::capi::RefMerge>(store, prefix, make, out, err);
  });
}

reftab_code reftab_ref_iter_seek(reftab_ref_iter* it, const char* name, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    REFTAB_C_REQUIRE(err, name);
    return Report(err, it->merge.Seek(name));
  });
}

reftab_code reftab_ref_iter_next(reftab_ref_iter* it, reftab_ref* out, int* has,
                                 reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    REFTAB_C_REQUIRE(err, out);
    REFTAB_C_REQUIRE(err, has);
    Status status;
    const reftab::RefRecord* r = it->merge.Next(&status);
    *has = r != nullptr;
    if (r) reftab::capi::FillRefView(*r, out);
    return Report(err, status);
  });
}

void reftab_ref_iter_free(reftab_ref_iter* it) { delete it; }

reftab_code reftab_log_iter_new(reftab_store* store, const char* prefix, reftab_log_iter** out,
                                reftab_error** err) {
  return Guard(err, [&] {
    auto make = [](const reftab::Snapshot& s) { return reftab::LogMergeCursor(s.readers()); };
    return reftab::capi::NewIter<reftab::capi::LogMerge>(store, prefix, make, out, err);
  });
}

reftab_code reftab_log_iter_seek(reftab_log_iter* it, const char* name, reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    REFTAB_C_REQUIRE(err, name);
    return Report(err, it->merge.Seek(name));
  });
}

reftab_code reftab_log_iter_next(reftab_log_iter* it, reftab_log* out, int* has,
                                 reftab_error** err) {
  return Guard(err, [&] {
    REFTAB_C_REQUIRE(err, it);
    REFTAB_C_REQUIRE(err, out);
    REFTAB_C_REQUIRE(err, has);
    Status status;
    const reftab::LogRecord* r = it->merge.Next(&status);
    *has = r != nullptr;
    if (r) reftab::capi::FillLogView(*r, out);
    return Report(err, status);
  });
}

void reftab_log_iter_free(reftab_log_iter* it) { delete it; }

}  // extern "C"

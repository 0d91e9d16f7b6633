#include "store/disjoint_merge.h"

#include <algorithm>
#include <string>

#include "format/block_reader.h"
#include "format/record_codec.h"
#include "store/merge_cursor.h"
#include "store/progress.h"
#include "store/readahead_window.h"
#include "store/restart_check.h"
#include "store/table_ref_blocks.h"
#include "store/table_reverse_cursor.h"

namespace reftab {
namespace {

struct KeyRange {
  const TableReader* table;
  std::string first, last;
};

// The first and last ref keys of a table that holds refs only; false if it holds anything
// else or no ref.
Status RangeOf(const TableReader* t, KeyRange* out, bool* eligible) {
  uint64_t at = 0;
  *eligible = false;
  if (!t->RefSectionStart(&at) || t->LogSectionStart(&at) || t->ObjSectionStart(&at)) {
    return Status::Ok();
  }
  TableRefIterator first(t);
  REFTAB_RETURN_IF_ERROR(first.SeekToFirst());
  if (!first.NextKey()) return first.status();
  out->first.assign(first.key());
  TableRefReverseCursor last(t);
  REFTAB_RETURN_IF_ERROR(last.SeekToLast());
  if (!last.Valid()) return last.status();
  out->last.assign(last.key());
  out->table = t;
  *eligible = out->first <= out->last;
  return Status::Ok();
}

// One ref block's records, checked as a record merge would decode them (each value too)
// plus what a copy relies on (keys strictly increasing from the key before, restart points
// at records with full keys): the bytes copied are then what a reader of the merged table
// decodes without surprise.
struct BlockRecords {
  std::string first, last;  // keys
  uint64_t count = 0;
  bool tombstones = false;
};

Status CheckRefBlock(const TableReader& t, const BlockView& b, std::string_view before,
                     BlockRecords* out) {
  BlockIterator it;
  it.Init(b, t.hash_size());
  RestartCheck restarts;
  restarts.Start(b);
  uint32_t start = RestartCheck::FirstRecord(b);
  out->count = 0;
  out->tombstones = false;
  std::string_view prev = before;
  auto bad = [&](const std::string& what) {
    return t.Error("ref block at offset " + std::to_string(b.offset) + ": " + what);
  };
  RefRecord r;
  while (it.NextKey()) {
    const std::string_view key = it.key();
    if ((out->count > 0 || !before.empty()) && key <= prev) {
      return bad("ref '" + std::string(key) + "' is not after '" + std::string(prev) + "'");
    }
    if (!restarts.Record(start)) return bad(restarts.Problem());
    ByteReader v = it.value();
    if (!codec::GetRefValue(v, it.value_type(), t.min_update_index(), t.hash_size(), &r) ||
        r.update_index > t.max_update_index()) {
      return bad("malformed ref record");
    }
    it.ValueDone(v);
    start = uint32_t(v.pos() - b.data);
    if (out->count++ == 0) out->first.assign(key);
    out->tombstones |= r.value_type == RefValueType::kDeletion;
    out->last.assign(key);
    prev = out->last;
  }
  if (it.error()) return bad("malformed ref record");
  if (!restarts.End()) return bad(restarts.Problem());
  if (out->count == 0) return bad("no records");
  return Status::Ok();
}

}  // namespace

Status OrderDisjointTables(const std::vector<const TableReader*>& tables,
                           std::vector<const TableReader*>* order) {
  order->clear();
  std::vector<KeyRange> ranges(tables.size());
  for (size_t i = 0; i < tables.size(); ++i) {
    bool eligible = false;
    REFTAB_RETURN_IF_ERROR(RangeOf(tables[i], &ranges[i], &eligible));
    if (!eligible) return Status::Ok();
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const KeyRange& a, const KeyRange& b) { return a.first < b.first; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first <= ranges[i - 1].last) return Status::Ok();  // they overlap
  }
  for (const KeyRange& r : ranges) order->push_back(r.table);
  return Status::Ok();
}

Status WriteDisjointTables(TableWriter& w, const std::vector<const TableReader*>& order,
                           bool drop_tombstones, const CompactionOptions& options, bool* copied) {
  *copied = false;
  ProgressPhase progress(options.progress, "Compacting records", 0);
  uint64_t done = 0;
  BlockRecords records;
  std::string last;  // the last key copied
  for (const TableReader* t : order) {
    const BlockSource& src = t->source();
    uint64_t released = 0;
    uint64_t at = 0;
    // Blocks after the first come through a window read ahead (store/readahead_window.h),
    // as a record merge's do; the first (it carries the file header), a block the window
    // cannot give and everything after a failed read come from the mapping.
    ReadaheadWindow window;
    bool ahead = true;
    for (;;) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
        return Status::Outdated("compaction cancelled");
      }
      BlockView b;
      const ReadaheadWindow::Load load =
          ahead ? window.LoadForward(*t, at, BlockType::kRef, &b) : ReadaheadWindow::Load::kNotHere;
      if (load == ReadaheadWindow::Load::kReadFailed) ahead = false;
      if (load != ReadaheadWindow::Load::kLoaded) {
        if (at >= src.table_size || PeekBlockType(src, at) != uint8_t(BlockType::kRef)) break;
        Status s = DecodeBlock(src, at, nullptr, nullptr, &b);
        if (!s.ok()) return std::move(s).WithContext(t->name());
      }
      REFTAB_RETURN_IF_ERROR(CheckRefBlock(*t, b, last, &records));
      if (drop_tombstones && records.tombstones) return Status::Ok();
      REFTAB_RETURN_IF_ERROR(
          TableRefBlocks::Copy(w, b, records.first, records.last, records.count));
      last.swap(records.last);
      done += records.count;
      progress.Set(done);
      at += b.full_size;
      // Whole steps behind the next block, as MergeCursor::ReleasePassedPages gives them.
      if (at - released >= kMergeReleaseStep) {
        const uint64_t upto = at / kMergeReleaseStep * kMergeReleaseStep;
        t->ReleasePages(released, upto - released);
        released = upto;
      }
    }
    REFTAB_RETURN_IF_ERROR(t->CheckSectionEnd(at, BlockType::kRef));
  }
  *copied = true;
  return Status::Ok();
}

}  // namespace reftab

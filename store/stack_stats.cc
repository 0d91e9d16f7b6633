#include "store/stack_stats.h"

#include <algorithm>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "store/merge_cursor.h"
#include "store/merged_iterator.h"

namespace reftab {
namespace {

constexpr int kMaxIndexLevels = 64;  // far above what any table has; stops a corrupt loop

SectionStats* SectionOf(TableStats* t, BlockType type) {
  switch (type) {
    case BlockType::kObj: return &t->obj;
    case BlockType::kLog: return &t->log;
    default: return &t->ref;
  }
}

// Records in one block, counted by walking its keys.
Status CountRecords(const TableReader& table, const BlockView& b, uint64_t* n) {
  BlockIterator it;
  it.Init(b, table.hash_size());
  while (it.NextKey()) ++*n;
  if (it.error())
    return table.Error("block at offset " + std::to_string(b.offset) + ": bad record");
  return Status::Ok();
}

// The depth of a section's index: index blocks followed from the top through each first
// record down to a block of the section's own type.
Status IndexLevels(const TableReader& table, uint64_t top, int* levels) {
  *levels = 0;
  const BlockSource& src = table.source();
  uint64_t pos = top;
  while (top != 0 && PeekBlockType(src, pos) == uint8_t(BlockType::kIndex)) {
    if (++*levels > kMaxIndexLevels) return table.Error("index deeper than any table has");
    BlockView view;
    REFTAB_RETURN_IF_ERROR(DecodeBlock(src, pos, nullptr, nullptr, &view));
    BlockFind f = FindInBlock(view, "", table.hash_size());
    if (f.result != BlockFind::kEqual && f.result != BlockFind::kGreater) {
      return table.Error("index block at offset " + std::to_string(pos) + " has no record");
    }
    ByteReader in(view.data + f.value_pos, view.data + view.restart_off);
    pos = in.GetVarint();
    if (!in.ok()) return table.Error("malformed index record at offset " + std::to_string(pos));
  }
  return Status::Ok();
}

Status CountBlocks(const TableReader& table, TableStats* out) {
  BlockType section = BlockType::kRef;
  return table.ForEachBlock([&](const BlockView& b) {
    if (b.type != BlockType::kIndex) section = b.type;
    SectionStats* s = SectionOf(out, section);
    if (b.type == BlockType::kIndex) {
      ++s->index_blocks;
      s->index_bytes += b.full_size;
      return CountRecords(table, b, &s->index_records);
    }
    // The last block of a table is not padded: it ends where the table's blocks end.
    uint64_t on_disk = std::min(b.full_size, table.source().table_size - b.offset);
    ++s->blocks;
    s->bytes_used += b.block_len;
    s->bytes_capacity += out->block_size ? out->block_size : on_disk;
    s->file_bytes += on_disk;
    if (b.type == BlockType::kObj) return CountRecords(table, b, &s->records);
    return Status::Ok();
  });
}

Status CountRefsAndLogs(const TableReader& table, TableStats* out) {
  TableRefCursor refs(&table);
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord r;
  while (refs.Next(&r)) {
    ++out->ref.records;
    if (r.value_type == RefValueType::kDeletion) {
      ++out->ref_tombstones;
    } else {
      ++out->refs;
      if (r.value_type == RefValueType::kSymref) ++out->symrefs;
    }
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  TableLogCursor logs(&table);
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord l;
  while (logs.Next(&l)) {
    ++out->log.records;
    if (l.value_type == LogValueType::kDeletion) {
      ++out->log_tombstones;
    } else {
      ++out->log_entries;
    }
  }
  return logs.status();
}

Status CountLive(const Snapshot& snap, StackStats* out) {
  RefMergeCursor refs(snap.readers());
  refs.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord r;
  while (refs.Next(&r)) ++out->live_refs;
  REFTAB_RETURN_IF_ERROR(refs.status());
  LogMergeCursor logs(snap.readers());
  logs.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord l;
  while (logs.Next(&l)) ++out->live_reflog_entries;
  return logs.status();
}

}  // namespace

Status ComputeTableStats(const TableReader& table, const std::string& name, TableStats* out) {
  *out = TableStats();
  const TableFooter& f = table.footer();
  out->name = name;
  out->file_size = table.file_size();
  out->version = f.header.version;
  out->block_size = f.header.block_size;
  out->min_update_index = table.min_update_index();
  out->max_update_index = table.max_update_index();
  out->obj_id_len = f.obj_id_len;
  REFTAB_RETURN_IF_ERROR(CountBlocks(table, out));
  REFTAB_RETURN_IF_ERROR(CountRefsAndLogs(table, out));
  REFTAB_RETURN_IF_ERROR(IndexLevels(table, f.ref_index_position, &out->ref.index_levels));
  REFTAB_RETURN_IF_ERROR(IndexLevels(table, f.obj_index_position, &out->obj.index_levels));
  return IndexLevels(table, f.log_index_position, &out->log.index_levels);
}

Status ComputeStackStats(const Stack& stack, StackStats* out) {
  *out = StackStats();
  auto snap = stack.snapshot();
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < snap->tables().size(); ++i) {
    const TableReader& t = *snap->tables()[i];
    TableStats ts;
    REFTAB_RETURN_IF_ERROR(ComputeTableStats(t, stack.names()[i], &ts));
    out->total_bytes += ts.file_size;
    sizes.push_back(PolicySize(ts.file_size, ts.version));
    out->tables.push_back(std::move(ts));
  }
  REFTAB_RETURN_IF_ERROR(CountLive(*snap, out));
  uint32_t factor = stack.options().geometric_factor;
  out->geometric_factor = factor ? factor : 2;
  if (stack.options().auto_compact) out->compaction_due = SuggestCompaction(sizes, factor);
  return Status::Ok();
}

}  // namespace reftab

#include "store/table_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "format/block_reader.h"
#include "format/record_codec.h"
#include "format/record_match.h"
#include "store/ref_block_index.h"
#include "store/ref_filter.h"
#include "store/ref_hash_index.h"
#include "store/section_cursor.h"
#include "store/trace.h"

namespace reftab {
// ---------------------------------------------------------------- TableReader

// Kept out of the installed header: the lookup aids' layout and their synchronisation are
// nobody's business but this file's.
struct TableReader::LookupAids {
  // RefMayExist's lazily built filter: published once through ref_filter (owned by
  // ref_filter_owner, written under mu).
  std::atomic<const RefFilter*> ref_filter{nullptr};
  std::unique_ptr<RefFilter> ref_filter_owner;
  std::mutex mu;
  std::atomic<uint64_t> filter_queries{0};
  std::atomic<bool> filter_failed{false};
  // LocateRef's flattened index, built and published the same way (under mu).
  std::atomic<const RefBlockIndex*> ref_block_index{nullptr};
  std::unique_ptr<RefBlockIndex> ref_block_index_owner;
  std::atomic<uint64_t> locate_queries{0};
  std::atomic<bool> ref_block_index_failed{false};
  // ReadRef's hash index (store/ref_hash_index.h), built and published the same way.
  std::atomic<const RefHashIndex*> ref_hash_index{nullptr};
  std::unique_ptr<RefHashIndex> ref_hash_index_owner;
  std::atomic<uint64_t> hash_queries{0};
  std::atomic<bool> ref_hash_index_failed{false};
  // Whether the filter and the indexes may be built: always, but for a measurement of what
  // they bring (set_lookup_aids).
  std::atomic<bool> enabled{true};

  // The hash index once it is built, building it when it is due; null before that.
  static const RefHashIndex* HashIndex(const TableReader& t);
  static bool BuildHashIndex(const TableReader& t);
  // ReadRef before the hash index is built (or while it is being built).
  [[gnu::noinline]] static Status ReadUnhashed(const TableReader& t, std::string_view name,
                                               RefRecord* ref, bool* found);
  // ReadRef through the hash index: every candidate of the probe for `hash` in turn, from
  // `slot`, whose lines the caller asked for already if `slot_prefetched`.
  // Inline: in ReadRef the lookup is then one frame with one call (the hash) in it.
  REFTAB_FORCE_INLINE static Status ReadHashed(const TableReader& t, const RefHashIndex& index,
                                               uint64_t hash, size_t slot, std::string_view name,
                                               RefRecord* ref, bool* found,
                                               bool slot_prefetched = false);
  // Asks for the lines ReadAt reads: the block header and the records from the restart
  // point to the one named.
  // (Both inline: a lookup's path is one frame.)
  REFTAB_FORCE_INLINE static void Prefetch(const TableReader& t, const RefHashIndex::Location& at);
  // Reads the record a hash index entry names: kHit (*ref filled in) if its key is `name`,
  // kMiss if it is another, kBad if the block does not read cleanly there. The status of a
  // damaged record is made apart (Damage): the lookup's own path carries no Status.
  enum class Outcome : uint8_t { kMiss, kHit, kBad };
  // ReadAt's first half, which seeks share (FindExactRef): whether the record `at` names
  // has the key `name` (kHit: *f and *end, where the block's records end, set).
  REFTAB_FORCE_INLINE static Outcome MatchAt(const TableReader& t, const RefHashIndex::Location& at,
                                             std::string_view name, BlockFind* f, uint32_t* end);
  REFTAB_FORCE_INLINE static Outcome ReadAt(const TableReader& t, const RefHashIndex::Location& at,
                                            std::string_view name, RefRecord* ref);
  // What is wrong at `at`, for a ReadAt that answered kBad.
  [[gnu::cold, gnu::noinline]] static Status Damage(const TableReader& t,
                                                    const RefHashIndex::Location& at);

  // Counts one more query toward a lazily built aid; true once there have been about one
  // per `bytes_per_query` of a table of `file_size` bytes and building is allowed and has
  // not failed.
  bool DueForBuild(std::atomic<uint64_t>* queries, uint64_t bytes_per_query,
                   const std::atomic<bool>& failed, uint64_t file_size) const;
};

namespace {

// A table's bytes as the lookup aids' build thresholds (DueForBuild) count them. A build
// reads every record's key (the filter, the hash index) or every block's last key (the
// block index): its price, in file bytes per lookup, was set for tables of 4 KiB blocks of
// small records. A table with larger blocks (the key/value store's with large values, whose
// blocks are raised to hold them) has as many times fewer blocks and, its records being as
// large, fewer records per byte: its bytes count that many times less. (A 1 GB table of
// 100 KiB values in 512 KiB blocks: the hash index after about 7,600 lookups, not a million.)
uint64_t AidPriceBytes(const TableReader& t) {
  return t.file_size() / std::max<uint64_t>(1, t.header().block_size / 4096);
}

}  // namespace

TableReader::~TableReader() = default;

void TableReader::set_lookup_aids(bool on) const {
  aids_->enabled.store(on, std::memory_order_relaxed);
}

bool TableReader::lookup_aids() const { return aids_->enabled.load(std::memory_order_relaxed); }

TableReader::TableReader(std::unique_ptr<RandomAccessFile> file, const TableFooter& footer)
    : file_(std::move(file)),
      footer_(footer),
      source_(std::make_unique<BlockSource>()),
      aids_(std::make_unique<LookupAids>()) {
  source_->data = file_->data();
  source_->table_size = file_->size() - footer_.header.footer_size();
  source_->header_size = uint32_t(footer_.header.header_size());
  source_->block_size = footer_.header.block_size;
}

Status TableReader::Error(std::string_view what) const {
  return Status::Corruption(name() + ": " + std::string(what));
}

Result<std::unique_ptr<TableReader>> TableReader::Open(std::unique_ptr<RandomAccessFile> file) {
  const std::string& name = file->name();
  const uint8_t* data = file->data();
  uint64_t size = file->size();
  auto header = TableHeader::DecodeFrom(data, size);
  if (!header.ok()) return header.status().WithContext(name + ": offset 0");
  uint64_t fs = header->footer_size();
  if (size < header->header_size() + fs) {
    return Status::Corruption(name + ": file of " + std::to_string(size) +
                              " bytes is too small for header and footer (truncated?)");
  }
  uint64_t footer_off = size - fs;
  auto footer = TableFooter::DecodeFrom(data + footer_off, fs, data);
  if (!footer.ok()) {
    return footer.status().WithContext(name + ": footer at offset " + std::to_string(footer_off));
  }
  const TableFooter& f = *footer;
  uint64_t table_size = footer_off;
  auto bad_pos = [&](uint64_t pos, const char* field) -> Status {
    return Status::Corruption(name + ": footer at offset " + std::to_string(footer_off) + ": " +
                              field + " " + std::to_string(pos) + " is past the block data");
  };
  if (f.ref_index_position >= table_size && f.ref_index_position) {
    return bad_pos(f.ref_index_position, "ref_index_position");
  }
  if (f.obj_position >= table_size && f.obj_position)
    return bad_pos(f.obj_position, "obj_position");
  if (f.obj_index_position >= table_size && f.obj_index_position) {
    return bad_pos(f.obj_index_position, "obj_index_position");
  }
  if (f.log_position >= table_size && f.log_position)
    return bad_pos(f.log_position, "log_position");
  if (f.log_index_position >= table_size && f.log_index_position) {
    return bad_pos(f.log_index_position, "log_index_position");
  }
  // Which sections exist is read from the first block's type: one no writer emits would
  // otherwise pass for "no refs, no logs".
  BlockSource first{data, table_size, uint32_t(header->header_size()), header->block_size};
  if (table_size > first.header_size && PeekBlockType(first, 0) == 0) {
    return Status::Corruption(name + ": block at offset 0: " + DescribeMissingBlock(first, 0));
  }
  if (f.obj_position && f.obj_id_len > f.header.hash_size()) {
    return Status::Corruption(name + ": footer: obj_id_len " + std::to_string(f.obj_id_len) +
                              " is longer than the hash");
  }
  REFTAB_TRACE(trace::kInfo,
               "%s: opened, %llu bytes, version %d, block size %u, update indexes %llu..%llu, "
               "ref index at %llu, obj at %llu, log at %llu",
               name.c_str(), (unsigned long long)size, int(f.header.version),
               unsigned(f.header.block_size), (unsigned long long)f.header.min_update_index,
               (unsigned long long)f.header.max_update_index,
               (unsigned long long)f.ref_index_position, (unsigned long long)f.obj_position,
               (unsigned long long)f.log_position);
  return std::unique_ptr<TableReader>(new TableReader(std::move(file), f));
}

Result<std::unique_ptr<TableReader>> TableReader::OpenBytes(std::string name, std::string bytes) {
  return Open(NewMemoryFile(std::move(name), std::move(bytes)));
}

bool TableReader::RefSectionStart(uint64_t* offset) const {
  *offset = 0;
  return PeekBlockType(*source_, 0) == uint8_t(BlockType::kRef);
}

bool TableReader::LogSectionStart(uint64_t* offset) const {
  if (footer_.log_position > 0) {
    *offset = footer_.log_position;
    return true;
  }
  *offset = 0;
  return PeekBlockType(*source_, 0) == uint8_t(BlockType::kLog);
}

bool TableReader::ObjSectionStart(uint64_t* offset) const {
  *offset = footer_.obj_position;
  return footer_.obj_position > 0;
}

uint64_t TableReader::IndexPosition(BlockType section) const {
  switch (section) {
    case BlockType::kRef: return footer_.ref_index_position;
    case BlockType::kObj: return footer_.obj_index_position;
    case BlockType::kLog: return footer_.log_index_position;
    case BlockType::kIndex: return 0;
  }
  return 0;
}

Status TableReader::DescendIndex(uint64_t pos, BlockType leaf, std::string_view want,
                                 uint64_t* offset, bool* found) const {
  *found = false;
  for (int depth = 0; depth < kMaxIndexDepth;) {
    if (PeekBlockType(*source_, pos) != uint8_t(BlockType::kIndex)) {
      return Error("block at offset " + std::to_string(pos) + ": expected a index block");
    }
    BlockView view;
    Status s = DecodeBlock(*source_, pos, nullptr, nullptr, &view);
    REFTAB_TRACE(trace::kBlock, "%s: index block at %llu (descending to a %s block): %s",
                 name().c_str(), (unsigned long long)pos, SectionName(leaf),
                 s.ok() ? "read" : s.message().c_str());
    if (!s.ok()) return std::move(s).WithContext(name());
    BlockFind f = FindInBlock(view, want, hash_size());
    if (f.result == BlockFind::kCorrupt) {
      return Error("block at offset " + std::to_string(pos) + ": malformed index record");
    }
    if (f.result == BlockFind::kEnd) {
      // Every key here is smaller: the level continues in the next index block, if any.
      uint64_t next = pos + view.full_size;
      if (PeekBlockType(*source_, next) != uint8_t(BlockType::kIndex)) {
        return CheckSectionEnd(next, BlockType::kIndex);
      }
      pos = next;
      continue;
    }
    ByteReader in(view.data + f.value_pos, view.data + view.restart_off);
    uint64_t child = in.GetVarint();
    if (!in.ok()) {
      return Error("block at offset " + std::to_string(pos) + ": malformed index record");
    }
    // The child is probably not in cache: fetch its header and the tail of the block, where
    // the restart table of a padded block sits, in parallel (FindInBlock reads both next).
    if (child < source_->table_size) {
      __builtin_prefetch(source_->data + child);
      uint64_t tail = child + (source_->block_size ? source_->block_size : 0);
      if (source_->block_size && tail <= source_->table_size) {
        __builtin_prefetch(source_->data + tail - 1);
        __builtin_prefetch(source_->data + tail - 65);
      }
    }
    uint8_t t = PeekBlockType(*source_, child);
    if (t == uint8_t(leaf)) {
      *offset = child;
      *found = true;
      return Status::Ok();
    }
    if (t != uint8_t(BlockType::kIndex)) {
      return Error("index record points at offset " + std::to_string(child) + ", which holds no " +
                   SectionName(leaf) + " or index block");
    }
    pos = child;
    ++depth;
  }
  return Error(std::string(SectionName(leaf)) + " index is nested too deeply (a loop?)");
}

Status TableReader::CheckSectionEnd(uint64_t next, BlockType section) const {
  if (next >= source_->table_size) return Status::Ok();
  uint8_t t = PeekBlockType(*source_, next);
  if (t == 0) {
    return Error("block at offset " + std::to_string(next) + ": " +
                 DescribeMissingBlock(*source_, next));
  }
  bool may_follow = t == uint8_t(section);
  switch (BlockType(t)) {
    case BlockType::kIndex: {
      // A section's index (its lower levels first) follows its last block.
      uint64_t index_pos = section == BlockType::kIndex ? 0 : IndexPosition(section);
      may_follow = may_follow || (index_pos != 0 && next <= index_pos);
      break;
    }
    case BlockType::kObj: may_follow = may_follow || next == footer_.obj_position; break;
    case BlockType::kLog: may_follow = may_follow || next == footer_.log_position; break;
    case BlockType::kRef: break;  // refs only ever start the file
  }
  if (may_follow) return Status::Ok();
  return Error("block at offset " + std::to_string(next) + ": unexpected " +
               SectionName(BlockType(t)) + " block after the " + SectionName(section) +
               " block before it (the footer starts no section there)");
}

Status TableReader::ReadRef(std::string_view name, RefRecord* ref, bool* found) const {
  // A table serving many lookups has its hash index built: that path first, with nothing
  // else in this frame, the rest (the index not built yet, or due) apart.
  if (const RefHashIndex* index = aids_->ref_hash_index.load(std::memory_order_acquire)) {
    const uint64_t hash = RefFilter::Hash(name);
    return LookupAids::ReadHashed(*this, *index, hash, index->FirstCandidate(hash), name, ref,
                                  found);
  }
  return LookupAids::ReadUnhashed(*this, name, ref, found);
}

Status TableReader::LookupAids::ReadUnhashed(const TableReader& t, std::string_view name,
                                             RefRecord* ref, bool* found) {
  *found = false;  // also when FindRefBlock fails
  if (const RefHashIndex* index = HashIndex(t)) {
    const uint64_t hash = RefFilter::Hash(name);
    return ReadHashed(t, *index, hash, index->FirstCandidate(hash), name, ref, found);
  }
  uint64_t pos = 0;
  // No PrefetchBlockKeys here: FindInBlock asks for the same lines as its first step.
  REFTAB_RETURN_IF_ERROR(t.FindRefBlock(name, &pos));
  if (pos == kNoBlock) {
    *found = false;
    return Status::Ok();
  }
  return t.ReadRefAt(pos, name, ref, found);
}

const RefHashIndex* TableReader::LookupAids::HashIndex(const TableReader& t) {
  LookupAids& aids = *t.aids_;
  if (const RefHashIndex* built = aids.ref_hash_index.load(std::memory_order_acquire)) {
    return built;
  }
  if (!aids.DueForBuild(&aids.hash_queries, 1024, aids.ref_hash_index_failed, AidPriceBytes(t))) {
    return nullptr;
  }
  std::unique_lock<std::mutex> lock(aids.mu, std::try_to_lock);
  if (!lock.owns_lock()) return nullptr;  // another thread is building an aid
  if (!aids.ref_hash_index.load(std::memory_order_acquire) && !BuildHashIndex(t)) return nullptr;
  return aids.ref_hash_index.load(std::memory_order_acquire);
}

// One pass over the ref blocks: every record's hash with its block, the restart point of
// its interval and its own offset. A table that does not read cleanly gets no index (its
// lookups report the damage the usual way), and neither does one whose restart table does
// not mark record starts, since an entry must lead to its record.
bool TableReader::LookupAids::BuildHashIndex(const TableReader& t) {
  LookupAids& aids = *t.aids_;
  std::vector<RefHashIndex::Entry> entries;
  uint64_t pos = 0;
  // Block offsets are stored in units of the block size when every ref block is aligned.
  const uint64_t block_size = t.source_->block_size;
  bool aligned = block_size != 0;
  bool ok = true;
  if (t.RefSectionStart(&pos)) {
    while (ok && PeekBlockType(*t.source_, pos) == uint8_t(BlockType::kRef)) {
      BlockView view;
      ok = DecodeBlock(*t.source_, pos, nullptr, nullptr, &view).ok();
      if (!ok) break;
      aligned = aligned && pos % block_size == 0;
      auto restart = [&](uint32_t i) { return be::Load24(view.data + view.restart_off + 3 * i); };
      uint32_t at = view.header_off + uint32_t(kBlockHeaderSize), ri = 0;
      ok = restart(0) == at;
      BlockIterator it;
      it.Init(view, t.hash_size());
      // The checkpoint (ref_hash_index.h): the last record since the restart point that
      // shares no more with the record before it than any record since the restart point.
      uint32_t checkpoint = at;
      uint64_t least_prefix = ~uint64_t(0);
      const uint8_t* const records_end = view.data + view.restart_off;
      while (ok && it.NextKey()) {
        for (; ri + 1 < view.restart_count && restart(ri + 1) <= at; ++ri) {
          ok = ok && restart(ri + 1) == at;
        }
        uint64_t prefix = 0;
        const uint8_t* q = view.data + at;
        ok = ok && GetVarintAt(&q, records_end, &prefix);
        if (at == restart(ri)) {
          checkpoint = at;
          least_prefix = ~uint64_t(0);
        } else if (prefix <= least_prefix) {
          checkpoint = at;
          least_prefix = prefix;
        }
        entries.push_back({RefFilter::Hash(it.key()), {pos, restart(ri), checkpoint, at}});
        ByteReader in = it.value();
        ok = ok && SkipValue(in, BlockType::kRef, it.value_type(), t.hash_size());
        it.ValueDone(in);
        at = uint32_t(in.pos() - view.data);
      }
      ok = ok && !it.error();
      pos += view.full_size;
    }
    ok = ok && t.CheckSectionEnd(pos, BlockType::kRef).ok();
  }
  std::unique_ptr<RefHashIndex> index;
  if (ok) index = RefHashIndex::Build(entries, aligned ? block_size : 1);
  if (!index) {
    aids.ref_hash_index_failed.store(true, std::memory_order_relaxed);
    REFTAB_TRACE(trace::kInfo, "%s: no ref hash index (%s)", t.name().c_str(),
                 ok ? "its offsets do not fit an entry" : "the ref section does not read cleanly");
    return false;
  }
  REFTAB_TRACE(trace::kInfo, "%s: ref hash index built: %zu refs, %zu bytes, %d tag bits",
               t.name().c_str(), entries.size(), index->memory_bytes(), index->tag_bits());
  aids.ref_hash_index_owner = std::move(index);
  aids.ref_hash_index.store(aids.ref_hash_index_owner.get(), std::memory_order_release);
  return true;
}

Status TableReader::LookupAids::ReadHashed(const TableReader& t, const RefHashIndex& index,
                                           uint64_t hash, size_t slot, std::string_view name,
                                           RefRecord* ref, bool* found, bool slot_prefetched) {
  *found = false;
  for (bool fetch = !slot_prefetched; slot != RefHashIndex::kNone;
       slot = index.NextCandidate(hash, slot), fetch = true) {
    const RefHashIndex::Location at = index.At(slot);
    if (fetch) Prefetch(t, at);
    const Outcome o = ReadAt(t, at, name, ref);
    if (o == Outcome::kHit) {
      *found = true;
      break;
    }
    if (o == Outcome::kBad) return Damage(t, at);
    // kMiss: another name with the same tag
  }
  return Status::Ok();
}

void TableReader::LookupAids::Prefetch(const TableReader& t, const RefHashIndex::Location& at) {
  // Addresses, not pointers: a prefetch never faults, so one past the table (an entry of a
  // table whose last block is short) needs no check.
  constexpr uintptr_t kLine = 64;
  const uintptr_t b = reinterpret_cast<uintptr_t>(t.source_->data) + at.block_offset;
  __builtin_prefetch(reinterpret_cast<const void*>(b));  // the block header
  if (at.checkpoint > at.restart) {
    // The restart key: a whole name, often on two lines.
    __builtin_prefetch(reinterpret_cast<const void*>(b + at.restart));
    __builtin_prefetch(reinterpret_cast<const void*>(b + at.restart + kLine));
  }
  // Every line of the walk, up to the one after the record's start (its key and value),
  // when the walk is short. Over records of kilobytes (a key/value store's large values)
  // the lines between are mostly the values the walk steps over: asking for each of them
  // took 15% of the lookups of 100 KiB values once their pages were mapped (perf, 2026-12-06),
  // so then only the checkpoint's lines and the record's.
  constexpr uintptr_t kMaxWalkLines = 16;
  const uintptr_t first = (b + at.checkpoint) & ~(kLine - 1);
  const uintptr_t last = b + at.record + kLine;
  if (last - first > kMaxWalkLines * kLine) {
    __builtin_prefetch(reinterpret_cast<const void*>(first));
    __builtin_prefetch(reinterpret_cast<const void*>(first + kLine));
    __builtin_prefetch(reinterpret_cast<const void*>(last - kLine));
    __builtin_prefetch(reinterpret_cast<const void*>(last));
    return;
  }
  for (uintptr_t a = first; a <= last; a += kLine) {
    __builtin_prefetch(reinterpret_cast<const void*>(a));
  }
}

// The checks of ReadAt's block header: true (*end set) if the block at at.block_offset is a
// ref block that fits the table.
static inline bool RefBlockEnd(const BlockSource& src, uint64_t pos, uint32_t* first,
                               uint32_t* end) {
  // The block header only: the entry says where the record is, so neither the restart
  // table nor the padding is read. The records end where the restart count begins at the
  // latest (the restart table lies before it, and the walk never reaches it in a table the
  // index was built from).
  const uint32_t header_off = pos == 0 ? src.header_size : 0;
  *first = header_off + uint32_t(kBlockHeaderSize);
  if (!FitsWithin(pos, *first, src.table_size)) return false;
  const uint8_t* b = src.data + pos;
  if (b[header_off] != uint8_t(BlockType::kRef)) return false;
  const uint32_t block_len = be::Load24(b + header_off + 1);
  if (block_len < *first + 2 || !FitsWithin(pos, block_len, src.table_size)) return false;
  *end = block_len - 2;
  return true;
}

TableReader::LookupAids::Outcome TableReader::LookupAids::MatchAt(const TableReader& t,
                                                                  const RefHashIndex::Location& at,
                                                                  std::string_view name,
                                                                  BlockFind* f, uint32_t* end) {
  const BlockSource& src = *t.source_;
  uint32_t first;
  if (!RefBlockEnd(src, at.block_offset, &first, end)) return Outcome::kBad;
  *f = MatchRecordAt(src.data + at.block_offset,
                     {first, at.restart, at.checkpoint, at.record, *end}, name, t.hash_size());
  if (f->result == BlockFind::kEqual) return Outcome::kHit;
  return f->result == BlockFind::kCorrupt ? Outcome::kBad : Outcome::kMiss;
}

TableReader::LookupAids::Outcome TableReader::LookupAids::ReadAt(const TableReader& t,
                                                                 const RefHashIndex::Location& at,
                                                                 std::string_view name,
                                                                 RefRecord* ref) {
  BlockFind f;
  uint32_t end;
  const Outcome o = MatchAt(t, at, name, &f, &end);
  if (o != Outcome::kHit) return o;
  const uint8_t* b = t.source_->data + at.block_offset;
  if (!t.GetFoundValue(ByteReader(b + f.value_pos, b + end), f.value_type, ref)) {
    return Outcome::kBad;
  }
  // The name is `name`. A caller reusing one record for its lookups mostly has room for it
  // in place (within the string's capacity, also when the name is longer than the last
  // one): copied inline there, since assign's aliasing checks and memcpy call cost as much
  // as the rest of a lookup's decoding.
  std::string& out = ref->refname;
  if (name.size() <= out.capacity()) {
    out.resize(name.size());
    CopyShort(out.data(), name.data(), name.size());
  } else {
    out.assign(name.data(), name.size());
  }
  return Outcome::kHit;
}

Status TableReader::FindExactRef(std::string_view name, uint64_t* block_offset, uint32_t* record,
                                 ExactRef* result) const {
  *result = ExactRef::kNoIndex;
  const RefHashIndex* index = LookupAids::HashIndex(*this);
  if (index == nullptr) return Status::Ok();
  *result = ExactRef::kAbsent;
  const uint64_t hash = RefFilter::Hash(name);
  for (size_t slot = index->FirstCandidate(hash); slot != RefHashIndex::kNone;
       slot = index->NextCandidate(hash, slot)) {
    const RefHashIndex::Location at = index->At(slot);
    LookupAids::Prefetch(*this, at);
    BlockFind f;
    uint32_t end;
    const LookupAids::Outcome o = LookupAids::MatchAt(*this, at, name, &f, &end);
    if (o == LookupAids::Outcome::kBad) return LookupAids::Damage(*this, at);
    if (o == LookupAids::Outcome::kHit) {
      *block_offset = at.block_offset;
      *record = at.record;
      *result = ExactRef::kFound;
      return Status::Ok();
    }
    // kEnd: another name with the same tag; the probe goes on
  }
  return Status::Ok();
}

Status TableReader::LookupAids::Damage(const TableReader& t, const RefHashIndex::Location& at) {
  const BlockSource& src = *t.source_;
  const uint64_t pos = at.block_offset;
  const uint32_t header_off = pos == 0 ? src.header_size : 0;
  const uint32_t first = header_off + uint32_t(kBlockHeaderSize);
  if (!FitsWithin(pos, first, src.table_size)) {
    return t.Error("block at offset " + std::to_string(pos) +
                   ": block header past the end of the table");
  }
  const uint8_t* b = src.data + pos;
  if (b[header_off] != uint8_t(BlockType::kRef)) {
    return t.Error("block at offset " + std::to_string(pos) + ": expected a ref block");
  }
  const uint32_t block_len = be::Load24(b + header_off + 1);
  if (block_len < first + 2 || !FitsWithin(pos, block_len, src.table_size)) {
    return t.Error("block at offset " + std::to_string(pos) + ": block_len " +
                   std::to_string(block_len) + " does not fit");
  }
  // The header is sound: the record there (or its value) is malformed.
  return t.Error("block at offset " + std::to_string(pos) + ": malformed ref record at " +
                 std::to_string(pos + at.record));
}

// Across tables a name is usually in one of them or in none. Each table's probe costs a
// cache miss (its first slot, or its filter's line and the on-disk index for a table that
// has no hash index yet), and so does each candidate's block: so every table's first slot
// is asked for at once, then every candidate's record, and only then are the records read,
// newest table first, stopping at the first that holds the name.
Status TableReader::ReadRefNewest(const TableReader* const* tables, size_t n, std::string_view name,
                                  RefRecord* ref, bool* found) {
  *found = false;
  const uint64_t hash = RefFilter::Hash(name);
  // A stack deeper than kBatch is handled kBatch tables at a time, newest first.
  constexpr size_t kBatch = 16;
  struct Probe {
    const RefHashIndex* index;
    uint64_t pos;  // index: the first candidate's slot; else LocateRef's block (or kNoBlock)
  };
  Probe probes[kBatch];
  for (size_t end = n; end > 0;) {
    const size_t begin = end > kBatch ? end - kBatch : 0, count = end - begin;
    for (size_t k = 0; k < count; ++k) {
      const TableReader& t = *tables[end - 1 - k];
      Probe& p = probes[k];
      p.index = LookupAids::HashIndex(t);
      if (p.index != nullptr) {
        p.index->PrefetchHome(hash);
        continue;
      }
      p.pos = kNoBlock;
      if (t.RefMayExist(hash)) REFTAB_RETURN_IF_ERROR(t.LocateRef(name, &p.pos));
    }
    for (size_t k = 0; k < count; ++k) {
      Probe& p = probes[k];
      if (p.index == nullptr) continue;
      p.pos = p.index->FirstCandidate(hash);
      if (p.pos != RefHashIndex::kNone)
        LookupAids::Prefetch(*tables[end - 1 - k], p.index->At(p.pos));
    }
    for (size_t k = 0; k < count; ++k) {
      const TableReader& t = *tables[end - 1 - k];
      const Probe& p = probes[k];
      if (p.index != nullptr) {
        // The first candidate's lines were asked for above.
        REFTAB_RETURN_IF_ERROR(
            LookupAids::ReadHashed(t, *p.index, hash, p.pos, name, ref, found, true));
      } else if (p.pos != kNoBlock) {
        REFTAB_RETURN_IF_ERROR(t.ReadRefAt(p.pos, name, ref, found));
      }
      if (*found) return Status::Ok();
    }
    end = begin;
  }
  return Status::Ok();
}

size_t TableReader::ref_hash_index_bytes() const {
  const RefHashIndex* index = aids_->ref_hash_index.load(std::memory_order_acquire);
  return index ? index->memory_bytes() : 0;
}

Status TableReader::LocateRef(std::string_view name, uint64_t* pos) const {
  REFTAB_RETURN_IF_ERROR(FindRefBlock(name, pos));
  if (*pos != kNoBlock) PrefetchBlockKeys(*source_, *pos);
  return Status::Ok();
}

Status TableReader::FindIndexedBlock(BlockType section, std::string_view want, uint64_t* offset,
                                     bool* found) const {
  if (section == BlockType::kRef) {
    const RefBlockIndex* flat = aids_->ref_block_index.load(std::memory_order_acquire);
    if (!flat) flat = MaybeBuildRefBlockIndex();
    if (flat) {
      *found = flat->Find(want, offset);
      return Status::Ok();
    }
  }
  *found = false;
  return DescendIndex(IndexPosition(section), section, want, offset, found);
}

Status TableReader::FindRefBlock(std::string_view name, uint64_t* pos) const {
  *pos = kNoBlock;
  uint64_t at = 0;
  if (footer_.ref_index_position != 0) {
    bool any = false;
    REFTAB_RETURN_IF_ERROR(FindIndexedBlock(BlockType::kRef, name, &at, &any));
    if (!any) return Status::Ok();
  } else if (!RefSectionStart(&at)) {
    return Status::Ok();
  }
  *pos = at;
  return Status::Ok();
}

bool TableReader::GetFoundValue(ByteReader in, uint8_t value_type, RefRecord* ref) const {
  if (value_type != uint8_t(RefValueType::kSymref) || in.remaining() < kReadTargetBytes) {
    return codec::GetRefValue(in, value_type, min_update_index(), hash_size(), ref);
  }
  const std::string_view t = codec::GetSymrefValue(in, min_update_index(), ref);
  if (!in.ok()) return false;
  // Ref blocks are never compressed: the target's bytes are the file's, at their offset
  // from the mapping's start.
  const uint64_t at = uint64_t(reinterpret_cast<const uint8_t*>(t.data()) - source_->data);
  if (t.size() >= kReadTargetBytes) {
    ref->target.resize(t.size());
    if (CopyBytes(at, t.size(), reinterpret_cast<uint8_t*>(ref->target.data()))) return true;
  }
  ref->target.assign(t.data(), t.size());
  return true;
}

Status TableReader::ReadFound(const BlockView& view, const BlockFind& f, std::string_view name,
                              RefRecord* ref) const {
  if (!GetFoundValue(ByteReader(view.data + f.value_pos, view.data + view.restart_off),
                     f.value_type, ref)) {
    return Error("block at offset " + std::to_string(view.offset) + ": malformed ref record");
  }
  ref->refname.assign(name.data(), name.size());
  return Status::Ok();
}

Status TableReader::ReadRefAt(uint64_t pos, std::string_view name, RefRecord* ref,
                              bool* found) const {
  *found = false;
  // Without an index (or if the indexed block ends below `name`) walk the ref blocks.
  for (;;) {
    BlockView view;
    Status s = DecodeBlock(*source_, pos, nullptr, nullptr, &view);
    REFTAB_TRACE(trace::kBlock, "%s: ref block at %llu (lookup): %s", this->name().c_str(),
                 (unsigned long long)pos, s.ok() ? "read" : s.message().c_str());
    if (!s.ok()) return std::move(s).WithContext(this->name());
    BlockFind f = FindInBlock(view, name, hash_size());
    if (f.result == BlockFind::kCorrupt) {
      return Error("block at offset " + std::to_string(pos) + ": malformed ref record");
    }
    if (f.result == BlockFind::kGreater) return Status::Ok();
    if (f.result == BlockFind::kEqual) {
      REFTAB_RETURN_IF_ERROR(ReadFound(view, f, name, ref));
      *found = true;
      return Status::Ok();
    }
    pos += view.full_size;
    if (PeekBlockType(*source_, pos) != uint8_t(BlockType::kRef)) {
      return CheckSectionEnd(pos, BlockType::kRef);
    }
  }
}

static bool RefHasId(const RefRecord& r, const ObjectId& id, size_t hash_size) {
  if (r.value_type != RefValueType::kVal1 && r.value_type != RefValueType::kVal2) return false;
  if (std::memcmp(r.value.data(), id.data(), hash_size) == 0) return true;
  return r.value_type == RefValueType::kVal2 &&
         std::memcmp(r.peeled.data(), id.data(), hash_size) == 0;
}

Status TableReader::ScanRefsFor(const ObjectId& id, std::vector<RefRecord>* out) const {
  TableRefCursor it(this);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  RefRecord r;
  while (it.Next(&r)) {
    if (RefHasId(r, id, hash_size())) out->push_back(r);
  }
  return it.status();
}

Status TableReader::RefsFor(const ObjectId& id, std::vector<RefRecord>* out) const {
  uint64_t obj_start;
  if (!ObjSectionStart(&obj_start)) return ScanRefsFor(id, out);
  std::string_view prefix(reinterpret_cast<const char*>(id.data()), footer_.obj_id_len);
  SectionCursor cursor(this, BlockType::kObj);
  REFTAB_RETURN_IF_ERROR(cursor.Seek(prefix));
  if (!cursor.NextKey()) return cursor.status();
  BlockIterator& it = cursor.it();
  if (it.key() != prefix) return Status::Ok();  // no ref points at an id with this prefix
  std::vector<uint64_t> positions;
  ByteReader in = it.value();
  if (!codec::GetObjValue(in, it.value_type(), &positions)) {
    cursor.FailValue();
    return cursor.status();
  }
  if (positions.empty()) return ScanRefsFor(id, out);  // count 0: "scan all refs"
  BlockView view;
  BlockIterator block_it;
  RefRecord r;
  for (uint64_t pos : positions) {
    if (PeekBlockType(*source_, pos) != uint8_t(BlockType::kRef)) {
      return Error("obj record points at offset " + std::to_string(pos) + ", not a ref block");
    }
    Status s = DecodeBlock(*source_, pos, nullptr, nullptr, &view);
    if (!s.ok()) return std::move(s).WithContext(name());
    block_it.Init(view, hash_size());
    while (block_it.NextKey()) {
      ByteReader v = block_it.value();
      if (!codec::GetRefValue(v, block_it.value_type(), min_update_index(), hash_size(), &r)) {
        return Error("block at offset " + std::to_string(pos) + ": malformed ref record");
      }
      block_it.ValueDone(v);
      if (RefHasId(r, id, hash_size())) {
        r.refname.assign(block_it.key().data(), block_it.key().size());
        out->push_back(r);
      }
    }
    if (block_it.error()) {
      return Error("block at offset " + std::to_string(pos) + ": malformed ref record");
    }
  }
  return Status::Ok();
}

Status TableReader::ForEachBlock(const std::function<Status(const BlockView&)>& fn) const {
  uint64_t off = 0;
  if (!RefSectionStart(&off) && !LogSectionStart(&off)) {
    if (PeekBlockType(*source_, 0) == 0) return Status::Ok();  // no blocks at all
    off = 0;
  }
  Inflater inflater;
  std::vector<uint8_t> log_buf;
  while (off < source_->table_size) {
    BlockView view;
    Status s = DecodeBlock(*source_, off, &inflater, &log_buf, &view);
    if (!s.ok()) return std::move(s).WithContext(name());
    REFTAB_RETURN_IF_ERROR(fn(view));
    off += view.full_size;
  }
  return Status::Ok();
}

}  // namespace reftab

namespace reftab {

bool TableReader::RefMayExist(uint64_t hash) const {
  if (const RefFilter* f = aids_->ref_filter.load(std::memory_order_acquire)) {
    return f->MayContainHash(hash);
  }
  if (!aids_->DueForBuild(&aids_->filter_queries, 1024, aids_->filter_failed, AidPriceBytes(*this)))
    return true;
  std::unique_lock<std::mutex> lock(aids_->mu, std::try_to_lock);
  if (!lock.owns_lock()) return true;  // another thread is building it
  if (!aids_->ref_filter.load(std::memory_order_acquire) && !BuildRefFilter()) return true;
  return aids_->ref_filter.load(std::memory_order_acquire)->MayContainHash(hash);
}

size_t TableReader::ref_filter_bytes() const {
  const RefFilter* f = aids_->ref_filter.load(std::memory_order_acquire);
  return f ? f->memory_bytes() : 0;
}

bool TableReader::BuildRefFilter() const {
  // Ref records take 25 bytes or more with an object id, 4 as tombstones; size for 16 so
  // that ordinary tables get ~15 bits per name (about 0.1% false positives).
  uint64_t ref_bytes = footer_.ref_index_position ? footer_.ref_index_position
                       : footer_.obj_position     ? footer_.obj_position
                       : footer_.log_position     ? footer_.log_position
                                                  : source_->table_size;
  auto filter = std::make_unique<RefFilter>(ref_bytes / 16 + 1);
  TableRefCursor it(this);
  bool ok = it.SeekToFirst().ok();
  uint64_t n = 0;
  while (ok && it.NextKey()) {
    filter->Add(it.key());
    ++n;
  }
  if (!ok || !it.status().ok()) {
    aids_->filter_failed.store(true, std::memory_order_relaxed);
    REFTAB_TRACE(trace::kInfo, "%s: no lookup filter (the ref section does not read cleanly)",
                 name().c_str());
    return false;
  }
  REFTAB_TRACE(trace::kInfo, "%s: lookup filter built: %llu refs, %zu bytes", name().c_str(),
               (unsigned long long)n, filter->memory_bytes());
  aids_->ref_filter_owner = std::move(filter);
  aids_->ref_filter.store(aids_->ref_filter_owner.get(), std::memory_order_release);
  return true;
}

}  // namespace reftab

namespace reftab {

size_t TableReader::ref_block_index_bytes() const {
  const RefBlockIndex* f = aids_->ref_block_index.load(std::memory_order_acquire);
  return f ? f->memory_bytes() : 0;
}

bool TableReader::LookupAids::DueForBuild(std::atomic<uint64_t>* queries, uint64_t bytes_per_query,
                                          const std::atomic<bool>& failed,
                                          uint64_t file_size) const {
  // Lookups made while the aids are off do not count: a verification's many lookups (made
  // with the aids off) must not get an aid built by the first lookup after it.
  if (!enabled.load(std::memory_order_relaxed)) return false;
  // A plain load and store, not an atomic increment: a lost count between threads only
  // delays the build a little, and a locked instruction per table per lookup would not.
  uint64_t n = queries->load(std::memory_order_relaxed) + 1;
  queries->store(n, std::memory_order_relaxed);
  return n >= 16 + file_size / bytes_per_query && !failed.load(std::memory_order_relaxed);
}

const RefBlockIndex* TableReader::MaybeBuildRefBlockIndex() const {
  if (!aids_->DueForBuild(&aids_->locate_queries, 32768, aids_->ref_block_index_failed,
                          AidPriceBytes(*this)))
    return nullptr;
  std::unique_lock<std::mutex> lock(aids_->mu, std::try_to_lock);
  if (!lock.owns_lock()) return nullptr;  // another thread is building one of them
  if (const RefBlockIndex* built = aids_->ref_block_index.load(std::memory_order_acquire))
    return built;
  auto flat = std::make_unique<RefBlockIndex>();
  // The top level may span several consecutive index blocks; each record points at a ref
  // block (leaf level) or at an index block of the level below.
  // A hostile index could point many records at one subtree: every record visited costs
  // one unit of a budget that a well-formed table (records of 3 bytes or more) never
  // exhausts.
  bool ok = true;
  uint64_t pos = footer_.ref_index_position;
  uint64_t budget = source_->table_size / 3 + 1;
  do {
    uint64_t block_size = 0;
    ok = AddIndexLevel(pos, 0, &budget, flat.get(), &block_size);
    pos += block_size;
  } while (ok && PeekBlockType(*source_, pos) == uint8_t(BlockType::kIndex));
  // A top level cut short by a damaged block is no index to trust: DescendIndex reports it.
  ok = ok && CheckSectionEnd(pos, BlockType::kIndex).ok();
  if (!ok || flat->blocks() == 0) {
    aids_->ref_block_index_failed.store(true, std::memory_order_relaxed);
    REFTAB_TRACE(trace::kInfo, "%s: ref index not flattened (it does not read cleanly)",
                 name().c_str());
    return nullptr;
  }
  flat->ShrinkToFit();
  REFTAB_TRACE(trace::kInfo, "%s: ref index flattened: %zu ref blocks, %zu bytes", name().c_str(),
               flat->blocks(), flat->memory_bytes());
  aids_->ref_block_index_owner = std::move(flat);
  aids_->ref_block_index.store(aids_->ref_block_index_owner.get(), std::memory_order_release);
  return aids_->ref_block_index_owner.get();
}

// Appends the ref blocks below the index block at `pos`, in key order; *block_size (if
// given) receives that block's size, for a caller stepping along one level.
bool TableReader::AddIndexLevel(uint64_t pos, int depth, uint64_t* budget, RefBlockIndex* out,
                                uint64_t* block_size) const {
  if (depth >= kMaxIndexDepth || PeekBlockType(*source_, pos) != uint8_t(BlockType::kIndex)) {
    return false;
  }
  BlockView view;
  if (!DecodeBlock(*source_, pos, nullptr, nullptr, &view).ok()) return false;
  if (block_size != nullptr) *block_size = view.full_size;
  BlockIterator it;
  it.Init(view, hash_size());
  while (it.NextKey()) {
    if ((*budget)-- == 0) return false;
    ByteReader in = it.value();
    uint64_t child = in.GetVarint();
    if (!in.ok()) return false;
    it.ValueDone(in);
    uint8_t type = PeekBlockType(*source_, child);
    if (type == uint8_t(BlockType::kRef)) {
      if (!out->Add(it.key(), child)) return false;
    } else if (type != uint8_t(BlockType::kIndex) ||
               !AddIndexLevel(child, depth + 1, budget, out)) {
      return false;
    }
  }
  return !it.error();
}

}  // namespace reftab

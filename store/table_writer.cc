#include "store/table_writer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "format/block_reader.h"
#include "format/block_writer.h"
#include "format/bytes.h"
#include "format/compression.h"
#include "format/record_codec.h"
#include "store/background_deflater.h"
#include "store/table_builder.h"
#include "store/table_log_blocks.h"

namespace reftab {

// Padding is written lazily, in chunks from this buffer of zeros.
static constexpr char kZeros[4096] = {};

Status ValidateWriteOptions(const WriteOptions& o) {
  if (o.block_size < 64 || o.block_size > kMaxBlockSize) {
    return Status::InvalidArgument("block size must be between 64 and 16777215");
  }
  if (o.restart_interval < 1 || o.restart_interval > kMaxRestarts) {
    return Status::InvalidArgument("restart interval must be between 1 and 65535");
  }
  if (o.hash_id != HashId::kSha1 && o.hash_id != HashId::kSha256) {
    return Status::InvalidArgument("unknown hash id");
  }
  return Status::Ok();
}

TableBuilder::TableBuilder(const WriteOptions& options, WritableFile* sink, TableScratch* scratch)
    : opts_(options),
      sink_(sink),
      hash_size_(HashSize(options.hash_id)),
      block_(options.block_size, options.restart_interval),
      scratch_(scratch) {
  if (scratch_ != nullptr) block_.AdoptBuffer(std::exchange(scratch_->block, {}));
  header_.version = VersionForHash(options.hash_id);
  header_.block_size = options.block_size;
  header_.hash_id = options.hash_id;
  Status s = ValidateWriteOptions(options);
  if (!s.ok()) error_ = s;
}

TableBuilder::~TableBuilder() {
  if (scratch_ != nullptr) scratch_->Keep(block_.TakeBuffer());
}

Status TableBuilder::Fail(Status s) {
  if (error_.ok()) error_ = s;
  ref_block_open_ = false;
  return s;
}

Status TableBuilder::SetLimits(uint64_t min_update_index, uint64_t max_update_index) {
  if (!error_.ok()) return error_;
  if (block_open_ || section_open_ || written_ > 0) {
    return Status::InvalidArgument("SetLimits after the first record");
  }
  if (min_update_index > max_update_index) {
    return Status::InvalidArgument("min_update_index is greater than max_update_index");
  }
  header_.min_update_index = min_update_index;
  header_.max_update_index = max_update_index;
  update_index_span_ = max_update_index - min_update_index;
  limits_set_ = true;
  return Status::Ok();
}

void TableBuilder::StartBlock(BlockType type) {
  // The first block of the file carries the file header in front of its block header.
  // (Not next_offset() == 0: the background thread may still hold the first block.)
  header_bytes_.clear();
  if (stats_.blocks == 0) header_.EncodeTo(&header_bytes_);
  block_.Start(type, header_bytes_);
  block_open_ = true;
  block_start_ = next_offset();
  if (type == BlockType::kRef && opts_.index_objects) {
    obj_block_ = uint32_t(obj_block_offsets_.size());
    obj_block_offsets_.push_back(block_start_);
  }
}

Status TableBuilder::WriteBlock(std::string_view bytes, BlockType type) {
  while (pending_padding_ > 0) {
    size_t n = std::min<uint64_t>(pending_padding_, sizeof kZeros);
    REFTAB_RETURN_IF_ERROR(sink_->Append(std::string_view(kZeros, n)));
    pending_padding_ -= n;
    written_ += n;
  }
  REFTAB_RETURN_IF_ERROR(sink_->Append(bytes));
  written_ += bytes.size();
  // git defers padding: it is written only if another non-log block follows.
  if (!opts_.unpadded && type != BlockType::kLog && bytes.size() < opts_.block_size) {
    pending_padding_ = opts_.block_size - bytes.size();
  }
  return Status::Ok();
}

Status TableBuilder::FlushBlock(bool more_follow) {
  if (!block_open_) return Status::Ok();
  block_open_ = false;
  ref_block_open_ = false;
  if (block_.entries() == 0) return Status::Ok();
  BlockType type = block_.type();
  std::string_view raw = block_.Finish();
  index_.push_back(IndexEntry{std::string(block_.last_key()), block_start_});
  // AddRef's and AddLog's order check for the next block's first record.
  if (type == BlockType::kRef || type == BlockType::kLog) last_key_ = block_.last_key();
  if (type == BlockType::kRef) ++ref_blocks_;
  if (type == BlockType::kObj && obj_blocks_++ == 0) stats_.footer.obj_position = block_start_;
  ++stats_.blocks;
  if (type == BlockType::kLog) return FlushLogBlock(raw, index_.size() - 1, more_follow);
  return WriteBlock(raw, type);
}

// Log blocks: the block header (and file header) stay plain; the rest is one zlib stream.
// Two blocks at a time are compressed at once: the first on the background thread, while
// the next is built and compressed here; both are then written in order. A block's offset
// is known only once the blocks before it are written, so WriteLogBlock sets its index
// entry's offset (block_start_ is not it while the thread holds the block before).
Status TableBuilder::FlushLogBlock(std::string_view raw, size_t index_slot, bool more_follow) {
  const size_t plain = block_.header_off() + kBlockHeaderSize;
  if (more_follow && background_allowed_ && !background_tried_) {
    background_tried_ = true;
    background_ = BackgroundDeflater::Start();
  }
  if (more_follow && background_ && !background_->busy()) {
    background_->Submit(raw, plain);
    background_slot_ = index_slot;
    return Status::Ok();
  }
  if (!deflater_) deflater_ = std::make_unique<Deflater>();
  compressed_.assign(raw.data(), plain);
  Status s = deflater_->Compress(reinterpret_cast<const uint8_t*>(raw.data()) + plain,
                                 raw.size() - plain, &compressed_);
  Status before = WritePendingLogBlock();  // waited for even when `s` failed
  REFTAB_RETURN_IF_ERROR(s);
  REFTAB_RETURN_IF_ERROR(before);
  return WriteLogBlock(compressed_, index_slot);
}

Status TableBuilder::WritePendingLogBlock() {
  if (!background_ || !background_->busy()) return Status::Ok();
  std::string_view stored;
  REFTAB_RETURN_IF_ERROR(background_->Wait(&stored));
  return WriteLogBlock(stored, background_slot_);
}

Status TableBuilder::WriteLogBlock(std::string_view stored, size_t index_slot) {
  const uint64_t offset = next_offset();
  index_[index_slot].offset = offset;
  if (log_blocks_++ == 0) stats_.footer.log_position = offset;
  if (log_record_) {
    if (offset == 0) log_record_->starts_table = true;
    log_record_->blocks.push_back(
        WrittenLogBlock{offset, stored.size(), index_[index_slot].last_key});
  }
  return WriteBlock(stored, BlockType::kLog);
}

template <class Encode>
Status TableBuilder::AddRecord(BlockType type, std::string_view key, uint8_t value_type,
                               size_t max_value, Encode&& encode) {
  if (!block_open_) StartBlock(type);
  AddResult r = block_.AddInOrder(key, value_type, max_value, encode);
  if (r == AddResult::kFull) {
    REFTAB_RETURN_IF_ERROR(FlushBlock(/*more_follow=*/true));
    StartBlock(type);
    r = block_.AddInOrder(key, value_type, max_value, encode);
  }
  if (r == AddResult::kOutOfOrder) {
    // A log key is refname || 0 || 8 bytes of update index.
    const bool log = type == BlockType::kLog && key.size() > 9;
    std::string_view name = log ? key.substr(0, key.size() - 9) : key;
    return Status::InvalidArgument(std::string(log                       ? "log "
                                               : type == BlockType::kRef ? "ref "
                                                                         : "key ") +
                                   std::string(name) + " is not in strictly increasing order");
  }
  if (r != AddResult::kAdded) {
    return Status::TooLarge("record does not fit in a block of " +
                            std::to_string(opts_.block_size) + " bytes");
  }
  return Status::Ok();
}

Status TableBuilder::FinishSection(uint64_t* index_position) {
  REFTAB_RETURN_IF_ERROR(FlushBlock());
  REFTAB_RETURN_IF_ERROR(WritePendingLogBlock());
  // Multi-level index: each level indexes the blocks of the level below, until few enough
  // remain. The last level written is the top; the footer points at its first block.
  const size_t threshold = opts_.unpadded ? 1 : 3;
  uint64_t index_start = 0;
  while (index_.size() > threshold) {
    index_start = next_offset();
    std::vector<IndexEntry> level;
    level.swap(index_);
    for (const IndexEntry& e : level) {
      REFTAB_RETURN_IF_ERROR(AddRecord(BlockType::kIndex, e.last_key, 0, codec::IndexValueMaxSize(),
                                       [&](Appender& a) { a.PutVarint(e.offset); }));
    }
    REFTAB_RETURN_IF_ERROR(FlushBlock());
    // Keys so long that each index block holds one record: the next level would be just
    // as big, forever. Stop here; readers scan the top level's blocks linearly.
    if (index_.size() >= level.size()) break;
  }
  index_.clear();
  last_key_.clear();
  *index_position = index_start;
  return Status::Ok();
}

// Sorts the obj index keys by (id, insertion order) with two radix passes on the ids' first
// two bytes, most significant first: 256 buckets per pass keep every scatter's write streams
// in cache (a single 65536-bucket pass writes at random). Ids are hashes, so the buckets
// of the second pass hold a handful of keys, finished by insertion sort on the full id.
void TableBuilder::SortObjIds(std::vector<ObjSortKey>* sorted) {
  const size_t n = obj_keys_.size();
  const uint8_t* tails = obj_tails_.data();
  const size_t tail_size = hash_size_ - 8;
  auto less = [tails, tail_size](const ObjSortKey& a, const ObjSortKey& b) {
    if (a.head != b.head) return a.head < b.head;
    int c = CompareIdTails(tails + size_t(a.index) * tail_size, tails + size_t(b.index) * tail_size,
                           tail_size);
    return c != 0 ? c < 0 : a.index < b.index;
  };
  // Pass 1: by the first byte, obj_keys_ -> *sorted (stable, so insertion order is kept).
  sorted->resize(n);
  ObjSortKey* out = sorted->data();
  size_t count[257] = {};
  for (const ObjSortKey& k : obj_keys_) ++count[(k.head >> 56) + 1];
  for (size_t b = 1; b < 257; ++b) count[b] += count[b - 1];
  size_t fill[256];
  std::copy(count, count + 256, fill);
  for (const ObjSortKey& k : obj_keys_) out[fill[k.head >> 56]++] = k;
  // Pass 2: each first-byte bucket by the second byte, back into obj_keys_, then sort the
  // small buckets; obj_keys_ ends up sorted and is swapped into *sorted.
  ObjSortKey* back = obj_keys_.data();
  for (size_t b = 0; b < 256; ++b) {
    size_t lo = count[b], hi = count[b + 1];
    if (hi - lo < 2) {
      if (hi > lo) back[lo] = out[lo];
      continue;
    }
    size_t c2[257] = {};
    for (size_t i = lo; i < hi; ++i) ++c2[((out[i].head >> 48) & 0xff) + 1];
    for (size_t d = 1; d < 257; ++d) c2[d] += c2[d - 1];
    size_t f2[256];
    for (size_t d = 0; d < 256; ++d) f2[d] = lo + c2[d];
    for (size_t i = lo; i < hi; ++i) back[f2[(out[i].head >> 48) & 0xff]++] = out[i];
    for (size_t d = 0; d < 256; ++d) {
      ObjSortKey* first = back + lo + c2[d];
      ObjSortKey* last = back + lo + c2[d + 1];
      if (last - first < 2) continue;
      if (last - first <= 32) {
        for (ObjSortKey* i = first + 1; i < last; ++i) {
          ObjSortKey k = *i;
          ObjSortKey* j = i;
          for (; j > first && less(k, j[-1]); --j) *j = j[-1];
          *j = k;
        }
      } else if (!std::is_sorted(first, last, less)) {
        // Refs sharing ids: a bucket is mostly one id, its keys already in insertion order
        // (the passes are stable), which std::sort would still take n log n steps over.
        std::sort(first, last, less);
      }
    }
  }
  sorted->swap(obj_keys_);
}

Status TableBuilder::WriteObjSection() {
  if (obj_no_memory_) return Status::IoError("out of memory for the obj index");
  // Sort the entries by (id, entry); an id's blocks are its entries' in that order, each
  // entry's first block then its repeats, so they come out ascending (deduplicated below).
  std::vector<ObjSortKey> sorted;
  SortObjIds(&sorted);
  // Each entry's repeats, together: a counting sort by entry (stable, so blocks ascend).
  std::vector<uint32_t> repeat_start, repeat_blocks;
  if (!obj_repeats_.empty()) {
    repeat_start.assign(obj_keys_.size() + 1, 0);
    for (const ObjRepeat& r : obj_repeats_) ++repeat_start[r.entry + 1];
    for (size_t e = 1; e < repeat_start.size(); ++e) repeat_start[e] += repeat_start[e - 1];
    repeat_blocks.resize(obj_repeats_.size());
    std::vector<uint32_t> fill(repeat_start.begin(), repeat_start.end() - 1);
    for (const ObjRepeat& r : obj_repeats_) repeat_blocks[fill[r.entry]++] = r.block;
    obj_repeats_.Release();
  }
  auto add_position = [&](uint32_t block) {
    uint64_t offset = obj_block_offsets_[block];
    if (positions_.empty() || positions_.back() != offset) positions_.push_back(offset);
  };
  const size_t tail_size = hash_size_ - 8;
  const uint8_t* tails = obj_tails_.data();
  auto tail_at = [&](size_t i) { return tails + size_t(sorted[i].index) * tail_size; };
  // obj_id_len: one more than the longest prefix shared by adjacent distinct ids, at least 2.
  // Only equal heads (a shared id, or a rare 8-byte collision) read the tails.
  size_t common_max = 1;
  for (size_t i = 1; i < sorted.size(); ++i) {
    uint64_t x = sorted[i - 1].head ^ sorted[i].head;
    size_t n = x != 0 ? size_t(__builtin_clzll(x) >> 3)
                      : 8 + MismatchAt(tail_at(i - 1), tail_at(i), tail_size);
    if (n < hash_size_ && n > common_max) common_max = n;
  }
  size_t id_len = std::min(common_max + 1, hash_size_);
  stats_.footer.obj_id_len = uint8_t(id_len);
  // Room past the id: GCC's -Warray-bounds cannot tell that the block writer's copies of
  // keys longer than 32 bytes never run for these.
  uint8_t key_bytes[2 * kMaxHashSize];
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    positions_.clear();
    while (j < sorted.size() && sorted[j].head == sorted[i].head &&
           (j == i || IdTailsEqual(tail_at(j), tail_at(i), tail_size))) {
      add_position(sorted[j].block);
      if (!repeat_start.empty()) {
        const uint32_t e = sorted[j].index;
        for (uint32_t k = repeat_start[e]; k < repeat_start[e + 1]; ++k) {
          add_position(repeat_blocks[k]);
        }
      }
      ++j;
    }
    be::Store64(key_bytes, sorted[i].head);
    if (id_len > 8) std::memcpy(key_bytes + 8, tail_at(i), id_len - 8);
    std::string_view key(reinterpret_cast<const char*>(key_bytes), id_len);
    size_t count = positions_.size();
    if (!block_open_) StartBlock(BlockType::kObj);
    auto encode = [&](Appender& a) { codec::PutObjValue(a, positions_.data(), count); };
    AddResult r =
        block_.Add(key, codec::ObjValueType(count), codec::ObjValueMaxSize(count), encode);
    if (r == AddResult::kFull) {
      REFTAB_RETURN_IF_ERROR(FlushBlock());
      StartBlock(BlockType::kObj);
      r = block_.Add(key, codec::ObjValueType(count), codec::ObjValueMaxSize(count), encode);
    }
    if (r != AddResult::kAdded) {
      // Too many positions for one block: git stores count 0, meaning "scan all refs".
      r = block_.Add(key, 0, codec::ObjValueMaxSize(0),
                     [](Appender& a) { codec::PutObjValue(a, nullptr, 0); });
      if (r != AddResult::kAdded) return Status::TooLarge("obj record does not fit in a block");
    }
    ++stats_.obj_records;
    i = j;
  }
  ClearObjIds();
  return FinishSection(&stats_.footer.obj_index_position);
}

void TableBuilder::AddObjEntry(const ObjectId& id, uint64_t head, uint32_t block, ObjSlot* slot) {
  const uint32_t entry = uint32_t(obj_keys_.size());
  obj_keys_.push_back(ObjSortKey{head, block, entry});
  // A fixed-size copy of the whole array's tail; only hash_size - 8 bytes of it count.
  uint8_t* tail = obj_tails_.Reserve(kMaxHashSize - 8);
  if (tail == nullptr) {
    obj_no_memory_ = true;
    return;
  }
  std::memcpy(tail, id.data() + 8, kMaxHashSize - 8);
  obj_tails_.Commit(hash_size_ - 8);
  if (!slot) return;  // too many probes: the id goes unremembered
  *slot = ObjSlot{head, entry + 1, block};
  if (++obj_slots_used_ > kObjSlots / 2) {
    // Half full: start again, rather than probe ever longer (or hold every id of a table
    // whose refs share none). Slots of older entries now count as empty.
    obj_slot_base_ = entry + 1;
    obj_slots_used_ = 0;
  }
}

void TableBuilder::ClearObjIds() {
  std::vector<ObjSortKey>().swap(obj_keys_);
  obj_tails_.Release();
  std::vector<uint64_t>().swap(obj_block_offsets_);
  obj_block_ = 0;
  obj_repeats_.Release();
  obj_slots_.reset();
  obj_slots_used_ = 0;
  obj_slot_base_ = 0;
}

Status TableBuilder::FinishPublicSection() {
  if (!section_open_) return Status::Ok();
  section_open_ = false;
  if (section_type_ == BlockType::kLog) return FinishSection(&stats_.footer.log_index_position);
  REFTAB_RETURN_IF_ERROR(FinishSection(&stats_.footer.ref_index_position));
  if (opts_.index_objects && stats_.footer.ref_index_position != 0) {
    REFTAB_RETURN_IF_ERROR(WriteObjSection());
  }
  ClearObjIds();
  return Status::Ok();
}

// The common record: a ref within the table's limits, going into the block already open
// for the ref section, where the block writer checks the order itself. It takes one pass,
// inline, with one Status made (the returned one); anything else (the first ref of a block,
// a full block, a limit or order error, a writer in error) is AddRefSlow's, which starts over
// (a failed block add changes nothing). Both AddRefs test and count the same way
// (FastRefOpen, RefAdded); their calls are at the end, but g++ 12 makes none of them a tail
// call (a Status is returned in memory) and the fast path still saves six registers: its
// live values outnumber the scratch registers (a version without any call cost more).
Status TableBuilder::AddRef(const RefRecord& ref) {
  if (FastRefOpen(ref.update_index)) {
    uint64_t min = header_.min_update_index;
    if (block_.TryAddInOrder(ref.refname, uint8_t(ref.value_type),
                             codec::RefValueMaxSize(ref, hash_size_),
                             [&](Appender& a) { codec::PutRefValue(a, ref, min, hash_size_); })) {
      return RefAdded(ref);
    }
  }
  return AddRefSlow(ref);
}

// AddRef's fast path for a kVal1 ref given by its parts: the value is one varint and one
// id, and the name is read where the caller keeps it. Anything else goes to AddRefSlow
// through a record (AddRefByParts), once per block, so the checks and errors are AddRef's
// own. Inlined into TableWriter::AddRef, its only caller.
REFTAB_FORCE_INLINE Status TableBuilder::AddRef(std::string_view refname, uint64_t update_index,
                                                const ObjectId& value) {
  if (FastRefOpen(update_index)) {
    uint64_t delta = update_index - header_.min_update_index;
    auto encode = [&](Appender& a) {
      a.PutVarint(delta);
      // The whole id array, a constant size: a few moves instead of a memcpy call (as in
      // PutRefValue), and no test of the hash size per record (2 of 191 instructions per
      // ref). For SHA-1 that writes 12 bytes past the value, which the next record or the
      // restart table overwrites or which lie past the block's end, never in the output. They
      // stay in the buffer: TryAddInOrder's bound (the record's largest encoding with a
      // 20-byte value) ends at least 5 bytes before block_size (the restart table), and the
      // buffer holds 8 bytes more (the suffix spill).
      a.PutBytesOver<sizeof(ObjectId)>(value.data(), hash_size_);
    };
    if (block_.TryAddInOrder(refname, uint8_t(RefValueType::kVal1), kMaxVarintLen + hash_size_,
                             encode)) {
      return RefAdded(&value, nullptr);
    }
  }
  return AddRefByParts(refname, update_index, value);
}

Status TableBuilder::AddRefByParts(std::string_view refname, uint64_t update_index,
                                   const ObjectId& value) {
  slow_ref_.refname.assign(refname.data(), refname.size());
  slow_ref_.update_index = update_index;
  slow_ref_.value_type = RefValueType::kVal1;
  slow_ref_.value = value;
  return AddRefSlow(slow_ref_);
}

// AddSymref's fast path, as AddRef's by parts: the value is the update index's varint, the
// target's length and the target, encoded straight from the caller's views. Inlined into
// TableWriter::AddSymref, its only caller.
REFTAB_FORCE_INLINE Status TableBuilder::AddSymref(std::string_view refname, uint64_t update_index,
                                                   std::string_view target) {
  if (FastRefOpen(update_index)) {
    const uint64_t delta = update_index - header_.min_update_index;
    auto encode = [&](Appender& a) {
      a.PutVarint(delta);
      a.PutLengthPrefixed(target);
    };
    if (block_.TryAddInOrder(refname, uint8_t(RefValueType::kSymref),
                             2 * kMaxVarintLen + target.size(), encode)) {
      return RefAdded(nullptr, nullptr);
    }
  }
  return AddSymrefByParts(refname, update_index, target);
}

Status TableBuilder::AddSymrefByParts(std::string_view refname, uint64_t update_index,
                                      std::string_view target) {
  slow_ref_.refname.assign(refname.data(), refname.size());
  slow_ref_.update_index = update_index;
  slow_ref_.value_type = RefValueType::kSymref;
  slow_ref_.target.assign(target.data(), target.size());
  return AddRefSlow(slow_ref_);
}

Status TableBuilder::AddRefObjIds(const ObjectId* value, const ObjectId* peeled) {
  // After the add, block_start_ is the block that holds the record.
  if (value) AddObjId(*value);
  if (peeled) AddObjId(*peeled);
  return Status::Ok();
}

Status TableBuilder::AddRefObjId(const ObjectId& value) {
  AddObjId(value);
  return Status::Ok();
}

Status TableBuilder::AddRefSlow(const RefRecord& ref) {
  ref_block_open_ = false;
  if (!error_.ok()) return error_;
  if (!limits_set_) return Status::InvalidArgument("SetLimits must be called first");
  if (ref.update_index < header_.min_update_index || ref.update_index > header_.max_update_index) {
    return Status::InvalidArgument("ref " + ref.refname + ": update index " +
                                   std::to_string(ref.update_index) +
                                   " outside the table's limits");
  }
  if (ref.refname.empty()) return Status::InvalidArgument("empty refname");
  if (section_open_ && section_type_ != BlockType::kRef) {
    return Status::InvalidArgument("refs must be added before logs");
  }
  // Within a block, the block writer checks the order with the shared prefix it computes
  // anyway; a block's first ref is compared here with the last one of the block before,
  // which FlushBlock keeps (one copy per block, not per record).
  if (section_open_ && !(block_open_ && block_.entries() > 0) &&
      std::string_view(ref.refname) <= std::string_view(last_key_)) {
    return Status::InvalidArgument("ref " + ref.refname + " is not in strictly increasing order");
  }
  section_open_ = true;
  section_type_ = BlockType::kRef;
  uint64_t min = header_.min_update_index;
  Status s = AddRecord(BlockType::kRef, ref.refname, uint8_t(ref.value_type),
                       codec::RefValueMaxSize(ref, hash_size_),
                       [&](Appender& a) { codec::PutRefValue(a, ref, min, hash_size_); });
  if (!s.ok()) return Fail(s);
  // The block is open and holds this ref: the next one may take AddRef's fast path.
  ref_block_open_ = true;
  if (opts_.index_objects && !obj_slots_) {
    obj_slots_.reset(static_cast<ObjSlot*>(std::calloc(kObjSlots, sizeof(ObjSlot))));
    if (!obj_slots_) return Fail(Status::IoError("out of memory for the obj index"));
  }
  return RefAdded(ref);
}

Status TableBuilder::AddLog(const LogRecord& log) {
  if (!error_.ok()) return error_;
  if (!limits_set_) return Status::InvalidArgument("SetLimits must be called first");
  if (log.refname.empty()) return Status::InvalidArgument("empty refname");
  if (log.refname.find('\0') != std::string::npos) {
    return Status::InvalidArgument("log refname contains NUL");
  }
  // The message as stored: git's cleaning goes to scratch_message_, never a copy of the
  // whole record (most messages lack the final newline, so this is the common path).
  std::string_view message = log.message;
  if (log.value_type == LogValueType::kUpdate) {
    if (log.update_index > header_.max_update_index) {
      return Status::InvalidArgument("log " + log.refname +
                                     ": update index above the table's maximum");
    }
    if (!opts_.exact_log_message) {
      std::string_view m = log.message;
      while (!m.empty() && m.back() == '\n') m.remove_suffix(1);
      if (m.find('\n') != std::string_view::npos) {
        return Status::InvalidArgument("log " + log.refname + ": message has more than one line");
      }
      if (m.size() + 1 != log.message.size() || log.message.back() != '\n') {
        scratch_message_.assign(m.data(), m.size());
        scratch_message_.push_back('\n');
        message = scratch_message_;
      }
    }
  }
  codec::PutLogKey(&scratch_key_, log.refname, log.update_index);
  // As for refs: within a block the block writer checks the order.
  if (section_open_ && section_type_ == BlockType::kLog && !(block_open_ && block_.entries() > 0) &&
      std::string_view(scratch_key_) <= std::string_view(last_key_)) {
    return Status::InvalidArgument("log " + log.refname + " is not in strictly increasing order");
  }
  if (section_open_ && section_type_ == BlockType::kRef) {
    Status s = FinishPublicSection();
    if (!s.ok()) return Fail(s);
  }
  if (!section_open_) {
    // The block before the first log block is never padded.
    pending_padding_ = 0;
  }
  section_open_ = true;
  section_type_ = BlockType::kLog;
  Status s = AddRecord(BlockType::kLog, scratch_key_, uint8_t(log.value_type),
                       codec::LogValueMaxSize(log, hash_size_) + 1,  // + the added newline
                       [&](Appender& a) { codec::PutLogValue(a, log, message, hash_size_); });
  if (!s.ok()) return Fail(s);
  ++stats_.log_records;
  if (log_record_) {
    log_record_->options = opts_;
    ++log_record_->records;
    if (log.value_type == LogValueType::kDeletion) log_record_->deletions = true;
    if (log.value_type == LogValueType::kUpdate && !IsNormalizedLogMessage(message)) {
      log_record_->messages_normalized = false;
    }
  }
  return Status::Ok();
}

Status TableBuilder::CopyLogBlocks(const uint8_t* table, uint64_t table_size,
                                   const WrittenLogBlocks& blocks) {
  if (!error_.ok()) return error_;
  if (!limits_set_) return Status::InvalidArgument("SetLimits must be called first");
  if (stats_.ref_records == 0 || stats_.log_records > 0 || !blocks.CopyableWith(opts_)) {
    return Status::InvalidArgument("log blocks cannot be copied into this table");
  }
  for (const WrittenLogBlock& b : blocks.blocks) {
    if (b.offset > table_size || b.size > table_size - b.offset || b.size < kBlockHeaderSize ||
        table[b.offset] != uint8_t(BlockType::kLog)) {
      return Status::InvalidArgument("log block at offset " + std::to_string(b.offset) +
                                     " is not in the table it was written to");
    }
  }
  Status s = FinishPublicSection();  // the ref section, its index and the obj section
  if (!s.ok()) return Fail(s);
  pending_padding_ = 0;  // as in AddLog: the block before the first log block is unpadded
  for (const WrittenLogBlock& b : blocks.blocks) {
    const uint64_t offset = next_offset();
    if (log_blocks_++ == 0) stats_.footer.log_position = offset;
    index_.push_back(IndexEntry{b.last_key, offset});
    ++stats_.blocks;
    s = WriteBlock(std::string_view(reinterpret_cast<const char*>(table) + b.offset, b.size),
                   BlockType::kLog);
    if (!s.ok()) return Fail(s);
  }
  last_key_ = blocks.blocks.back().last_key;
  section_open_ = true;
  section_type_ = BlockType::kLog;
  stats_.log_records += blocks.records;
  return Status::Ok();
}

// A ref block of another table, appended as it is (store/table_ref_blocks.h). Only its
// header offset may change: a block that was its table's first carries that table's file
// header, and the first block written here must carry this one's; the restart offsets,
// counted from where the block's data starts, move with it. Records never refer to the
// bytes around them (a block's first record shares no prefix), so they are copied verbatim.
Status TableBuilder::CopyRefBlock(const BlockView& b, std::string_view first_key,
                                  std::string_view last_key, uint64_t records) {
  if (!error_.ok()) return error_;
  if (!limits_set_) return Status::InvalidArgument("SetLimits must be called first");
  if (b.type != BlockType::kRef || records == 0 || opts_.index_objects ||
      (section_open_ && section_type_ != BlockType::kRef)) {
    return Status::InvalidArgument("ref block cannot be copied into this table");
  }
  Status s = FlushBlock(/*more_follow=*/true);  // the block AddRef left open, if any
  if (!s.ok()) return Fail(s);
  if (section_open_ && first_key <= std::string_view(last_key_)) {
    return Status::InvalidArgument("ref " + std::string(first_key) +
                                   " is not in strictly increasing order");
  }
  const uint32_t from = b.header_off;
  const uint32_t to = stats_.blocks == 0 ? uint32_t(HeaderSize(header_.version)) : 0;
  const uint64_t len = uint64_t(b.block_len) - from + to;
  if (len > opts_.block_size || b.restart_off < from + kBlockHeaderSize) {
    return Status::InvalidArgument("ref block at offset " + std::to_string(b.offset) +
                                   " does not fit a block of " + std::to_string(opts_.block_size) +
                                   " bytes here");
  }
  std::string_view bytes(reinterpret_cast<const char*>(b.data), b.block_len);
  if (from != 0 || to != 0) {
    copied_block_.clear();
    if (to != 0) header_.EncodeTo(&copied_block_);
    const size_t restarts_at = copied_block_.size() + (b.restart_off - from);
    copied_block_.resize(copied_block_.size() + kBlockHeaderSize);
    uint8_t* h = reinterpret_cast<uint8_t*>(copied_block_.data()) + to;
    h[0] = uint8_t(BlockType::kRef);
    be::Store24(h + 1, uint32_t(len));
    copied_block_.append(reinterpret_cast<const char*>(b.data) + from + kBlockHeaderSize,
                         b.restart_off - from - kBlockHeaderSize);
    copied_block_.resize(len);
    uint8_t* r = reinterpret_cast<uint8_t*>(copied_block_.data()) + restarts_at;
    for (uint32_t i = 0; i < b.restart_count; ++i, r += 3) {
      be::Store24(r, RestartOffset(b, i) - from + to);
    }
    be::Store16(r, uint16_t(b.restart_count));
    bytes = copied_block_;
  }
  block_start_ = next_offset();
  index_.push_back(IndexEntry{std::string(last_key), block_start_});
  last_key_.assign(last_key);
  ++ref_blocks_;
  ++stats_.blocks;
  stats_.ref_records += records;
  section_open_ = true;
  section_type_ = BlockType::kRef;
  s = WriteBlock(bytes, BlockType::kRef);
  return s.ok() ? s : Fail(s);
}

Status TableBuilder::Finish() {
  if (!error_.ok()) return error_;
  if (finished_) return Status::InvalidArgument("Finish called twice");
  if (!limits_set_) return Status::InvalidArgument("SetLimits must be called first");
  finished_ = true;
  Status s = FinishPublicSection();
  if (!s.ok()) return Fail(s);
  pending_padding_ = 0;  // the last block before the footer is never padded
  stats_.empty = written_ == 0;
  std::string tail;
  if (written_ == 0) header_.EncodeTo(&tail);  // an empty table is header || footer
  stats_.footer.header = header_;
  stats_.footer.EncodeTo(&tail);
  s = sink_->Append(tail);
  if (!s.ok()) return Fail(s);
  written_ += tail.size();
  stats_.bytes = written_;
  return Status::Ok();
}

// ---------------------------------------------------------------- the public writer

TableWriter::TableWriter(const WriteOptions& options, WritableFile* sink)
    : impl_(std::make_unique<TableBuilder>(options, sink)) {}
TableWriter::TableWriter(const WriteOptions& options, WritableFile* sink, TableScratch* scratch)
    : impl_(std::make_unique<TableBuilder>(options, sink, scratch)) {}
TableWriter::~TableWriter() = default;
Status TableWriter::SetLimits(uint64_t min_update_index, uint64_t max_update_index) {
  return impl_->SetLimits(min_update_index, max_update_index);
}
Status TableWriter::AddRef(const RefRecord& ref) { return impl_->AddRef(ref); }
Status TableWriter::AddRef(std::string_view refname, uint64_t update_index, const ObjectId& value) {
  return impl_->AddRef(refname, update_index, value);
}
Status TableWriter::AddSymref(std::string_view refname, uint64_t update_index,
                              std::string_view target) {
  return impl_->AddSymref(refname, update_index, target);
}
Status TableWriter::AddLog(const LogRecord& log) { return impl_->AddLog(log); }
Status TableWriter::Finish() { return impl_->Finish(); }
const WriteStats& TableWriter::stats() const { return impl_->stats(); }

}  // namespace reftab

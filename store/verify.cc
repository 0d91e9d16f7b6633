#include "store/verify.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "format/constants.h"
#include "format/record_codec.h"
#include "store/index_check.h"
#include "store/restart_check.h"
#include "store/section_cursor.h"

namespace reftab {
namespace {

Status Problem(const TableReader& t, const std::string& what) {
  return Status::Corruption(t.name() + ": " + what);
}

Status VerifyLogs(const TableReader& t, VerifyReport* report) {
  TableLogCursor it(&t);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  LogRecord log;
  std::string last_name;
  uint64_t last_index = 0;
  bool first = true;
  while (it.Next(&log)) {
    ++report->logs;
    bool ordered = first || log.refname > last_name ||
                   (log.refname == last_name && log.update_index < last_index);
    if (!ordered) {
      return Problem(t, "log entry '" + log.refname + "'@" + std::to_string(log.update_index) +
                            " is out of order");
    }
    if (log.value_type == LogValueType::kUpdate && log.update_index > t.max_update_index()) {
      return Problem(t,
                     "log entry '" + log.refname + "' has update index above the table's maximum");
    }
    last_name = log.refname;
    last_index = log.update_index;
    first = false;
  }
  return it.status();
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kDigits[uint8_t(c) >> 4];
    out += kDigits[uint8_t(c) & 15];
  }
  return out;
}

// The obj section, checked against the ref blocks (which come first in the file): every
// record's count is bounded by the number of ref blocks and its positions are offsets of
// ref blocks in increasing order; and, as for refs, the lookup path agrees with a scan: a
// record lists exactly the ref blocks that hold a ref whose value or peeled value starts
// with its prefix (unless it has no positions, git's "scan every ref block"), and every
// prefix some ref has gets a record.
//
// That comparison needs every (prefix, block) pair sorted: memory and time in proportion to
// the refs. So a first pass (kFingerprint) compares the two sets by fingerprint instead: two
// sums of well-mixed 64-bit hashes of the pairs, one from the ref blocks (each block's
// prefixes deduplicated) and one from the records' positions, which stay equal only when the
// sets are. Only when they differ (or a record has no positions, whose blocks only the exact
// comparison can work out) does a second pass (kExact) sort the pairs, to name the record.
class ObjIndexCheck {
 public:
  enum Mode : uint8_t { kFingerprint, kExact };
  ObjIndexCheck(const TableReader& t, Mode mode) : t_(t), mode_(mode) {
    uint64_t unused;
    active_ = t.ObjSectionStart(&unused);
  }

  // Whether the table has an obj section (nothing to check otherwise).
  bool active() const { return active_; }

  // After Finish() in kFingerprint mode: whether the sets may differ, so that the kExact
  // pass must decide.
  bool needs_exact() const { return needs_exact_; }

  // After the last block: prefixes that no record covered.
  Status Finish() {
    if (!active_) return Status::Ok();
    if (mode_ == kFingerprint) {
      needs_exact_ = needs_exact_ || ref_sum_ != obj_sum_;
      return Status::Ok();
    }
    if (next_held_ >= held_.size()) return Status::Ok();
    return Missing(held_[next_held_]);
  }

 private:
  using Held = std::pair<std::string, uint64_t>;  // (id prefix, ref block)
  struct Fingerprint;

  // Hashes of a pair, for the fingerprints: a well-mixed hash of the prefix's hash and the
  // block's offset (splitmix64's finalizer), and a second function of it for the second sum.
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  static void AddPair(Fingerprint* sum, uint64_t prefix_hash, uint64_t block) {
    const uint64_t a = Mix(prefix_hash + block * 0x9e3779b97f4a7c15ULL);
    sum->a += a;
    sum->b += (a ^ (a >> 29)) * 0x632be59bd9b4e019ULL;
  }
  // An id prefix's first eight bytes as a big-endian number, from a buffer with at least eight
  // readable bytes: numbers order as the prefixes do.
  static uint64_t Word(const uint8_t* p, size_t len) {
    const size_t n = len < 8 ? len : 8;
    return n == 0 ? 0 : be::Load64(p) & (~uint64_t(0) << (64 - 8 * n));
  }
  // From an id (at least eight bytes).
  uint64_t PrefixHash(const uint8_t* id) const {
    const size_t len = t_.footer().obj_id_len;
    if (len <= 8) [[likely]]
      return Mix(len ^ Word(id, len));
    return PrefixHash(std::string_view(reinterpret_cast<const char*>(id), len));
  }
  // Eight bytes at a time, each step as Word (an id prefix is 2 to 7 bytes in git's tables:
  // one step).
  static uint64_t PrefixHash(std::string_view prefix) {
    uint64_t h = prefix.size();
    for (size_t i = 0; i < prefix.size(); i += 8) {
      uint8_t chunk[8] = {};
      std::memcpy(chunk, prefix.data() + i, std::min<size_t>(8, prefix.size() - i));
      h = Mix(h ^ Word(chunk, std::min<size_t>(8, prefix.size() - i)));
    }
    return h;
  }

 public:
  // The ref blocks' side, record by record (CheckRefBlock decodes them).
  void StartRefBlock(const BlockView& b) {
    ref_blocks_.push_back(b.offset);
    block_hashes_.clear();
  }
  void OnRefRecord(const BlockView& b, const RefRecord& r) {
    if (!active_) return;
    const bool val = r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2;
    const bool peeled = r.value_type == RefValueType::kVal2;
    if (mode_ == kFingerprint) {
      if (val) block_hashes_.push_back(PrefixHash(r.value.data()));
      if (peeled) block_hashes_.push_back(PrefixHash(r.peeled.data()));
      return;
    }
    const size_t len = t_.footer().obj_id_len;
    if (val) {
      held_.emplace_back(std::string(reinterpret_cast<const char*>(r.value.data()), len), b.offset);
    }
    if (peeled) {
      held_.emplace_back(std::string(reinterpret_cast<const char*>(r.peeled.data()), len),
                         b.offset);
    }
  }
  void EndRefBlock(const BlockView& b) {
    if (!active_ || mode_ != kFingerprint) return;
    // A block is listed once per prefix, however many of its refs have it: each hash counts
    // the first time it is met, found again in an open-addressing table of at least twice
    // as many slots as the block has hashes (0 marks an empty slot, so a hash of 0 has a
    // flag of its own). The slots filled are emptied again after, not the whole table.
    const size_t n = block_hashes_.size();
    size_t cap = 64;
    while (cap < 2 * n) cap *= 2;
    if (seen_.size() < cap) {
      seen_.assign(cap, 0);
    } else {
      cap = seen_.size();
    }
    const size_t mask = cap - 1;
    filled_.clear();
    bool zero_seen = false;
    for (const uint64_t h : block_hashes_) {
      if (h == 0) {
        if (!zero_seen) AddPair(&ref_sum_, h, b.offset);
        zero_seen = true;
        continue;
      }
      size_t i = size_t(h >> 40) & mask;  // a hash's bits are all well mixed
      while (seen_[i] != 0 && seen_[i] != h) i = (i + 1) & mask;
      if (seen_[i] == h) continue;
      seen_[i] = h;
      filled_.push_back(uint32_t(i));
      AddPair(&ref_sum_, h, b.offset);
    }
    for (const uint32_t i : filled_) seen_[i] = 0;
  }

  Status OnObjBlock(const BlockView& b) {
    if (!active_) return Status::Ok();
    if (mode_ == kFingerprint && FingerprintObjBlock(b)) return Status::Ok();
    return CheckObjBlock(b);
  }
  // After OnObjBlock: the block's first and last keys (a block has a record: its restart
  // table names one).
  std::string_view block_first() const { return block_first_; }
  std::string_view block_last() const { return last_key_; }

 private:
  // kFingerprint's pass over an obj block for prefixes of at most 8 bytes (git's): the
  // checks of CheckObjBlock with no copy of a key and no vector of positions, each key kept
  // as a number (Word) and decoded straight from the block's bytes (every key has the same
  // length, so a record's prefix and suffix lengths place its suffix in the number). False,
  // with nothing changed, if the block has anything these checks do not pass (or longer
  // prefixes): CheckObjBlock then finds and names it.
  bool FingerprintObjBlock(const BlockView& b) {
    const size_t len = t_.footer().obj_id_len;
    if (len == 0 || len > 8) return false;
    const uint8_t* p = b.data + RestartCheck::FirstRecord(b);
    const uint8_t* const end = b.data + b.restart_off;
    RestartCheck restarts;
    restarts.Start(b);
    Fingerprint sum = obj_sum_;
    bool needs_exact = needs_exact_;
    bool have_last = have_last_word_;
    uint64_t last = last_word_;
    const uint64_t ref_blocks = ref_blocks_.size();
    uint64_t word = 0, first = 0;
    bool any = false;
    while (p < end) {
      if (!restarts.Record(uint32_t(p - b.data))) return false;
      uint64_t prefix, suffix_and_type;
      if (!GetVarintAt(&p, end, &prefix) || !GetVarintAt(&p, end, &suffix_and_type)) {
        return false;
      }
      const uint64_t suffix = suffix_and_type >> 3;
      // A block's first key shares nothing; an empty suffix would repeat the key before.
      if ((!any && prefix != 0) || suffix == 0 || prefix + suffix != len ||
          suffix > uint64_t(end - p)) {
        return false;
      }
      uint64_t bytes;  // the suffix, big-endian, in the low 8 * suffix bits
      if (end - p >= 8) {
        bytes = be::Load64(p) >> (64 - 8 * suffix);
      } else {
        uint8_t chunk[8] = {};
        std::memcpy(chunk, p, size_t(suffix));
        bytes = be::Load64(chunk) >> (64 - 8 * suffix);
      }
      p += suffix;
      const uint64_t kept = prefix == 0 ? 0 : word & (~uint64_t(0) << (64 - 8 * prefix));
      word = kept | bytes << (64 - 8 * len);
      if (have_last && word <= last) return false;
      uint64_t count = suffix_and_type & 7;
      if (count == 0 && !GetVarintAt(&p, end, &count)) return false;
      if (count > ref_blocks || count > uint64_t(end - p)) return false;
      if (count == 0) needs_exact = true;
      const uint64_t h = Mix(len ^ word);
      uint64_t pos = 0;
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t delta;
        if (!GetPosition(&p, end, &delta) || (i > 0 && delta == 0) || pos + delta < pos) {
          return false;
        }
        pos += delta;
        AddPair(&sum, h, pos);
      }
      if (!any) first = word;
      any = true;
      have_last = true;
      last = word;
    }
    if (!restarts.End()) return false;
    obj_sum_ = sum;
    needs_exact_ = needs_exact;
    have_last_word_ = have_last;
    last_word_ = last;
    if (have_last) last_key_ = LastKey(last, len);  // for CheckRecord, should it follow
    block_first_ = any ? LastKey(first, len) : std::string();
    return true;
  }
  // GetVarintAt for the positions (a file offset first, then deltas: a few bytes each),
  // unrolled for up to four bytes, which cannot overflow; longer ones and the last bytes of
  // the records go through GetVarintAt.
  REFTAB_FORCE_INLINE static bool GetPosition(const uint8_t** p, const uint8_t* end, uint64_t* v) {
    const uint8_t* q = *p;
    if (end - q >= 4) {
      uint64_t val = 0;
      for (int i = 0; i < 4; ++i) {
        const uint64_t c = q[i];
        val = i == 0 ? c & 0x7f : ((val + 1) << 7) | (c & 0x7f);
        if (!(c & 0x80)) {
          *v = val;
          *p = q + i + 1;
          return true;
        }
      }
    }
    return GetVarintAt(p, end, v);
  }
  static std::string LastKey(uint64_t word, size_t len) {
    std::string key(len, '\0');
    for (size_t i = 0; i < len; ++i) key[i] = char(word >> (56 - 8 * i));
    return key;
  }

  Status CheckObjBlock(const BlockView& b) {
    if (mode_ == kExact && !sorted_) {
      std::sort(held_.begin(), held_.end());
      held_.erase(std::unique(held_.begin(), held_.end()), held_.end());
      sorted_ = true;
    }
    BlockIterator it;
    it.Init(b, t_.hash_size());
    // RefsFor's search in the block bisects its restart points (store/restart_check.h).
    RestartCheck restarts;
    restarts.Start(b);
    uint32_t start = RestartCheck::FirstRecord(b);
    std::vector<uint64_t> positions;
    block_first_.clear();
    while (it.NextKey()) {
      const std::string key(it.key());
      if (!restarts.Record(start)) return At(b.offset, restarts.Problem());
      ByteReader v = it.value();
      REFTAB_RETURN_IF_ERROR(CheckCount(b.offset, key, it.value_type(), v));
      if (!codec::GetObjValue(v, it.value_type(), &positions)) {
        return At(b.offset, "obj record " + Hex(key) + ": malformed positions");
      }
      it.ValueDone(v);
      start = uint32_t(v.pos() - b.data);
      REFTAB_RETURN_IF_ERROR(CheckRecord(b.offset, key, positions));
      if (block_first_.empty()) block_first_ = key;
    }
    if (it.error()) return At(b.offset, "malformed obj record");
    if (!restarts.End()) return At(b.offset, restarts.Problem());
    return Status::Ok();
  }

  // The count, before anything is sized by it.
  Status CheckCount(uint64_t block, const std::string& key, uint8_t value_type,
                    ByteReader v) const {
    uint64_t count = value_type;
    if (count == 0) count = v.GetVarint();
    if (!v.ok()) return At(block, "obj record " + Hex(key) + ": malformed count");
    if (count > ref_blocks_.size()) {
      return At(block, "obj record " + Hex(key) + " claims " + std::to_string(count) +
                           " positions, but the table has " + std::to_string(ref_blocks_.size()) +
                           " ref blocks");
    }
    return Status::Ok();
  }

  Status CheckRecord(uint64_t block, const std::string& key,
                     const std::vector<uint64_t>& positions) {
    // Named only when something is wrong (this runs once per record).
    auto what = [&] { return "obj record " + Hex(key); };
    if (key.size() != t_.footer().obj_id_len) {
      return At(block, what() + ": key is not " + std::to_string(t_.footer().obj_id_len) +
                           " bytes (the footer's obj_id_len)");
    }
    if (!last_key_.empty() && key <= last_key_) return At(block, what() + ": keys out of order");
    last_key_ = key;
    if (key.size() <= 8) {  // for FingerprintObjBlock, should it follow
      uint8_t chunk[8] = {};
      std::memcpy(chunk, key.data(), key.size());
      last_word_ = Word(chunk, key.size());
      have_last_word_ = true;
    }
    for (size_t i = 0; i < positions.size(); ++i) {
      if (i > 0 && positions[i] <= positions[i - 1]) {
        return At(block, what() + ": positions not in increasing order");
      }
      // (With fingerprints, a position that is no ref block's offset makes the sums differ,
      // and the exact pass names it.)
      if (mode_ == kExact &&
          !std::binary_search(ref_blocks_.begin(), ref_blocks_.end(), positions[i])) {
        return At(block, what() + ": position " + std::to_string(positions[i]) +
                             " is not the offset of a ref block");
      }
    }
    if (mode_ == kFingerprint) {
      if (positions.empty()) needs_exact_ = true;
      const uint64_t h = PrefixHash(key);
      for (uint64_t p : positions) AddPair(&obj_sum_, h, p);
      return Status::Ok();
    }
    // In step with the prefixes the ref blocks hold (both sorted).
    if (next_held_ < held_.size() && held_[next_held_].first < key)
      return Missing(held_[next_held_]);
    std::vector<uint64_t> holders;
    for (; next_held_ < held_.size() && held_[next_held_].first == key; ++next_held_) {
      holders.push_back(held_[next_held_].second);
    }
    if (!positions.empty() && positions != holders) {
      return At(block, what() + " lists " + std::to_string(positions.size()) +
                           " ref block(s), but " + std::to_string(holders.size()) +
                           " hold a ref with that id prefix");
    }
    return Status::Ok();
  }

  Status Missing(const Held& h) const {
    return Problem(t_, "no obj record for id prefix " + Hex(h.first) + ", which the ref block at " +
                           std::to_string(h.second) + " holds");
  }

  Status At(uint64_t block, const std::string& what) const {
    return Problem(t_, "block at offset " + std::to_string(block) + ": " + what);
  }

  struct Fingerprint {
    uint64_t a = 0, b = 0;
    bool operator!=(const Fingerprint& o) const { return a != o.a || b != o.b; }
  };

  const TableReader& t_;
  const Mode mode_;
  bool active_ = false;
  bool needs_exact_ = false;
  std::vector<uint64_t> block_hashes_;  // kFingerprint: one ref block's prefix hashes
  std::vector<uint64_t> seen_;          // EndRefBlock's table of the hashes met (all 0
  std::vector<uint32_t> filled_;        // between blocks) and the slots it filled
  Fingerprint ref_sum_, obj_sum_;
  bool sorted_ = false;
  std::vector<uint64_t> ref_blocks_;  // in file order, so ascending
  std::vector<Held> held_;
  size_t next_held_ = 0;
  std::string last_key_;
  std::string block_first_;  // the first key of the obj block last read
  // FingerprintObjBlock's last key (as Word), while the keys are at most eight bytes.
  uint64_t last_word_ = 0;
  bool have_last_word_ = false;
};

// The ref section's own rules, record by record in file order: keys strictly increasing
// (across blocks too), update indexes within the table's limits, and the lookup path agreeing
// with the scan. A lookup of every ref would cost an index descent per ref; instead the
// lookup's two steps are checked where they can go wrong: the index must send every key of
// a block to that block (IndexCheck, store/index_check.h: one walk of the index beside the
// blocks), and within a block the search starts at a restart point, so each restart point
// must be the start of a record the scan decoded, in order, and share no prefix with the key
// before it (RestartCheck: decoding from there gives the scan's keys, and the bisection over
// them, sorted as they are, picks the right one). A table without an index is looked up by
// a walk from its first block: there each block's first and last ref are looked up, as
// cheap as it is in the small tables written so.
class RefSectionCheck {
 public:
  RefSectionCheck(const TableReader& t, VerifyReport* report)
      : t_(t), report_(report), index_(t, BlockType::kRef) {}

  void StartBlock(const BlockView& b) {
    block_ = &b;
    restarts_.Start(b);
    first_in_block_ = true;
  }

  // The record starting at `start` (from the block's data). `lcp`: the length of the common
  // prefix of `key` and the block's record before it (BlockIterator::lcp()), or kNoLcp for a
  // block's first record.
  static constexpr uint32_t kNoLcp = ~uint32_t(0);
  Status OnRecord(uint32_t start, std::string_view key, const RefRecord& r, uint32_t lcp) {
    ++report_->refs;
    // The keys agree on their first lcp bytes (a stored prefix may be shorter than the common
    // one, never longer): where they differ at lcp, that byte decides; else all of them.
    const bool differ_at_lcp = lcp < key.size() && lcp < last_.size() && key[lcp] != last_[lcp];
    const bool after = lcp != kNoLcp && differ_at_lcp ? uint8_t(key[lcp]) > uint8_t(last_[lcp])
                                                      : first_ || key > last_;
    if (!after) {
      return Problem(t_, "ref '" + std::string(key) + "' is not after '" + last_ + "'");
    }
    if (r.update_index < t_.min_update_index() || r.update_index > t_.max_update_index()) {
      return Problem(t_, "ref '" + std::string(key) + "' has update index " +
                             std::to_string(r.update_index) + " outside the table's limits");
    }
    if (!restarts_.Record(start)) return RestartProblem();
    AssignName(&last_, key);
    last_type_ = r.value_type;
    last_update_index_ = r.update_index;
    first_ = false;
    if (first_in_block_) {
      first_in_block_ = false;
      block_first_.assign(key);
      block_first_type_ = r.value_type;
      block_first_update_index_ = r.update_index;
    }
    return Status::Ok();
  }

  // The lookups come after the restart table is checked, which they rely on.
  Status EndBlock() {
    if (!restarts_.End()) return RestartProblem();  // none may be left
    if (first_in_block_) return Status::Ok();       // no records
    if (index_.active()) return index_.OnBlock(block_->offset, block_first_, last_);
    REFTAB_RETURN_IF_ERROR(LookUp(block_first_, block_first_type_, block_first_update_index_));
    return LookUp(last_, last_type_, last_update_index_);
  }

  // After the last ref block.
  Status Finish() { return index_.Finish(); }

 private:
  Status RestartProblem() const {
    return Problem(
        t_, "block at offset " + std::to_string(block_->offset) + ": " + restarts_.Problem());
  }

  Status LookUp(std::string_view key, RefValueType type, uint64_t update_index) {
    bool found = false;
    REFTAB_RETURN_IF_ERROR(t_.ReadRef(key, &again_, &found));
    if (!found || again_.value_type != type || again_.update_index != update_index) {
      return Problem(t_, "ref '" + std::string(key) + "' is in the scan but not found by lookup");
    }
    return Status::Ok();
  }

  const TableReader& t_;
  VerifyReport* report_;
  IndexCheck index_;
  const BlockView* block_ = nullptr;
  RestartCheck restarts_;
  bool first_in_block_ = true;
  std::string block_first_;  // the block's first record
  RefValueType block_first_type_ = RefValueType::kDeletion;
  uint64_t block_first_update_index_ = 0;
  std::string last_;  // the record before
  RefValueType last_type_ = RefValueType::kDeletion;
  uint64_t last_update_index_ = 0;
  bool first_ = true;
  RefRecord again_;
};

// Decodes a ref block's records once for both checks that read them (`refs` may be null),
// and gives the live ones to `sink` (only with `refs`: the first pass).
Status CheckRefBlock(const TableReader& t, const BlockView& b, RefSectionCheck* refs,
                     ObjIndexCheck* objs, VerifyRefSink* sink = nullptr) {
  objs->StartRefBlock(b);
  if (refs) refs->StartBlock(b);
  BlockIterator it;
  it.Init(b, t.hash_size());
  it.set_track_lcp(refs != nullptr);  // the order of keys from their common prefixes
  RefRecord r;
  uint32_t start = b.header_off + uint32_t(kBlockHeaderSize);  // of the next record
  bool malformed = false;
  bool first = true;  // the block's first record has no key before it
  while (!malformed && it.NextKey()) {
    ByteReader v = it.value();
    malformed = !codec::GetRefValue(v, it.value_type(), t.min_update_index(), t.hash_size(), &r);
    if (malformed) break;
    it.ValueDone(v);
    if (refs) {
      const uint32_t lcp = first ? RefSectionCheck::kNoLcp : it.lcp();
      REFTAB_RETURN_IF_ERROR(refs->OnRecord(start, it.key(), r, lcp));
      first = false;
      if (sink && r.value_type != RefValueType::kDeletion) {
        AssignName(&r.refname, it.key());
        REFTAB_RETURN_IF_ERROR(sink->OnRef(r));
      }
    }
    objs->OnRefRecord(b, r);
    start = uint32_t(v.pos() - b.data);
  }
  if (malformed || it.error()) {
    return Problem(t, "block at offset " + std::to_string(b.offset) + ": malformed ref record");
  }
  if (refs) REFTAB_RETURN_IF_ERROR(refs->EndBlock());
  objs->EndRefBlock(b);
  return Status::Ok();
}

// Turns a table's lookup aids off for a scope, as they were after.
class LookupAidsOff {
 public:
  explicit LookupAidsOff(const TableReader& t) : t_(t), was_(t.lookup_aids()) {
    t.set_lookup_aids(false);
  }
  ~LookupAidsOff() { t_.set_lookup_aids(was_); }
  LookupAidsOff(const LookupAidsOff&) = delete;
  LookupAidsOff& operator=(const LookupAidsOff&) = delete;

 private:
  const TableReader& t_;
  const bool was_;
};

// Gives back the pages of the blocks a check has read that nothing reads again soon, in
// steps of kStep bytes: the obj, log and index blocks, and the ref blocks too when
// `ref_blocks_too` (the git-level checks that follow read them again unless they took the
// refs from this scan, VerifyRefSink). Verifying a table then holds its ref blocks and
// little more, or little more than a step.
class PassedBlocks {
 public:
  PassedBlocks(const TableReader& t, bool ref_blocks_too) : t_(t), refs_too_(ref_blocks_too) {}
  ~PassedBlocks() { ReleaseUpTo(t_.file_size()); }
  PassedBlocks(const PassedBlocks&) = delete;
  PassedBlocks& operator=(const PassedBlocks&) = delete;

  void Passed(const BlockView& b) {
    if (b.type == BlockType::kRef && !refs_too_) {
      ReleaseUpTo(b.offset);
      from_ = kNone;
      return;
    }
    if (from_ == kNone) from_ = b.offset;
    if (b.offset + b.full_size - from_ >= kStep) ReleaseUpTo(b.offset + b.full_size);
  }

 private:
  static constexpr uint64_t kNone = ~uint64_t(0);
  static constexpr uint64_t kStep = 1 << 20;
  void ReleaseUpTo(uint64_t end) {
    if (from_ == kNone || end <= from_) return;
    t_.ReleasePages(from_, end - from_);
    from_ = end;
  }
  const TableReader& t_;
  const bool refs_too_;
  uint64_t from_ = kNone;  // where the blocks not given back yet start
};

bool FollowsGitNaming(const std::string& name, const TableReader& t) {
  char expect[48];
  std::snprintf(expect, sizeof expect, "0x%012" PRIx64 "-0x%012" PRIx64 "-", t.min_update_index(),
                t.max_update_index());
  if (name.size() != 42 || name.compare(0, 30, expect) != 0 || name.compare(38, 4, ".ref") != 0) {
    return false;
  }
  for (size_t i = 30; i < 38; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

}  // namespace

Status VerifyTable(const TableReader& t, VerifyReport* report, VerifyRefSink* sink) {
  ++report->tables;
  if (t.min_update_index() > t.max_update_index()) {
    return Problem(t, "min_update_index is greater than max_update_index");
  }
  // The lookups must take the table's own index and restart points, not an aid built from a
  // scan (which would agree with the scan whatever the file says), and the aids' memory
  // would grow with the table.
  LookupAidsOff aids_off(t);
  ObjIndexCheck objs(t, ObjIndexCheck::kFingerprint);
  RefSectionCheck refs(t, report);
  IndexCheck obj_index(t, BlockType::kObj);
  {
    PassedBlocks passed(t, /*ref_blocks_too=*/sink != nullptr);
    REFTAB_RETURN_IF_ERROR(t.ForEachBlock([&](const BlockView& b) {
      ++report->blocks;
      Status s;
      if (b.type == BlockType::kRef) s = CheckRefBlock(t, b, &refs, &objs, sink);
      if (b.type == BlockType::kObj) {
        s = objs.OnObjBlock(b);
        if (s.ok() && objs.active()) {
          s = obj_index.OnBlock(b.offset, objs.block_first(), objs.block_last());
        }
      }
      passed.Passed(b);
      return s;
    }));
  }
  REFTAB_RETURN_IF_ERROR(refs.Finish());
  REFTAB_RETURN_IF_ERROR(obj_index.Finish());
  REFTAB_RETURN_IF_ERROR(objs.Finish());
  if (objs.needs_exact()) {
    ObjIndexCheck exact(t, ObjIndexCheck::kExact);
    REFTAB_RETURN_IF_ERROR(t.ForEachBlock([&](const BlockView& b) {
      if (b.type == BlockType::kRef) return CheckRefBlock(t, b, nullptr, &exact);
      if (b.type == BlockType::kObj) return exact.OnObjBlock(b);
      return Status::Ok();
    }));
    REFTAB_RETURN_IF_ERROR(exact.Finish());
  }
  return VerifyLogs(t, report);
}

Status VerifyStack(const Stack& stack, VerifyReport* report, Progress* progress,
                   VerifyRefSink* refs, bool* fed) {
  auto snap = stack.snapshot();
  const auto& tables = snap->tables();
  // One table holds the stack's refs as a merge would give them, tombstones aside.
  if (tables.size() != 1) refs = nullptr;
  if (fed) *fed = refs != nullptr;
  ProgressPhase phase(progress, "Verifying tables", tables.size());
  for (size_t i = 0; i < tables.size(); ++i) {
    phase.Set(i);
    const TableReader& t = *tables[i];
    REFTAB_RETURN_IF_ERROR(VerifyTable(t, report, refs));
    const std::string& name = stack.names()[i];
    if (!FollowsGitNaming(name, t)) {
      report->warnings.push_back(name +
                                 ": table name does not match its update index range "
                                 "(git names tables 0x<min>-0x<max>-<random>.ref)");
    }
    if (i > 0 && t.min_update_index() <= tables[i - 1]->max_update_index()) {
      return Problem(t, "update index range starts at " + std::to_string(t.min_update_index()) +
                            ", not after the older table's maximum " +
                            std::to_string(tables[i - 1]->max_update_index()));
    }
  }
  phase.Set(tables.size());
  return Status::Ok();
}

}  // namespace reftab

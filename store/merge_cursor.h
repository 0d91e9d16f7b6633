// Internal, not installed (store/meson.build leaves it out of store_public_headers): the merge
// of several tables of a stack into one sorted sequence, a template over the single-table
// cursors of store/section_cursor.h so that the whole per-record path inlines into the
// caller's loop. The library's own scans use it directly; the public MergedRefIterator and
// MergedLogIterator (store/merged_iterator.h) wrap it behind a pointer.
//
// Sub-iterators are ordered oldest to newest. For equal keys the newest table wins and the
// older records are skipped. What keeps it fast (LESSONS.md #6, #7, #10, bb2d6be4c1):
//   * a tree of losers over the sub-iterators compares their *keys* in place (the bytes in
//     each table's key buffer; for logs the key is name || 0 || ~update_index, whose byte
//     order is the merge order), never formatting or copying a record to compare it;
//     replacing the winner costs one match per tree level;
//   * matches compare offset-value codes, not strings: every key in the tree carries the
//     position where it first differs from a reference key and its next five bytes there,
//     packed into one integer. Along the path a new key climbs, all codes are relative to
//     the key just returned, and the new key's own code comes for free from the table's
//     prefix compression (the record's shared prefix with the previous key of that table
//     *is* the returned key's). Two different codes decide a match with one integer
//     comparison (when they agree in offset and first byte, the loser's code is re-read
//     from its key a few bytes on); only equal codes compare bytes. With one byte per code,
//     names with long shared prefixes tied in one match of seven on the benchmark's
//     stack;
//   * the winner of a match is picked with conditional moves (masks off x86-64), not
//     branches, and every leaf is equally deep, so a replay has no data-dependent branch in
//     the common case (where the tables' refs interleave, which one wins is a coin toss);
//     its loop is unrolled for trees of up to 8 leaves;
//   * the steady state (advance the returned child, replay, return the winner) is one
//     flag's check away from the caller's loop; every rare state goes out of line;
//   * a key equal to the one just returned gets code 0, so records shadowed by a newer table
//     are recognised when they reach the top, without another comparison;
//   * only the record that is returned is decoded (its value, and its name copied to the
//     caller's record); shadowed records and suppressed tombstones are skipped by key;
//   * the sub-iterator whose record was just returned is advanced lazily, on the next call,
//     so a caller that stops after one record (a lookup) reads no record too many;
//   * once a single sub-iterator is left the tree is bypassed entirely and Next() forwards
//     to it (the common case: one big base table);
//   * given its snapshot's MergeOrderMemo (store/merge_order.h), a whole scan of a snapshot
//     that was scanned whole before replays the order the tree chose then (one byte per
//     record) and compares no key; the second such scan records it.
// (Offset-value coding: Conner 1977; Graefe, "Offset-value coding", 2023.)
#ifndef REFTAB_STORE_MERGE_CURSOR_H_
#define REFTAB_STORE_MERGE_CURSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/bytes.h"
#include "format/record.h"
#include "format/status.h"
#include "store/merge_order.h"
#include "store/readahead_window.h"
#include "store/section_cursor.h"
#include "store/table_reader.h"

namespace reftab {

// The techniques above, each on unless switched off (perf/ablate.cc measures what each one
// brings that way); the library only ever uses MergeTechniques<>.
template <bool kBypass = true, bool kLazy = true, bool kCodes = true>
struct MergeTechniques {
  static constexpr bool kSingleChildBypass = kBypass;
  static constexpr bool kLazyAdvance = kLazy;
  static constexpr bool kOffsetValueCodes = kCodes;
};

// How much of each input a compaction gives back at a time (ReleasePassedPages, and the
// block copy of store/disjoint_merge.cc): a merge reads each input once, and holding their
// pages made a key/value store's peak resident memory the size of the tables it merged.
// 2 MiB, the size of an x86-64 huge page (see ReleasePassedPages).
inline constexpr uint64_t kMergeReleaseStep = uint64_t(2) << 20;

template <class Sub, class Record, class Techniques = MergeTechniques<>>
class MergeCursor {
 public:
  // `tables` oldest first.
  explicit MergeCursor(const std::vector<const TableReader*>& tables) {
    children_.reserve(tables.size());
    for (const TableReader* t : tables) children_.push_back(Sub(t));
    SetTrackLcp(true);
    code_.assign(children_.size() + 1, kExhausted);  // the last: Build's sentinel leaf
    leaf_.assign(children_.size(), 0);
    tree_.assign(1, kNone);
  }
  MergeCursor(MergeCursor&&) = default;
  MergeCursor& operator=(MergeCursor&&) = default;

  // Drop deletion records instead of returning them.
  void set_suppress_deletions(bool v) { suppress_deletions_ = v; }
  // Every table reads ahead (TableRefCursor::set_readahead): for long forward scans whose
  // caller keeps no view of a record past the next call. Lazy advance keeps the record
  // just returned in place until then.
  void set_readahead(bool on, uint64_t after_bytes = ReadaheadWindow::kAfterBytes) {
    static_assert(Techniques::kLazyAdvance, "an eager advance could move past a returned view");
    for (Sub& c : children_) c.set_readahead(on, after_bytes);
  }
  // The memo of the snapshot whose tables (in the same order) this cursor merges
  // (SnapshotAccess::RefOrder), or null. Whole scans (SeekToFirst) then record and
  // replay the merge's order as the memo says.
  void set_merge_order(MergeOrderMemo* memo) {
    memo_ = children_.size() > 1 && children_.size() <= MergeOrder::kMaxChildren ? memo : nullptr;
  }

  Status SeekToFirst() {
    std::shared_ptr<const MergeOrder> order;
    bool record = false;
    if (memo_ != nullptr && AidsAllowed()) order = memo_->ForScan(&record);
    SetTrackLcp(order == nullptr);  // a replay compares no key
    Status s = Reposition([](Sub& it) { return it.SeekToFirst(); });
    if (!s.ok() || single_ != kNone || live_ < 2) return s;
    if (order != nullptr && order->children == children_.size()) {
      replay_ = std::move(order);
      step_ = replay_->steps.data();
      steps_end_ = step_ + replay_->steps.size();
      replaying_ = true;
    } else if (record) {
      recording_ = std::make_unique<MergeOrder>();
      recording_->children = uint32_t(children_.size());
    }
    return s;
  }
  template <class... Key>
  Status Seek(const Key&... key) {
    SetTrackLcp(true);
    return Reposition([&](Sub& it) { return it.Seek(key...); });
  }

  // Positions before the first record whose name starts with `prefix`; Next() then ends
  // after the last one. Each table finds where its names leave the prefix once (the first
  // name >= the smallest string above all of them, a lookup) and stops there, so the scan
  // itself compares no name with the prefix. Refs only.
  Status SeekPrefix(std::string_view prefix) {
    if (prefix.empty()) return SeekToFirst();  // a whole scan (see set_merge_order)
    std::string limit(prefix);  // prefix "ab" -> limit "ac"; "a\xff" -> "b"; "\xff" -> none
    while (!limit.empty() && uint8_t(limit.back()) == 0xff) limit.pop_back();
    if (!limit.empty()) limit.back() = char(uint8_t(limit.back()) + 1);
    SetTrackLcp(true);
    return Reposition([&](Sub& it) { return it.SeekRange(prefix, limit); });
  }

  // Fills `*out` with the next record; false at the end or on error (see status()).
  REFTAB_FORCE_INLINE bool Next(Record* out) { return NextRecord<true>(out); }
  // As Next, but the record's name is left in the table's key buffer, as key(), instead of
  // being copied into out->refname (left as it was): a listing that only prints names
  // copies each name once, into its output. Refs only.
  REFTAB_FORCE_INLINE bool NextView(Record* out) {
    static_assert(Techniques::kLazyAdvance, "key() needs the returned child not advanced yet");
    return NextRecord<false>(out);
  }
  // Gives back the mapped pages (TableReader::ReleasePages) of what each table's cursor has
  // passed, for one pass over tables too big to keep resident, as a compaction makes: the
  // pages a merge has read would otherwise stay in the process until the tables are closed.
  // Only whole steps of `step` bytes of the file, aligned on multiples of it, go back (one
  // system call each), and none that holds the block a cursor is on: a kernel may map a
  // file's pages by huge pages, and giving back part of one unmaps it whole, which the
  // cursor's next read would map again, pages behind it included. A later read of a page
  // given back maps it again. `*released` holds, per table, where the previous call stopped
  // (empty the first time).
  void ReleasePassedPages(uint64_t step, std::vector<uint64_t>* released) const {
    released->resize(children_.size());
    for (size_t i = 0; i < children_.size(); ++i) {
      const uint64_t upto = children_[i].block_offset() / step * step;
      uint64_t& done = (*released)[i];
      if (upto > done) {
        children_[i].table()->ReleasePages(done, upto - done);
        done = upto;
      }
    }
  }
  // The key of the record the last Next() or NextView() returned; valid until the next call.
  // That child is the bypass child, or the one whose advance is pending.
  std::string_view key() const { return children_[single_ != kNone ? single_ : pending_].key(); }
  // After a Seek(prefix): the next live record whose name starts with `prefix` (name and
  // value in `*out`); false once the merge reaches any record past the prefix, deleted or
  // not, or on error. Next() with deletions suppressed would walk every tombstone after the
  // prefix up to the next live ref, so a look below a name that a run of deleted names
  // follows cost as much as the run. Whatever set_suppress_deletions says. Refs only.
  bool NextLiveUnder(std::string_view prefix, Record* out) {
    const bool suppress = suppress_deletions_;
    suppress_deletions_ = false;
    bool found = false;
    while (NextRecord<false>(out)) {
      const std::string_view k = key();
      if (k.substr(0, prefix.size()) != prefix) break;
      if (out->is_deletion()) continue;
      out->refname.assign(k);
      found = true;
      break;
    }
    suppress_deletions_ = suppress;
    return found;
  }
  const Status& status() const { return status_; }

 private:
  // Forced inline, with NextSingle and ReadFrom: otherwise g++ keeps one of them out of
  // line in some loops (the bench's prefix loop: 202 instructions per ref instead of 131).
  template <bool kWithName>
  REFTAB_FORCE_INLINE bool NextRecord(Record* out) {
    if (Sub* c = bypass_) {
      // The bypass in its steady state: the next record of the one child, with no check of
      // the state NextSingle handles (one pointer stands for "single, not fresh, no
      // error"). A tombstone to drop, the end or an error go on to NextSingle, which reads
      // the next key again: past a tombstone that is the next record, at the end or after
      // an error the child stays where it is (an error leaves its cursor inactive).
      if (c->NextKey() && (c->value_type() != 0 || !suppress_deletions_) &&
          ReadFrom<kWithName>(*c, out)) [[likely]] {
        return true;
      }
      return NextSingle<kWithName>(out);
    }
    if constexpr (Techniques::kLazyAdvance) {
      if (merging_) [[likely]] {
        // The merge in its steady state (see merging_): advance the child whose record was
        // returned, replay its path, return the new winner. Everything rare (a child running
        // out or failing, a pending compaction, the bypass) is left to NextMerge.
        for (;;) {
          const uint32_t p = pending_;
          if (!StepChild(p)) [[unlikely]]
            return NextAfterEnd<kWithName>(out);
          uint64_t wc;
          const uint32_t w = Replay(p, &wc);
          pending_ = w;
          if (wc == kDuplicate) continue;  // an older table's record for a returned key
          Sub& c = children_[w];
          if (suppress_deletions_ && c.value_type() == 0) continue;
          if (!ReadFrom<kWithName>(c, out)) [[unlikely]] {
            status_ = c.status();
            merging_ = false;
            return false;
          }
          return true;
        }
      }
    }
    // After the merge's steady state, so that its code stays as it was without replays.
    if (replaying_) [[unlikely]]
      return NextReplayed<kWithName>(out);
    return NextMerge<kWithName>(out);
  }

  // NextRecord's general path: the first record after a seek, a compaction, the bypass,
  // the end and errors. Out of line, so that the steady state inlines small.
  template <bool kWithName>
  [[gnu::noinline]] bool NextMerge(Record* out) {
    if (single_ != kNone) return NextSingle<kWithName>(out);
    for (;;) {
      if (!status_.ok()) return false;
      if (pending_ != kNone) {  // lazy advance of the child whose record was consumed
        uint32_t p = pending_;
        pending_ = kNone;
        Advance(p);
        if (single_ != kNone) return NextSingle<kWithName>(out);
        if (!status_.ok()) return false;
      }
      if (live_ == 0) return false;
      uint32_t w = tree_[0];
      pending_ = w;
      if (recording_ != nullptr) Note(w, code_[w] == kDuplicate);
      if (code_[w] == kDuplicate) continue;  // an older table's record for a returned key
      Sub& c = children_[w];
      if (suppress_deletions_ && c.value_type() == 0) continue;
      if (!ReadFrom<kWithName>(c, out)) {
        status_ = c.status();
        return false;
      }
      if constexpr (!Techniques::kLazyAdvance) {
        pending_ = kNone;
        Advance(w);
      } else {
        // The tree is whole and no error is recorded. A recording scan stays on this path
        // (Advance does what the steady state does), so the steady state has no check of it.
        merging_ = !compact_ && recording_ == nullptr;
      }
      return true;
    }
  }

  // A replayed whole scan (see set_merge_order): advance the child whose record was
  // returned, take the next step's child, return its record. The recording came from these
  // very tables, so the child named has a record; the steps end where a single table was
  // left, whose records NextReplayedTail hands to the bypass.
  template <bool kWithName>
  REFTAB_FORCE_INLINE bool NextReplayed(Record* out) {
    for (;;) {
      if (pending_ != kNone) {
        Sub& p = children_[pending_];
        if (!p.NextKey() && !p.status().ok()) [[unlikely]] {
          status_ = p.status();
          replaying_ = false;
          return false;
        }
      }
      if (step_ == steps_end_) [[unlikely]]
        return NextReplayedTail<kWithName>(out);
      const uint8_t step = *step_++;
      const uint32_t c = step & ~uint32_t(MergeOrder::kShadowed);
      pending_ = c;
      if (step & MergeOrder::kShadowed) continue;
      Sub& it = children_[c];
      if (suppress_deletions_ && it.value_type() == 0) continue;
      if (!ReadFrom<kWithName>(it, out)) [[unlikely]] {
        status_ = it.status();
        replaying_ = false;
        return false;
      }
      return true;
    }
  }

  // The replay's steps are done: every table but the tail has ended, and the tail is on
  // the record the bypass took first when the order was recorded.
  template <bool kWithName>
  [[gnu::noinline]] bool NextReplayedTail(Record* out) {
    replaying_ = false;
    pending_ = kNone;
    for (uint64_t& c : code_) c = kExhausted;
    const uint32_t t = replay_->tail;
    code_[t] = replay_->tail_shadowed ? kDuplicate : kFar;
    live_ = 1;
    compact_ = false;
    single_ = t;
    single_fresh_ = true;
    return NextSingle<kWithName>(out);
  }

  // Recording: child c's record was taken from the tree (shadowed: by a newer table's).
  REFTAB_FORCE_INLINE void Note(uint32_t c, bool shadowed) {
    recording_->steps.push_back(uint8_t(c | (shadowed ? MergeOrder::kShadowed : 0u)));
  }

  bool AidsAllowed() const {
    for (const Sub& c : children_) {
      if (!c.table()->lookup_aids()) return false;
    }
    return true;
  }

  void SetTrackLcp(bool on) {
    on = on && children_.size() > 1 && Techniques::kOffsetValueCodes;
    if (on == tracking_lcp_) return;
    for (Sub& c : children_) c.set_track_lcp(on);
    tracking_lcp_ = on;
  }

  // The steady state's child `pending_` has no record left (or failed): what Advance does
  // when NextKey fails, then the general path.
  template <bool kWithName>
  [[gnu::noinline]] bool NextAfterEnd(Record* out) {
    const uint32_t p = pending_;
    pending_ = kNone;
    merging_ = false;
    Ended(p);
    uint64_t wc;
    Replay(p, &wc);
    MaybeBypass();
    return NextMerge<kWithName>(out);
  }

  // Moves child c to its next key and codes that against the key it replaces (the one just
  // returned or skipped: the table's prefix compression gives their common prefix). The
  // steady state's rule and Advance's. False if the child has no record left or failed.
  REFTAB_FORCE_INLINE bool StepChild(uint32_t c) {
    Sub& it = children_[c];
    if (!it.NextKey()) [[unlikely]]
      return false;
    code_[c] = Techniques::kOffsetValueCodes ? CodeOf(it.key(), it.lcp()) : 1;
    return true;
  }

  template <bool kWithName>
  REFTAB_FORCE_INLINE static bool ReadFrom(Sub& c, Record* out) {
    if constexpr (kWithName) {
      return c.ReadValue(out);
    } else {
      return c.ReadValueOnly(out);
    }
  }

  static constexpr uint32_t kNone = ~uint32_t(0);
  // Codes: smaller means an earlier key, for keys coded against the same reference. A key
  // that differs from the reference at `offset` (< kMaxOffset) has the code
  //   (kMaxOffset - offset) << kWindowBits | the key's kWindow bytes from offset, big-endian,
  // zeros past its end,
  // so a key that shares more with the reference, or as much and has smaller bytes there,
  // has the smaller code. Carrying several bytes rather than one makes equal codes rare
  // where keys share long prefixes (refs/heads/feature/user-2000/topic-1xx: the keys after
  // topic-199 all differ from it at the same '1' and are told apart by the next bytes).
  // Zeros past the end make the code order non-strict (a key and itself plus 0 bytes code
  // alike), so equal codes still compare bytes.
  static constexpr uint64_t kDuplicate = 0;  // equal to the reference key
  static constexpr uint64_t kFar = 1;        // offset >= kMaxOffset: compares bytes
  static constexpr uint64_t kExhausted = ~uint64_t(0);
  static constexpr int kWindow = 5;
  static constexpr int kWindowBits = 8 * kWindow;
  // An offset field of all ones is left to kExhausted.
  static constexpr uint64_t kMaxOffset = (uint64_t(1) << (64 - kWindowBits)) - 2;
  // Two codes whose xor is below this have the same offset and the same first byte: one
  // integer comparison still orders them but the loser's offset against the winner grows.
  static constexpr uint64_t kNear = uint64_t(1) << (kWindowBits - 8);
  static constexpr uint64_t kMinWindowed = uint64_t(1) << kWindowBits;
  static_assert(Sub::kKeyReadSlack >= 8, "CodeOf loads a word at any offset in the key");

  // The code of `key` against a smaller-or-equal reference it shares `offset` bytes with.
  static uint64_t CodeOf(std::string_view key, size_t offset) {
    if (offset >= key.size()) return kDuplicate;
    if (offset >= kMaxOffset) [[unlikely]]
      return kFar;
    // A whole word from the key buffer (the bytes past the key are readable, see
    // kKeyReadSlack), its first kWindow bytes kept and those past the key's end cleared.
    uint64_t w =
        be::Load64(reinterpret_cast<const uint8_t*>(key.data()) + offset) >> (64 - kWindowBits);
    size_t left = key.size() - offset;
    size_t kept = left < size_t(kWindow) ? left : size_t(kWindow);
    w &= ~uint64_t(0) << (8 * (size_t(kWindow) - kept));
    return ((kMaxOffset - offset) << kWindowBits) | w;
  }
  static size_t OffsetOf(uint64_t code) { return size_t(kMaxOffset - (code >> kWindowBits)); }

  // A match between child a (parked at a tree node) and child b (climbing), with codes
  // against the same reference. True if a wins (comes first). Afterwards the loser's code
  // is against the winner; the winner's is unchanged.
  REFTAB_HOT_INLINE bool Match(uint32_t a, uint32_t b, uint64_t ca, uint64_t cb) {
    if ((ca ^ cb) >= kNear) [[likely]] {
      // Different offsets, or different bytes at the offset: the loser differs from the
      // winner where it differs from the reference, so its code stands.
      return ca < cb;
    }
    return NearCodes(a, b, ca, cb);
  }

  // Match() of codes with the same offset and first byte.
  [[gnu::noinline]] bool NearCodes(uint32_t a, uint32_t b, uint64_t ca, uint64_t cb) {
    if (ca == cb) return EqualCodes(a, b, ca);
    // A duplicate against a kFar code: the loser's code against a key equal to the
    // reference is its code against the reference.
    if (ca < kMinWindowed) return ca < cb;
    // The keys agree from the offset up to the first differing byte of their windows, so
    // the loser shares that much with the winner, or all of the winner if the winner ends
    // first (its zeros past the end may stand for the loser's 0 bytes).
    bool a_wins = ca < cb;
    uint32_t swap = (a ^ b) & (0u - uint32_t(a_wins));  // masks: who wins is data
    uint32_t w = b ^ swap, l = a ^ swap;
    size_t d = size_t(__builtin_clzll(ca ^ cb) - (64 - kWindowBits)) >> 3;
    size_t lcp = OffsetOf(ca) + d;
    size_t wn = children_[w].key().size();
    code_[l] = CodeOf(children_[l].key(), lcp < wn ? lcp : wn);
    return a_wins;
  }

  // Match() of equal codes: compares the keys' bytes. Equal keys: the newer table (higher
  // index) wins and the older record becomes a duplicate of it.
  [[gnu::noinline]] bool EqualCodes(uint32_t a, uint32_t b, uint64_t code) {
    if (code == kExhausted) return false;
    if (code == kDuplicate) return a > b;
    // Both keys equal the reference up to the code's offset, so bytes are compared from
    // there (the windows agree too, but their zeros may stand for the end of a key).
    std::string_view ka = children_[a].key(), kb = children_[b].key();
    size_t from = !Techniques::kOffsetValueCodes ? 0 : code == kFar ? kMaxOffset : OffsetOf(code);
    size_t n = ka.size() < kb.size() ? ka.size() : kb.size();
    if (from > n) from = n;
    size_t l = from + MismatchAt(reinterpret_cast<const uint8_t*>(ka.data()) + from,
                                 reinterpret_cast<const uint8_t*>(kb.data()) + from, n - from);
    bool a_wins;
    if (l < n) {
      a_wins = uint8_t(ka[l]) < uint8_t(kb[l]);
    } else if (ka.size() != kb.size()) {
      a_wins = ka.size() < kb.size();
    } else {
      a_wins = a > b;
      code_[a_wins ? b : a] = kDuplicate;
      return a_wins;
    }
    if constexpr (Techniques::kOffsetValueCodes) {
      if (a_wins) {
        code_[b] = CodeOf(kb, l);
      } else {
        code_[a] = CodeOf(ka, l);
      }
    }
    return a_wins;
  }

  // Child c's key changed: play its matches again from its leaf to the root; returns the
  // new winner (also in tree_[0]) and its code. The winner of each match is picked with
  // conditional moves, not branches: which key wins is data, and on tables whose refs
  // interleave it is a coin toss at every level. The loop is unrolled for the tree's depth
  // (every leaf is equally deep, so the depth is the same for every child and the switch
  // predicts well).
  REFTAB_HOT_INLINE uint32_t Replay(uint32_t c, uint64_t* winner_code) {
    switch (levels_) {
      case 1: return ReplayLevels<1>(c, winner_code);
      case 2: return ReplayLevels<2>(c, winner_code);
      case 3: return ReplayLevels<3>(c, winner_code);
      default: return ReplayLevels<0>(c, winner_code);
    }
  }
  // kLevels rounds, or (0) as many as the tree has.
  template <uint32_t kLevels>
  REFTAB_FORCE_INLINE uint32_t ReplayLevels(uint32_t c, uint64_t* winner_code) {
    uint32_t* const tree = tree_.data();
    const uint64_t* const code = code_.data();
    uint32_t winner = c;
    uint64_t wc = code[c];
    uint32_t node = (leaf_[c] + leaves_) >> 1;
    const uint32_t rounds = kLevels != 0 ? kLevels : levels_;
    for (uint32_t i = 0; i < rounds; ++i, node >>= 1) {
      uint32_t parked = tree[node];
      uint64_t pc = code[parked];
      // The parked child wins if pc < against. Codes that differ beyond their first byte
      // compare as they are; otherwise NearCodes decides (and fixes the loser's code in
      // code_), and `against` is set so that the comparison says what it decided: the
      // selects below then take their condition from one comparison.
      uint64_t against = wc;
      if ((pc ^ wc) < kNear) [[unlikely]]
        against = pc + uint64_t(NearCodes(parked, winner, pc, wc));  // pc < kExhausted if it wins
      uint32_t stays;
#if defined(__x86_64__)
      // g++ makes the selects a branch (winner lives in memory under register pressure):
      // conditional moves, spelt out.
      asm("cmp %[against], %[pc]\n\t"
          "mov %[parked], %[stays]\n\t"
          "cmovb %[winner], %[stays]\n\t"
          "cmovb %[parked], %[winner]\n\t"
          "cmovb %[pc], %[wc]"
          : [stays] "=&r"(stays), [winner] "+r"(winner), [wc] "+r"(wc)
          : [pc] "r"(pc), [against] "r"(against), [parked] "r"(parked)
          : "cc");
#else
      // All ones if the parked child wins: then winner and parked swap, and so do codes.
      const uint32_t m = 0u - uint32_t(pc < against);
      const uint32_t swap = (winner ^ parked) & m;
      stays = parked ^ swap;
      winner ^= swap;
      wc ^= (wc ^ pc) & (0 - uint64_t(m & 1));
#endif
      tree[node] = stays;
    }
    tree[0] = winner;
    *winner_code = wc;
    return winner;
  }

  // Builds the tree over the live children: leaf i (tree position leaves_ + i) is the i-th
  // live child, the leaves past them the exhausted sentinel, so that every leaf is as deep
  // as every other and Replay's loop runs the same number of rounds for every child (a trip
  // count that changes with the child is a branch the CPU mispredicts). Each inner node
  // keeps the loser of the match played there, tree_[0] the overall winner. All codes must
  // be against one reference key.
  [[gnu::noinline]] void Build() {
    uint32_t n = 0;
    for (uint32_t c = 0; c < children_.size(); ++c) {
      if (code_[c] != kExhausted) leaf_[c] = n++;
    }
    uint32_t leaves = 1;
    while (leaves < n) leaves *= 2;
    leaves_ = leaves;
    levels_ = uint32_t(__builtin_ctz(leaves));
    const uint32_t sentinel = uint32_t(children_.size());
    tree_.assign(leaves, kNone);
    // win_[node]: the winner of the subtree under node, played bottom up.
    win_.assign(2 * leaves, sentinel);
    for (uint32_t c = 0; c < children_.size(); ++c) {
      if (code_[c] != kExhausted) win_[leaves + leaf_[c]] = c;
    }
    for (uint32_t node = leaves - 1; node > 0; --node) {
      uint32_t a = win_[2 * node], b = win_[2 * node + 1];
      bool a_wins = Match(a, b, code_[a], code_[b]);
      win_[node] = a_wins ? a : b;
      tree_[node] = a_wins ? b : a;
    }
    tree_[0] = win_[1];
    compact_ = false;
    MaybeBypass();
  }

  // Drops exhausted children from the tree (fewer levels to climb). Called as child c is
  // about to advance past the key just returned, which becomes the reference of all codes.
  [[gnu::noinline]] void Compact(uint32_t c) {
    std::string_view ref = children_[c].key();
    for (uint32_t i = 0; i < children_.size(); ++i) {
      if (code_[i] == kExhausted) continue;
      if (i == c || !Techniques::kOffsetValueCodes) {
        code_[i] = i == c ? kDuplicate : 1;
        continue;
      }
      std::string_view k = children_[i].key();
      size_t n = k.size() < ref.size() ? k.size() : ref.size();
      code_[i] = CodeOf(k, MismatchAt(reinterpret_cast<const uint8_t*>(k.data()),
                                      reinterpret_cast<const uint8_t*>(ref.data()), n));
    }
    Build();
  }

  void MaybeBypass() {
    if (Techniques::kSingleChildBypass && live_ == 1) {
      single_ = tree_[0];
      single_fresh_ = true;  // positioned on a record not returned yet
      if (recording_ != nullptr) FinishRecording();
    }
  }

  // A single table is left and every record before its current one was noted: the order
  // is complete, unless a table failed on the way.
  [[gnu::noinline]] void FinishRecording() {
    std::unique_ptr<MergeOrder> order = std::move(recording_);
    if (!status_.ok()) return;
    order->tail = single_;
    order->tail_shadowed = code_[single_] == kDuplicate;
    order->steps.shrink_to_fit();
    memo_->Publish(std::move(order));
  }

  // Reads child c's next key, codes it against the key it replaces (the one just returned
  // or skipped), and restores the tree.
  REFTAB_FORCE_INLINE void Advance(uint32_t c) {
    if (compact_) Compact(c);
    if (!StepChild(c)) Ended(c);
    uint64_t wc;
    Replay(c, &wc);
    MaybeBypass();
  }

  // Child c has no record left (or failed).
  void Ended(uint32_t c) {
    Sub& it = children_[c];
    code_[c] = kExhausted;
    --live_;
    compact_ = live_ > 1;
    if (!it.status().ok() && status_.ok()) status_ = it.status();
  }

  // The bypass: one child left, no tree. Out of line: after its first record (the one the
  // tree left the child on), NextRecord's steady-state path does the work.
  template <bool kWithName>
  [[gnu::noinline]] bool NextSingle(Record* out) {
    Sub& c = children_[single_];
    for (;;) {
      if (!status_.ok()) return false;
      if (single_fresh_) {
        single_fresh_ = false;
        if (code_[single_] == kDuplicate) continue;
      } else if (!c.NextKey()) {
        if (!c.status().ok()) status_ = c.status();
        return false;
      }
      if (suppress_deletions_ && c.value_type() == 0) continue;
      if (!ReadFrom<kWithName>(c, out)) {
        status_ = c.status();
        return false;
      }
      bypass_ = &c;
      return true;
    }
  }

  template <class F>
  Status Reposition(F&& seek) {
    status_ = Status::Ok();
    pending_ = kNone;
    single_ = kNone;
    single_fresh_ = false;
    bypass_ = nullptr;
    merging_ = false;
    replaying_ = false;
    replay_.reset();
    recording_.reset();
    live_ = 0;
    compact_ = false;
    for (uint32_t i = 0; i < children_.size(); ++i) {
      Sub& it = children_[i];
      code_[i] = kExhausted;
      Status s = seek(it);
      if (!s.ok()) {
        status_ = s;
        return s;
      }
      if (it.NextKey()) {
        code_[i] = Techniques::kOffsetValueCodes ? CodeOf(it.key(), 0) : 1;
        ++live_;
      } else if (!it.status().ok()) {
        status_ = it.status();
        return status_;
      }
    }
    Build();
    return status_;
  }

  std::vector<Sub> children_;
  std::vector<uint64_t> code_;  // per child: its key's code (see EqualCodes)
  std::vector<uint32_t> leaf_;  // per live child: its leaf number
  std::vector<uint32_t> tree_;  // [0]: winner; [1, n): losers parked at the inner nodes
  std::vector<uint32_t> win_;   // Build's scratch
  uint32_t leaves_ = 0;   // leaves of the tree (live children at the last Build, to a power of 2)
  uint32_t levels_ = 0;   // log2(leaves_): the matches on a path from a leaf to the root
  uint32_t live_ = 0;     // children with a current record
  bool compact_ = false;  // a child ran out: rebuild without it at the next Advance
  uint32_t pending_ = kNone;  // child whose returned record is not advanced past yet
  uint32_t single_ = kNone;   // the bypass child, once only one is left
  bool single_fresh_ = false;
  // &children_[single_] once the bypass has returned a record and while no error is
  // recorded: NextRecord's fast path (children_ is never resized after construction, and a
  // move keeps its buffer).
  Sub* bypass_ = nullptr;
  bool suppress_deletions_ = false;
  // The steady state of a merge: a record was returned from the tree (pending_ is its
  // child), no error is recorded, no compaction is due, no bypass is on and no order is
  // being recorded. Anything that ends it clears it.
  bool merging_ = false;
  // The order of whole scans (see set_merge_order): the memo, the order being replayed (its
  // next step and end) or the one being recorded.
  MergeOrderMemo* memo_ = nullptr;
  bool replaying_ = false;
  std::shared_ptr<const MergeOrder> replay_;
  const uint8_t* step_ = nullptr;
  const uint8_t* steps_end_ = nullptr;
  std::unique_ptr<MergeOrder> recording_;
  bool tracking_lcp_ = false;
  Status status_;
};

using RefMergeCursor = MergeCursor<TableRefCursor, RefRecord>;
// Refs as key/value pairs: values are views of the tables' bytes (store/ref_view.h).
using RefViewMergeCursor = MergeCursor<TableRefCursor, RefView>;
using LogMergeCursor = MergeCursor<TableLogCursor, LogRecord>;

}  // namespace reftab

#endif  // REFTAB_STORE_MERGE_CURSOR_H_

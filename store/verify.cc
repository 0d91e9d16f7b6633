#include "store/verify.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "format/record_codec.h"
#include "store/section_cursor.h"

namespace reftab {
namespace {

Status Problem(const TableReader& t, const std::string& what) {
  return Status::Corruption(t.name() + ": " + what);
}

Status VerifyRefs(const TableReader& t, VerifyReport* report) {
  TableRefCursor it(&t);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  RefRecord ref, again;
  std::string last;
  bool first = true;
  while (it.Next(&ref)) {
    ++report->refs;
    if (!first && ref.refname <= last) {
      return Problem(t, "ref '" + ref.refname + "' is not after '" + last + "'");
    }
    if (ref.update_index < t.min_update_index() || ref.update_index > t.max_update_index()) {
      return Problem(t, "ref '" + ref.refname + "' has update index " +
                            std::to_string(ref.update_index) + " outside the table's limits");
    }
    // The exact-lookup path (index descent + restart search) must agree with the scan.
    bool found = false;
    REFTAB_RETURN_IF_ERROR(t.ReadRef(ref.refname, &again, &found));
    if (!found || again.value_type != ref.value_type || again.update_index != ref.update_index) {
      return Problem(t, "ref '" + ref.refname + "' is in the scan but not found by lookup");
    }
    last = ref.refname;
    first = false;
  }
  return it.status();
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
  std::string out;
  char buf[4];
  for (char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", unsigned(uint8_t(c)));
    out += buf;
  }
  return out;
}

// The obj section, checked against the ref blocks (which come first in the file): every
// record's count is bounded by the number of ref blocks and its positions are offsets of
// ref blocks in increasing order; and, as for refs, the lookup path agrees with a scan: a
// record lists exactly the ref blocks that hold a ref whose value or peeled value starts
// with its prefix (unless it has no positions, git's "scan every ref block"), and every
// prefix some ref has gets a record.
class ObjIndexCheck {
 public:
  explicit ObjIndexCheck(const TableReader& t) : t_(t) {
    uint64_t unused;
    active_ = t.ObjSectionStart(&unused);
  }

  Status OnBlock(const BlockView& b) {
    if (b.type == BlockType::kRef) return CollectRefBlock(b);
    if (b.type == BlockType::kObj && active_) return CheckObjBlock(b);
    return Status::Ok();
  }

  // After the last block: prefixes that no record covered.
  Status Finish() {
    if (!active_ || next_held_ >= held_.size()) return Status::Ok();
    return Missing(held_[next_held_]);
  }

 private:
  using Held = std::pair<std::string, uint64_t>;  // (id prefix, ref block)

  Status CollectRefBlock(const BlockView& b) {
    ref_blocks_.push_back(b.offset);
    if (!active_) return Status::Ok();
    BlockIterator it;
    it.Init(b, t_.hash_size());
    RefRecord r;
    const size_t len = t_.footer().obj_id_len;
    while (it.NextKey()) {
      ByteReader v = it.value();
      if (!codec::GetRefValue(v, it.value_type(), t_.min_update_index(), t_.hash_size(), &r)) {
        return At(b.offset, "malformed ref record");
      }
      it.ValueDone(v);
      if (r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2) {
        held_.emplace_back(std::string(reinterpret_cast<const char*>(r.value.data()), len),
                           b.offset);
      }
      if (r.value_type == RefValueType::kVal2) {
        held_.emplace_back(std::string(reinterpret_cast<const char*>(r.peeled.data()), len),
                           b.offset);
      }
    }
    if (it.error()) return At(b.offset, "malformed ref record");
    return Status::Ok();
  }

  Status CheckObjBlock(const BlockView& b) {
    if (!sorted_) {
      std::sort(held_.begin(), held_.end());
      held_.erase(std::unique(held_.begin(), held_.end()), held_.end());
      sorted_ = true;
    }
    BlockIterator it;
    it.Init(b, t_.hash_size());
    std::vector<uint64_t> positions;
    while (it.NextKey()) {
      const std::string key(it.key());
      ByteReader v = it.value();
      REFTAB_RETURN_IF_ERROR(CheckCount(b.offset, key, it.value_type(), v));
      if (!codec::GetObjValue(v, it.value_type(), &positions)) {
        return At(b.offset, "obj record " + Hex(key) + ": malformed positions");
      }
      it.ValueDone(v);
      REFTAB_RETURN_IF_ERROR(CheckRecord(b.offset, key, positions));
    }
    if (it.error()) return At(b.offset, "malformed obj record");
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
    const std::string what = "obj record " + Hex(key);
    if (key.size() != t_.footer().obj_id_len) {
      return At(block, what + ": key is not " + std::to_string(t_.footer().obj_id_len) +
                           " bytes (the footer's obj_id_len)");
    }
    if (!last_key_.empty() && key <= last_key_) return At(block, what + ": keys out of order");
    last_key_ = key;
    for (size_t i = 0; i < positions.size(); ++i) {
      if (i > 0 && positions[i] <= positions[i - 1]) {
        return At(block, what + ": positions not in increasing order");
      }
      if (!std::binary_search(ref_blocks_.begin(), ref_blocks_.end(), positions[i])) {
        return At(block, what + ": position " + std::to_string(positions[i]) +
                             " is not the offset of a ref block");
      }
    }
    // In step with the prefixes the ref blocks hold (both sorted).
    if (next_held_ < held_.size() && held_[next_held_].first < key)
      return Missing(held_[next_held_]);
    std::vector<uint64_t> holders;
    for (; next_held_ < held_.size() && held_[next_held_].first == key; ++next_held_) {
      holders.push_back(held_[next_held_].second);
    }
    if (!positions.empty() && positions != holders) {
      return At(block, what + " lists " + std::to_string(positions.size()) + " ref block(s), but " +
                           std::to_string(holders.size()) + " hold a ref with that id prefix");
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

  const TableReader& t_;
  bool active_ = false;
  bool sorted_ = false;
  std::vector<uint64_t> ref_blocks_;  // in file order, so ascending
  std::vector<Held> held_;
  size_t next_held_ = 0;
  std::string last_key_;
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

Status VerifyTable(const TableReader& t, VerifyReport* report) {
  ++report->tables;
  if (t.min_update_index() > t.max_update_index()) {
    return Problem(t, "min_update_index is greater than max_update_index");
  }
  ObjIndexCheck objs(t);
  REFTAB_RETURN_IF_ERROR(t.ForEachBlock([&](const BlockView& b) {
    ++report->blocks;
    return objs.OnBlock(b);
  }));
  REFTAB_RETURN_IF_ERROR(objs.Finish());
  REFTAB_RETURN_IF_ERROR(VerifyRefs(t, report));
  return VerifyLogs(t, report);
}

Status VerifyStack(const Stack& stack, VerifyReport* report, Progress* progress) {
  auto snap = stack.snapshot();
  const auto& tables = snap->tables();
  ProgressPhase phase(progress, "Verifying tables", tables.size());
  for (size_t i = 0; i < tables.size(); ++i) {
    phase.Set(i);
    const TableReader& t = *tables[i];
    REFTAB_RETURN_IF_ERROR(VerifyTable(t, report));
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

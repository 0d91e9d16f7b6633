// libFuzzer target: a whole table. The input is the file; it is opened with
// TableReader::OpenBytes and, if that succeeds, read every way a caller can: full ref and
// log scans, ref and log seeks, ReadRef, RefsFor (obj index or scan) and ForEachBlock.
// Keys come from the table's own records and from a fixed set of boundary keys.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "store/table_reader.h"

namespace {

using reftab::LogRecord;
using reftab::ObjectId;
using reftab::RefRecord;
using reftab::TableReader;

// Bounds the work per input; valid tables in the corpus hold far fewer records.
constexpr size_t kMaxRecords = 100000;

// Scans all refs; remembers some names and ids to look up later.
void ScanRefs(const TableReader& t, std::vector<std::string>* names, std::vector<ObjectId>* ids) {
  reftab::TableRefIterator it(&t);
  if (!it.SeekToFirst().ok()) return;
  RefRecord r;
  for (size_t n = 0; n < kMaxRecords && it.Next(&r); ++n) {
    if (n % 16 == 0) names->push_back(r.refname);
    if (n % 16 == 0 && r.value_type != reftab::RefValueType::kDeletion) ids->push_back(r.value);
  }
}

void ScanLogs(const TableReader& t, std::vector<std::string>* names) {
  reftab::TableLogIterator it(&t);
  if (!it.SeekToFirst().ok()) return;
  LogRecord l;
  for (size_t n = 0; n < kMaxRecords && it.Next(&l); ++n) {
    if (n % 16 == 0) names->push_back(l.refname);
  }
}

void SeekAndLookUp(const TableReader& t, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    reftab::TableRefIterator refs(&t);
    RefRecord r;
    if (refs.Seek(name).ok()) {
      for (int i = 0; i < 3 && refs.Next(&r); ++i) {
      }
    }
    bool found = false;
    (void)t.ReadRef(name, &r, &found);
    reftab::TableLogIterator logs(&t);
    LogRecord l;
    if (logs.Seek(name).ok()) {
      for (int i = 0; i < 3 && logs.Next(&l); ++i) {
      }
    }
    if (logs.SeekAt(name, 2).ok()) (void)logs.Next(&l);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto table =
      TableReader::OpenBytes("fuzz.ref", std::string(reinterpret_cast<const char*>(data), size));
  if (!table.ok()) return 0;
  const TableReader& t = **table;
  std::vector<std::string> names = {"", "HEAD", "refs/heads/main", "refs/tags/", "\xff"};
  std::vector<ObjectId> ids;
  ScanRefs(t, &names, &ids);
  ScanLogs(t, &names);
  SeekAndLookUp(t, names);
  ids.push_back(ObjectId{});
  for (const ObjectId& id : ids) {
    std::vector<RefRecord> out;
    (void)t.RefsFor(id, &out);
  }
  (void)t.ForEachBlock([](const reftab::BlockView&) { return reftab::Status::Ok(); });
  return 0;
}

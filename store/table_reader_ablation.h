// Internal, not installed (store/meson.build leaves it out of store_public_headers): the
// switch with which perf/ablate.cc measures what TableReader's lazily built lookup aids (the
// per-table filter behind RefMayExist and the flattened ref index behind LocateRef) bring.
#ifndef REFTAB_STORE_TABLE_READER_ABLATION_H_
#define REFTAB_STORE_TABLE_READER_ABLATION_H_

#include "store/table_reader.h"

namespace reftab::internal {

struct TableReaderAblation {
  // Whether `table` may build its filter and flattened index (default: yes). Answers never
  // depend on it, only speed and memory.
  static void SetLookupAids(const TableReader& table, bool on) { table.SetLookupAids(on); }
};

}  // namespace reftab::internal

#endif  // REFTAB_STORE_TABLE_READER_ABLATION_H_

#include "store/block_dump.h"

#include "format/block_reader.h"

namespace reftab {

Status AppendBlockDump(const TableReader& table, std::string* out) {
  out->append("header:\n  block_size: ").append(std::to_string(table.header().block_size));
  out->push_back('\n');
  char last_type = 0;  // no block yet: the first one names its section
  return table.ForEachBlock([&](const BlockView& b) {
    const char type = char(b.type);
    if (type != last_type) {
      switch (b.type) {
        case BlockType::kRef: out->append("ref:\n"); break;
        case BlockType::kLog: out->append("log:\n"); break;
        case BlockType::kObj: out->append("obj:\n"); break;
        case BlockType::kIndex: out->append("idx:\n"); break;
      }
      last_type = type;
    }
    // git's "length": where the restart table starts, counted from the block's start (for
    // the first block, the file's: its header included).
    out->append("  - length: ").append(std::to_string(b.restart_off)).push_back('\n');
    out->append("    restarts: ").append(std::to_string(b.restart_count)).push_back('\n');
    return Status::Ok();
  });
}

}  // namespace reftab

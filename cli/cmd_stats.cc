// reftab stats [--format=text|json]
// What an operator asks of the selected stack (and a linked worktree's own stack): tables
// and sizes, records by type with tombstones apart, reflog entries, how full each section's
// blocks are, index levels, the obj index, and whether git's auto-compaction is due. The
// numbers come from store/stack_stats.h; this file only prints them. --format=json prints
// JSON Lines: one {"type":"table",...} object per table, then one {"type":"stack",...}.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "cli/commands.h"
#include "cli/jsonl.h"
#include "cli/output.h"
#include "cli/stack_access.h"
#include "store/stack_stats.h"

namespace reftab::cli {
namespace {

double Percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

void Appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Appendf(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out->append(buf, std::min(size_t(n), sizeof buf - 1));
}

void SectionText(const char* what, const SectionStats& s, std::string* out) {
  if (s.blocks == 0 && s.index_blocks == 0) return;
  Appendf(out,
          "  %s: %" PRIu64 " records in %" PRIu64 " blocks, %.1f%% full (%" PRIu64 " of %" PRIu64
          " bytes); index: %d levels, %" PRIu64 " blocks, %" PRIu64 " records\n",
          what, s.records, s.blocks, Percent(s.bytes_used, s.bytes_capacity), s.bytes_used,
          s.bytes_capacity, s.index_levels, s.index_blocks, s.index_records);
}

void TableText(const TableStats& t, std::string* out) {
  Appendf(out,
          "table %s: %" PRIu64 " bytes, version %u, block size %u, update indexes %" PRIu64
          "..%" PRIu64 "\n",
          t.name.c_str(), t.file_size, unsigned(t.version), unsigned(t.block_size),
          t.min_update_index, t.max_update_index);
  Appendf(out,
          "  refs %" PRIu64 " (%" PRIu64 " symrefs), ref tombstones %" PRIu64
          ", reflog entries %" PRIu64 ", reflog tombstones %" PRIu64 "\n",
          t.refs, t.symrefs, t.ref_tombstones, t.log_entries, t.log_tombstones);
  SectionText("ref", t.ref, out);
  SectionText("obj", t.obj, out);
  if (t.obj.blocks) Appendf(out, "  obj index: %u-byte id prefixes\n", unsigned(t.obj_id_len));
  SectionText("log", t.log, out);
}

void StackText(const std::string& label, const StackStats& s, std::string* out) {
  Appendf(out,
          "%s: %zu tables, %" PRIu64 " bytes, %" PRIu64 " live refs, %" PRIu64 " reflog entries\n",
          label.c_str(), s.tables.size(), s.total_bytes, s.live_refs, s.live_reflog_entries);
  if (s.compaction_due) {
    Appendf(out, "auto-compaction: due (tables %zu..%zu, geometric factor %u)\n",
            s.compaction_due->start + 1, s.compaction_due->end, unsigned(s.geometric_factor));
  } else {
    Appendf(out, "auto-compaction: not due (geometric factor %u)\n", unsigned(s.geometric_factor));
  }
  for (const TableStats& t : s.tables) TableText(t, out);
}

void SectionJson(const char* key, const SectionStats& s, std::string* out) {
  Appendf(out,
          ",\"%s\":{\"blocks\":%" PRIu64 ",\"records\":%" PRIu64 ",\"bytes_used\":%" PRIu64
          ",\"bytes_capacity\":%" PRIu64 ",\"file_bytes\":%" PRIu64 ",\"index_blocks\":%" PRIu64
          ",\"index_records\":%" PRIu64 ",\"index_bytes\":%" PRIu64 ",\"index_levels\":%d}",
          key, s.blocks, s.records, s.bytes_used, s.bytes_capacity, s.file_bytes, s.index_blocks,
          s.index_records, s.index_bytes, s.index_levels);
}

void StackJson(const std::string& label, const StackStats& s, std::string* out) {
  for (const TableStats& t : s.tables) {
    out->append("{\"type\":\"table\"");
    AppendJsonBytesField("stack", label, out);
    AppendJsonBytesField("name", t.name, out);
    Appendf(out,
            ",\"file_size\":%" PRIu64
            ",\"version\":%u,\"block_size\":%u"
            ",\"min_update_index\":%" PRIu64 ",\"max_update_index\":%" PRIu64
            ",\"obj_id_len\":%u,\"refs\":%" PRIu64 ",\"symrefs\":%" PRIu64
            ",\"ref_tombstones\":%" PRIu64 ",\"log_entries\":%" PRIu64
            ",\"log_tombstones\":%" PRIu64,
            t.file_size, unsigned(t.version), unsigned(t.block_size), t.min_update_index,
            t.max_update_index, unsigned(t.obj_id_len), t.refs, t.symrefs, t.ref_tombstones,
            t.log_entries, t.log_tombstones);
    SectionJson("ref_section", t.ref, out);
    SectionJson("obj_section", t.obj, out);
    SectionJson("log_section", t.log, out);
    out->append("}\n");
  }
  out->append("{\"type\":\"stack\"");
  AppendJsonBytesField("stack", label, out);
  Appendf(out,
          ",\"tables\":%zu,\"bytes\":%" PRIu64 ",\"live_refs\":%" PRIu64
          ",\"live_reflog_entries\":%" PRIu64 ",\"geometric_factor\":%u,\"compaction_due\":%s",
          s.tables.size(), s.total_bytes, s.live_refs, s.live_reflog_entries,
          unsigned(s.geometric_factor), s.compaction_due ? "true" : "false");
  if (s.compaction_due) {
    Appendf(out, ",\"compaction_first\":%zu,\"compaction_last\":%zu", s.compaction_due->start,
            s.compaction_due->end - 1);
  }
  out->append("}\n");
}

}  // namespace

int CmdStats(const GlobalOptions& g, const Args& args) {
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (TakeValue(args, &i, "--format", &v)) {
      if (v != "json" && v != "text")
        return Usage(kStatsUsage, "unknown format '" + v + "' (text or json)");
      json = v == "json";
    } else {
      return Usage(kStatsUsage, UnknownArgument(args[i], {"--format"}));
    }
  }
  auto opened = OpenStore(g, GitRepoAccess::kReadOnly);
  if (!opened.ok()) return Fail(opened.status());
  Store& store = **opened;
  const std::vector<Stack*> stacks = store.stacks();
  Output out;
  for (Stack* stack : stacks) {
    const std::string label = stack == stacks.front() ? "main" : "worktree";
    StackStats s;
    Status st = ComputeStackStats(*stack, &s);
    if (!st.ok()) return Fail(st);
    if (json) {
      StackJson(label, s, &out.buf());
    } else {
      StackText(label == "main" ? "stack " + stack->dir() : "worktree stack " + stack->dir(), s,
                &out.buf());
    }
    out.MaybeFlush();
  }
  return out.Flush() ? kExitOk : Fail(Status::IoError("writing standard output failed"));
}

}  // namespace reftab::cli

// `reftab help stats` and `reftab stats -h` (cli/commands.h).
const char* const reftab::cli::kStatsUsage =
    "usage: reftab stats [--format=text|json]\n"
    "\n"
    "    --format=json         one JSON object per table, then one for the stack\n"
    "\n";

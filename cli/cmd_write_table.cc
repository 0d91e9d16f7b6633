// reftab write-table [--block-size N] [--restart-interval N] [--no-index-objects] [--unpadded]
//                    [--hash sha1|sha256] [--min-update-index N] [--max-update-index N] OUT.ref
//
// Reads the jsonl of `reftab dump` on standard input and writes one table. The header line's
// values are defaults; flags override them. Records may come in any order: refs are sorted
// by name and logs by (name, newest first). Messages are stored exactly as given, since a
// dump holds the stored bytes. The table is written to a temporary file and renamed into
// place, so a failure never leaves a partial OUT.ref.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "cli/input.h"
#include "cli/jsonl.h"
#include "store/table_writer.h"

namespace reftab::cli {
namespace {

struct Input {
  TableHeader header;
  bool have_header = false;
  std::vector<RefRecord> refs;
  std::vector<LogRecord> logs;
};

Status ReadInput(InputReader& in, std::optional<HashId> hash_flag, Input* input) {
  std::string line;
  uint64_t line_no = 0;
  while (in.Next('\n', &line)) {
    ++line_no;
    if (line.empty()) continue;
    auto where = [&] { return "stdin line " + std::to_string(line_no); };
    auto obj = ParseJsonObject(line);
    if (!obj.ok()) return obj.status().WithContext(where());
    auto kind = KindOf(*obj);
    if (!kind.ok()) return kind.status().WithContext(where());
    size_t hs = HashSize(hash_flag.value_or(input->header.hash_id));
    switch (*kind) {
      case LineKind::kHeader:
        if (input->have_header || !input->refs.empty() || !input->logs.empty()) {
          return Status::InvalidArgument(where() + ": the header must be the first line");
        }
        REFTAB_RETURN_IF_ERROR(HeaderFromJson(*obj, &input->header).WithContext(where()));
        input->have_header = true;
        break;
      case LineKind::kRef:
        input->refs.emplace_back();
        REFTAB_RETURN_IF_ERROR(RefFromJson(*obj, hs, &input->refs.back()).WithContext(where()));
        break;
      case LineKind::kLog:
        input->logs.emplace_back();
        REFTAB_RETURN_IF_ERROR(LogFromJson(*obj, hs, &input->logs.back()).WithContext(where()));
        break;
    }
  }
  if (in.failed()) return Status::IoError("reading standard input failed");
  return Status::Ok();
}

Status SortAndCheck(Input* input) {
  auto& refs = input->refs;
  std::stable_sort(refs.begin(), refs.end(),
                   [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  for (size_t i = 1; i < refs.size(); ++i) {
    if (refs[i].refname == refs[i - 1].refname) {
      return Status::InvalidArgument("ref " + refs[i].refname + " appears twice");
    }
  }
  auto& logs = input->logs;
  std::stable_sort(logs.begin(), logs.end(), [](const LogRecord& a, const LogRecord& b) {
    if (a.refname != b.refname) return a.refname < b.refname;
    return a.update_index > b.update_index;
  });
  for (size_t i = 1; i < logs.size(); ++i) {
    if (logs[i].refname == logs[i - 1].refname &&
        logs[i].update_index == logs[i - 1].update_index) {
      return Status::InvalidArgument("log " + logs[i].refname + " at update index " +
                                     std::to_string(logs[i].update_index) + " appears twice");
    }
  }
  return Status::Ok();
}

}  // namespace

int CmdWriteTable(const GlobalOptions&, const Args& args) {
  WriteOptions opts;
  opts.exact_log_message = true;
  std::optional<uint64_t> block_size, restart_interval, min_ui, max_ui;
  std::optional<HashId> hash;
  std::string out_path;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    uint64_t n;
    if (TakeValue(args, &i, "--block-size", &v)) {
      if (!ParseUint(v, &n)) return Usage(kWriteTableUsage, "--block-size takes a number");
      block_size = n;
    } else if (TakeValue(args, &i, "--restart-interval", &v)) {
      if (!ParseUint(v, &n)) return Usage(kWriteTableUsage, "--restart-interval takes a number");
      restart_interval = n;
    } else if (TakeValue(args, &i, "--min-update-index", &v)) {
      if (!ParseUint(v, &n)) return Usage(kWriteTableUsage, "--min-update-index takes a number");
      min_ui = n;
    } else if (TakeValue(args, &i, "--max-update-index", &v)) {
      if (!ParseUint(v, &n)) return Usage(kWriteTableUsage, "--max-update-index takes a number");
      max_ui = n;
    } else if (TakeValue(args, &i, "--hash", &v)) {
      if (v == "sha1") {
        hash = HashId::kSha1;
      } else if (v == "sha256") {
        hash = HashId::kSha256;
      } else {
        return Usage(kWriteTableUsage, "--hash takes sha1 or sha256");
      }
    } else if (args[i] == "--no-index-objects") {
      opts.index_objects = false;
    } else if (args[i] == "--unpadded") {
      opts.unpadded = true;
    } else if (!args[i].empty() && args[i][0] == '-') {
      return Usage(kWriteTableUsage,
                   UnknownArgument(args[i], {"--block-size", "--restart-interval", "--hash",
                                             "--min-update-index", "--max-update-index"}));
    } else if (out_path.empty()) {
      out_path = args[i];
    } else {
      return Usage(kWriteTableUsage, "more than one output file given");
    }
  }
  if (out_path.empty()) return Usage(kWriteTableUsage, "missing OUT.ref");

  Input input;
  std::ios::sync_with_stdio(false);
  InputReader stdin_reader;
  Status s = ReadInput(stdin_reader, hash, &input);
  if (!s.ok()) return Fail(s);
  s = SortAndCheck(&input);
  if (!s.ok()) return Fail(s);

  opts.hash_id = hash.value_or(input.header.hash_id);
  opts.block_size = uint32_t(
      block_size.value_or(input.have_header ? input.header.block_size : kDefaultBlockSize));
  if (block_size && *block_size > kMaxBlockSize)
    return Usage(kWriteTableUsage, "--block-size too large");
  if (restart_interval && *restart_interval > kMaxRestarts) {
    return Usage(kWriteTableUsage, "--restart-interval too large");
  }
  opts.restart_interval = uint32_t(restart_interval.value_or(kDefaultRestartInterval));
  if (Status v = ValidateWriteOptions(opts); !v.ok()) return Usage(kWriteTableUsage, v.message());

  // Without a header or flags, the limits span the records' update indexes.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& r : input.refs)
    lo = std::min(lo, r.update_index), hi = std::max(hi, r.update_index);
  for (const auto& l : input.logs)
    lo = std::min(lo, l.update_index), hi = std::max(hi, l.update_index);
  if (lo == UINT64_MAX) lo = hi = 1;
  uint64_t min = min_ui.value_or(input.have_header ? input.header.min_update_index : lo);
  uint64_t max = max_ui.value_or(input.have_header ? input.header.max_update_index : hi);

  std::string tmp = out_path + ".tmp." + std::to_string(getpid());
  FileSystem* fs = PosixFileSystem();
  auto file = fs->Create(tmp, /*exclusive=*/true);
  if (!file.ok()) return Fail(file.status());
  TableWriter writer(opts, file->get());
  s = writer.SetLimits(min, max);
  for (size_t i = 0; s.ok() && i < input.refs.size(); ++i) s = writer.AddRef(input.refs[i]);
  for (size_t i = 0; s.ok() && i < input.logs.size(); ++i) s = writer.AddLog(input.logs[i]);
  if (s.ok()) s = writer.Finish();
  if (s.ok()) s = (*file)->Sync();
  if (s.ok()) s = (*file)->Close();
  if (s.ok()) s = fs->Rename(tmp, out_path);
  if (!s.ok()) {
    (void)fs->Remove(tmp);
    return Fail(s.WithContext(out_path));
  }
  return kExitOk;
}

}  // namespace reftab::cli

// `reftab help write-table` and `reftab write-table -h` (cli/commands.h).
const char* const reftab::cli::kWriteTableUsage =
    "usage: reftab write-table [<options>] <out.ref>\n"
    "\n"
    "    --block-size <n>      block size in bytes\n"
    "    --restart-interval <n>\n"
    "                          records between restart points\n"
    "    --no-index-objects    write no object index\n"
    "    --unpadded            do not pad blocks to the block size\n"
    "    --hash sha1|sha256    the object format\n"
    "    --min-update-index <n>\n"
    "    --max-update-index <n>\n"
    "                          the table's update index range\n"
    "\n";

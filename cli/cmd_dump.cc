// reftab dump [--format=jsonl|git] [--blocks] FILE.ref
// reftab --stack DIR dump [--format=jsonl|git]
#include "cli/commands.h"
#include "cli/git_format.h"
#include "cli/jsonl.h"
#include "cli/output.h"
#include "cli/stack_access.h"
#include "store/block_dump.h"
#include "store/table_reader.h"

namespace reftab::cli {
namespace {

enum class DumpFormat { kJsonl, kGit };

Status DumpTableRecords(const TableReader& t, DumpFormat format, Output* out) {
  size_t hs = t.hash_size();
  if (format == DumpFormat::kJsonl) AppendHeaderJson(t.header(), &out->buf());
  TableRefIterator refs(&t);
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord ref;
  while (refs.Next(&ref)) {
    if (format == DumpFormat::kGit) {
      AppendRefGit(ref, hs, &out->buf());
    } else {
      AppendRefJson(ref, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  TableLogIterator logs(&t);
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord log;
  while (logs.Next(&log)) {
    if (format == DumpFormat::kGit) {
      AppendLogGit(log, hs, &out->buf());
    } else {
      AppendLogJson(log, hs, &out->buf());
    }
    out->MaybeFlush();
  }
  return logs.status();
}

}  // namespace

int CmdDump(const GlobalOptions& g, const Args& args) {
  DumpFormat format = DumpFormat::kJsonl;
  bool blocks = false;
  std::string file;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (TakeValue(args, &i, "--format", &v)) {
      if (v == "git") {
        format = DumpFormat::kGit;
      } else if (v == "jsonl") {
        format = DumpFormat::kJsonl;
      } else {
        return Usage(kDumpUsage, "unknown format '" + v + "' (git or jsonl)");
      }
    } else if (args[i] == "--blocks") {
      blocks = true;
    } else if (!args[i].empty() && args[i][0] == '-' && args[i] != "-") {
      return Usage(kDumpUsage, UnknownArgument(args[i], {"--format"}));
    } else if (file.empty()) {
      file = args[i];
    } else {
      return Usage(kDumpUsage, "more than one file given");
    }
  }
  if (blocks && format != DumpFormat::kGit) return Usage(kDumpUsage, "--blocks needs --format=git");
  Output out;
  Status s;
  if (file.empty()) {
    if (blocks) return Usage(kDumpUsage, "--blocks needs a table file");
    auto stack = OpenSelectedStack(g);
    if (!stack.ok()) return Fail(stack.status());
    s = DumpStack(**stack, format == DumpFormat::kGit, &out);
  } else {
    auto table = OpenTableFile(file);
    if (!table.ok()) return Fail(table.status());
    s = blocks ? AppendBlockDump(**table, &out.buf()) : DumpTableRecords(**table, format, &out);
  }
  if (!out.Flush()) return Fail(Status::IoError("writing standard output failed"));
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

}  // namespace reftab::cli

// `reftab help dump` and `reftab dump -h` (cli/commands.h).
const char* const reftab::cli::kDumpUsage =
    "usage: reftab dump [--format=jsonl|git] [--blocks] [<file.ref>]\n"
    "   or: reftab (--stack <dir> | --git-dir <gitdir>) dump [--format=jsonl|git]\n"
    "\n"
    "    --format=jsonl        one JSON object per record (default), bytes kept exactly\n"
    "    --format=git          the text of git's `test-tool dump-reftable`\n"
    "    --blocks              also the block structure (with --format=git and a file)\n"
    "\n";

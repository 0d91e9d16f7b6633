#include "store/verify.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>

namespace reftab {
namespace {

Status Problem(const TableReader& t, const std::string& what) {
  return Status::Corruption(t.name() + ": " + what);
}

Status VerifyRefs(const TableReader& t, VerifyReport* report) {
  TableRefIterator it(&t);
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
  TableLogIterator it(&t);
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
      return Problem(t, "log entry '" + log.refname + "' has update index above the table's maximum");
    }
    last_name = log.refname;
    last_index = log.update_index;
    first = false;
  }
  return it.status();
}

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
  REFTAB_RETURN_IF_ERROR(t.ForEachBlock([&](const BlockView&) {
    ++report->blocks;
    return Status::Ok();
  }));
  REFTAB_RETURN_IF_ERROR(VerifyRefs(t, report));
  return VerifyLogs(t, report);
}

Status VerifyStack(const Stack& stack, VerifyReport* report) {
  auto snap = stack.snapshot();
  const auto& tables = snap->tables();
  for (size_t i = 0; i < tables.size(); ++i) {
    const TableReader& t = *tables[i];
    REFTAB_RETURN_IF_ERROR(VerifyTable(t, report));
    const std::string& name = stack.names()[i];
    if (!FollowsGitNaming(name, t)) {
      report->warnings.push_back(name + ": table name does not match its update index range "
                                        "(git names tables 0x<min>-0x<max>-<random>.ref)");
    }
    if (i > 0 && t.min_update_index() <= tables[i - 1]->max_update_index()) {
      return Problem(t, "update index range starts at " + std::to_string(t.min_update_index()) +
                            ", not after the older table's maximum " +
                            std::to_string(tables[i - 1]->max_update_index()));
    }
  }
  return Status::Ok();
}

}  // namespace reftab

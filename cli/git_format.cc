#include "cli/git_format.h"

#include <cstdio>

#include "format/record.h"

namespace reftab::cli {

void AppendRefGit(const RefRecord& r, size_t hash_size, std::string* out) {
  out->append("ref{").append(r.refname).push_back('(');
  out->append(std::to_string(r.update_index)).push_back(')');
  switch (r.value_type) {
    case RefValueType::kDeletion: out->append(" delete"); break;
    case RefValueType::kVal1:
      out->append(" val 1 ");
      AppendHexId(r.value, hash_size, out);
      break;
    case RefValueType::kVal2:
      out->append(" val 2 ");
      AppendHexId(r.value, hash_size, out);
      out->append("(T ");
      AppendHexId(r.peeled, hash_size, out);
      out->push_back(')');
      break;
    case RefValueType::kSymref: out->append(" => ").append(r.target); break;
  }
  out->append("}\n");
}

void AppendLogGit(const LogRecord& r, size_t hash_size, std::string* out) {
  out->append("log{").append(r.refname).push_back('(');
  out->append(std::to_string(r.update_index)).push_back(')');
  if (r.value_type == LogValueType::kDeletion) {
    out->append(" delete\n");  // git's helper prints no closing brace here
    return;
  }
  char tz[16];
  std::snprintf(tz, sizeof tz, "%04d", int(r.tz_offset));
  out->push_back(' ');
  out->append(r.name).append(" <").append(r.email).append("> ");
  out->append(std::to_string(r.time)).push_back(' ');
  out->append(tz).push_back('\n');
  AppendHexId(r.old_id, hash_size, out);
  out->append(" => ");
  AppendHexId(r.new_id, hash_size, out);
  out->append("\n\n").append(r.message).append("\n}\n");
}

}  // namespace reftab::cli

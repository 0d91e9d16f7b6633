// The non-destructive half of a migration: reading the old storage and writing the new one
// into the temporary directory, with the rules git's migration transaction applies.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "store/git/migrate/files_backend_read.h"
#include "store/git/migrate/files_backend_write.h"
#include "store/git/migrate/migrate_internal.h"
#include "store/git/refs/reflog.h"
#include "store/git/refs/refname.h"
#include "store/git/repo.h"
#include "store/merge_cursor.h"
#include "store/progress.h"
#include "store/random_seed.h"
#include "store/table_writer.h"

namespace reftab::migrate {
namespace {

bool Crud(uint8_t c) {
  return c <= 32 || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' || c == '"' ||
         c == '\\' || c == '\'';
}

// Records what cannot be migrated and fails when that is not allowed; else calls
// drop(names, sorted) to leave those out.
template <class Drop>
Status Settle(std::vector<RefProblem> problems, bool skip, MigrateResult* result, Drop&& drop) {
  if (problems.empty()) return Status::Ok();
  std::vector<std::string> bad;
  for (const RefProblem& p : problems) bad.push_back(p.refname);
  result->not_migrated.insert(result->not_migrated.end(), problems.begin(), problems.end());
  if (!skip) {
    return Status::InvalidArgument(std::to_string(problems.size()) +
                                   " ref(s) cannot be migrated; the repository is unchanged");
  }
  std::sort(bad.begin(), bad.end());
  drop(bad);
  return Status::Ok();
}

// Settle for a vector of items named by `name`.
template <class T>
Status Settle(std::vector<RefProblem> problems, bool skip, std::vector<T>* items,
              std::string T::*name, MigrateResult* result) {
  return Settle(std::move(problems), skip, result, [&](const std::vector<std::string>& bad) {
    std::erase_if(*items,
                  [&](const T& t) { return std::binary_search(bad.begin(), bad.end(), t.*name); });
  });
}

// git's transaction rules for the refs read from the files storage (ReadFilesRefs has
// already reported every name that is not a valid ref name).
std::vector<RefProblem> CheckRefsForReftable(const FilesRefs& refs) {
  std::vector<RefProblem> problems;
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::string_view name = refs.name(i);
    if (IsPseudoRef(name)) {
      problems.push_back({std::string(name), *RefnameRefusal(name, true)});
    } else if (refs.HasNullId(i)) {
      problems.push_back({std::string(name), "has a null object id"});
    }
  }
  return problems;
}

std::vector<RefProblem> CheckReflogsForReftable(const std::vector<FilesReflog>& logs) {
  std::vector<RefProblem> problems;
  for (const FilesReflog& log : logs) {
    if (auto refusal = RefnameRefusal(log.refname, true)) {
      problems.push_back({log.refname, "reflog: " + *refusal});
    }
  }
  return problems;
}

std::string RandomTableName(uint64_t min, uint64_t max) {
  char name[64];
  std::snprintf(name, sizeof name, "0x%012" PRIx64 "-0x%012" PRIx64 "-%08x.ref", min, max,
                unsigned(RandomSeed()));
  return name;
}

// The reflog entries get update indexes 1, 2, ... in the order git's migration visits
// them (reflogs in directory order, each oldest first); the refs all get 1.
uint64_t NumberEntries(std::vector<FilesReflog>* logs, size_t max_message) {
  uint64_t next = 1;
  for (FilesReflog& log : *logs) {
    for (LogRecord& e : log.entries) {
      NormalizeEntry(&e);
      if (e.message.size() > max_message) e.message.resize(max_message);
      e.update_index = next++;
    }
  }
  return next - 1;
}

Status WriteTable(const RepoFacts& repo, const FilesRefs& refs, std::vector<FilesReflog>* logs,
                  const std::string& dir, std::string* list, Progress* progress) {
  WriteOptions wo = repo.write_options;
  wo.hash_id = repo.hash;
  wo.exact_log_message = false;
  const uint64_t entries = NumberEntries(logs, wo.block_size / 2);
  const uint64_t max = std::max<uint64_t>(entries, 1);
  std::stable_sort(logs->begin(), logs->end(), [](const FilesReflog& a, const FilesReflog& b) {
    return a.refname < b.refname;
  });
  const std::string name = RandomTableName(1, max);
  const std::string path = dir + "/" + name;
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                          PosixFileSystem()->Create(path, true));
  BufferedSink sink(std::move(file));
  TableWriter writer(wo, &sink);
  REFTAB_RETURN_IF_ERROR(writer.SetLimits(1, max));
  ProgressPhase phase(progress, "Writing refs", refs.size() + entries);
  RefRecord r;
  for (size_t i = 0; i < refs.size(); ++i) {
    refs.Get(i, &r);
    r.update_index = 1;
    REFTAB_RETURN_IF_ERROR(writer.AddRef(r).WithContext(r.refname));
    phase.Tick();
  }
  for (FilesReflog& log : *logs) {
    for (auto e = log.entries.rbegin(); e != log.entries.rend(); ++e) {
      e->refname = log.refname;
      REFTAB_RETURN_IF_ERROR(writer.AddLog(*e).WithContext(log.refname));
      phase.Tick();
    }
  }
  REFTAB_RETURN_IF_ERROR(writer.Finish());
  if (repo.sync_refs) REFTAB_RETURN_IF_ERROR(sink.Sync());
  REFTAB_RETURN_IF_ERROR(sink.Close());
  if (writer.stats().empty) {
    unlink(path.c_str());  // git adds no empty table to a stack
    list->clear();
    return Status::Ok();
  }
  REFTAB_RETURN_IF_ERROR(PosixFileSystem()->Chmod(path, repo.file_mode));
  *list = name + "\n";
  return Status::Ok();
}

Status MakeDir(const std::string& path, uint32_t mode) {
  if (mkdir(path.c_str(), 0777) != 0) return Status::IoError(path + ": " + std::strerror(errno));
  return PosixFileSystem()->Chmod(path, mode);
}

// One stub file, failing in git's words for the call that failed (git writes them with
// write_file, which dies: `died` tells the caller).
Status WriteStubFile(const std::string& path, std::string_view contents, uint32_t mode,
                     bool* died) {
  auto fail = [&](const char* what) {
    *died = true;
    return Status::IoError(std::string(what) + " '" + path + "'" +
                           (std::string_view(what) == "could not open" ? " for writing" : "") +
                           ": " + std::strerror(errno));
  };
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return fail("could not open");
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      close(fd);
      errno = saved;
      return fail("could not write to");
    }
    done += size_t(n);
  }
  if (close(fd) != 0) return fail("could not close");
  // As git, a mode that cannot be set does not fail the stub.
  (void)PosixFileSystem()->Chmod(path, mode);
  return Status::Ok();
}

// The stubs git leaves for tools that know only the files backend, written first as git
// writes them (when it sets the new storage up, before any ref is read).
Status WriteStubs(const RepoFacts& repo, const std::string& temp, bool* died) {
  REFTAB_RETURN_IF_ERROR(
      WriteStubFile(temp + "/HEAD", "ref: refs/heads/.invalid\n", repo.file_mode, died));
  REFTAB_RETURN_IF_ERROR(MakeDir(temp + "/refs", repo.dir_mode));
  return WriteStubFile(temp + "/refs/heads", "this repository uses the reftable format\n",
                       repo.file_mode, died);
}

// The refs of the reftable storage, as git's migration lists them, streamed into the
// layout (packed ones straight into packed-refs lines).
Status ReadReftableRefs(const Snapshot& snap, FilesLayout* layout, PackedRefsWriter* packed,
                        std::vector<RefProblem>* problems, Progress* progress) {
  ProgressPhase phase(progress, "Reading refs", 0);
  RefMergeCursor it(snap.readers());
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  RefRecord r;
  while (it.Next(&r)) {
    phase.Tick();
    const bool symref = r.value_type == RefValueType::kSymref;
    if (!IsListedRef(r.refname)) {
      problems->push_back({r.refname, "neither under refs/ nor a root ref (git does not list it)"});
    } else if (!IsValidRefname(r.refname, kRefnameAllowOneLevel)) {
      problems->push_back({r.refname, "not a valid ref name"});
    } else if (symref && !IsValidRefname(r.target, kRefnameAllowOneLevel)) {
      problems->push_back({r.refname, "symref target '" + r.target + "' is not a valid ref name"});
    } else if (!symref && IsZeroId(r.value, kMaxHashSize)) {
      problems->push_back({r.refname, "has a null object id"});
    } else {
      REFTAB_RETURN_IF_ERROR(AddRef(layout, packed, r));
    }
  }
  return it.status();
}

Status ReadReftableLogs(const Snapshot& snap, FilesLayout* layout, Progress* progress) {
  ProgressPhase phase(progress, "Reading reflogs", 0);
  LogMergeCursor it(snap.readers());
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  LogRecord l;
  while (it.Next(&l)) {
    phase.Tick();
    // git's reflog readers never see an existence marker, so its migration writes no entry
    // for one (and no file for a reflog that has nothing else).
    if (IsReflogExistenceMarker(l, snap.hash_size())) continue;
    if (layout->reflogs.empty() || layout->reflogs.back().refname != l.refname) {
      layout->reflogs.push_back({l.refname, {}});
    }
    NormalizeEntry(&l);
    layout->reflogs.back().entries.push_back(std::move(l));
  }
  for (FilesReflog& log : layout->reflogs) {
    std::reverse(log.entries.begin(), log.entries.end());  // newest first in a table
  }
  return it.status();
}

}  // namespace

std::string CleanIdentPart(std::string_view s) {
  while (!s.empty() && Crud(uint8_t(s.front()))) s.remove_prefix(1);
  while (!s.empty() && Crud(uint8_t(s.back()))) s.remove_suffix(1);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '\n' && c != '<' && c != '>') out += c;
  }
  return out;
}

std::string NormalizeReflogMessage(std::string_view msg) {
  std::string out;
  out.reserve(msg.size());
  bool was_space = true;
  for (char c : msg) {
    bool space = std::isspace(uint8_t(c)) != 0;
    if (was_space && space) continue;
    was_space = space;
    out += space ? ' ' : c;
  }
  while (!out.empty() && std::isspace(uint8_t(out.back()))) out.pop_back();
  return out;
}

void NormalizeEntry(LogRecord* log) {
  log->name = CleanIdentPart(log->name);
  log->email = CleanIdentPart(log->email);
  log->message = NormalizeReflogMessage(log->message);
}

Status WriteNewFile(const std::string& path, std::string_view contents, uint32_t mode, bool sync) {
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> f, PosixFileSystem()->Create(path, true));
  REFTAB_RETURN_IF_ERROR(f->Append(contents));
  if (sync) REFTAB_RETURN_IF_ERROR(f->Sync());
  REFTAB_RETURN_IF_ERROR(f->Close());
  return PosixFileSystem()->Chmod(path, mode);
}

Status BuildReftable(const RepoFacts& repo, const MigrateOptions& options, const std::string& temp,
                     MigrateResult* result) {
  REFTAB_RETURN_IF_ERROR(MakeDir(temp + "/reftable", repo.dir_mode));
  REFTAB_RETURN_IF_ERROR(WriteStubs(repo, temp, &result->died));
  FilesRefs refs;
  {
    // The files backend reads everything at once: the count appears when it is done.
    ProgressPhase phase(options.progress, "Reading refs", 0);
    REFTAB_RETURN_IF_ERROR(ReadFilesRefs(repo.git_dir, repo.hash_size, &refs));
    phase.Set(refs.size());
  }
  std::vector<RefProblem> problems = std::move(refs.problems);
  for (RefProblem& p : CheckRefsForReftable(refs)) problems.push_back(std::move(p));
  REFTAB_RETURN_IF_ERROR(Settle(std::move(problems), options.skip_unmigratable, result,
                                [&](const std::vector<std::string>& bad) { refs.Drop(bad); }));
  std::vector<FilesReflog> logs;
  if (!options.no_reflog) {
    ProgressPhase phase(options.progress, "Reading reflogs", 0);
    REFTAB_RETURN_IF_ERROR(ReadFilesReflogs(repo.git_dir, repo.hash_size, &logs));
    phase.Set(logs.size());
    REFTAB_RETURN_IF_ERROR(Settle(CheckReflogsForReftable(logs), options.skip_unmigratable, &logs,
                                  &FilesReflog::refname, result));
  }
  std::string list;
  REFTAB_RETURN_IF_ERROR(
      WriteTable(repo, refs, &logs, temp + "/reftable", &list, options.progress));
  REFTAB_RETURN_IF_ERROR(
      WriteNewFile(temp + "/reftable/tables.list", list, repo.file_mode, repo.sync_refs));
  result->refs = refs.size();
  result->reflogs = logs.size();
  for (const FilesReflog& l : logs) result->reflog_entries += l.entries.size();
  return Status::Ok();
}

Status BuildFiles(const RepoFacts& repo, const MigrateOptions& options, const std::string& temp,
                  MigrateResult* result) {
  StackOptions base;
  base.auto_compact = false;
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<GitRepo> git,
                          GitRepo::Open(repo.git_dir, base, GitRepoAccess::kReadOnly));
  std::shared_ptr<const Snapshot> snap = git->main_stack().snapshot();
  FilesLayout layout;
  std::vector<RefProblem> problems;
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<PackedRefsWriter> packed,
                          PackedRefsWriter::Create(temp + "/packed-refs", repo.file_mode,
                                                   repo.hash_size, repo.sync_refs));
  REFTAB_RETURN_IF_ERROR(
      ReadReftableRefs(*snap, &layout, packed.get(), &problems, options.progress));
  REFTAB_RETURN_IF_ERROR(packed->Finish());
  if (!options.no_reflog)
    REFTAB_RETURN_IF_ERROR(ReadReftableLogs(*snap, &layout, options.progress));
  bool folds = false;
  if (options.case_insensitive) {
    folds = *options.case_insensitive;
  } else {
    REFTAB_ASSIGN_OR_RETURN(folds, ProbeCaseInsensitive(temp));
  }
  std::vector<RefProblem> log_names;
  for (RefProblem& p : CheckFilesLayoutNames(layout, folds)) {
    (p.reason.substr(0, 7) == "reflog:" ? log_names : problems).push_back(std::move(p));
  }
  // Everything is reported before failing; packed refs with problems were never added.
  if (!options.skip_unmigratable) {
    std::vector<RefProblem> all = problems;
    all.insert(all.end(), log_names.begin(), log_names.end());
    REFTAB_RETURN_IF_ERROR(Settle(all, false, &layout.loose, &RefRecord::refname, result));
  }
  REFTAB_RETURN_IF_ERROR(Settle(problems, true, &layout.loose, &RefRecord::refname, result));
  REFTAB_RETURN_IF_ERROR(Settle(log_names, true, &layout.reflogs, &FilesReflog::refname, result));
  FilesWriteOptions wo{repo.hash_size, repo.file_mode, repo.dir_mode, repo.sync_refs};
  {
    ProgressPhase phase(options.progress, "Writing refs", 0);
    REFTAB_RETURN_IF_ERROR(WriteFilesLayout(temp, layout, wo));
    phase.Set(layout.loose.size() + layout.reflogs.size());
  }
  result->refs = layout.loose.size() + packed->count();
  result->reflogs = layout.reflogs.size();
  for (const FilesReflog& l : layout.reflogs) result->reflog_entries += l.entries.size();
  return Status::Ok();
}

}  // namespace reftab::migrate

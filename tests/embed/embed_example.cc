// Embedding reftab: open a stack, commit a transaction, look a ref up, list a prefix.
// Built against the installed library (pkg-config reftab) by tests/run_all.sh, and in-tree
// as an ordinary test. Usage: embed_example DIR   (DIR must exist; it becomes a stack)
#include <reftab/store/stack.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  reftab::StackOptions options;  // SHA-1, git's block size, auto-compaction on
  auto stack = reftab::Stack::Open(argv[1], options);
  if (!stack.ok()) {
    std::fprintf(stderr, "%s\n", stack.status().ToString().c_str());
    return 1;
  }

  // One atomic transaction: two branches and a symref, with reflog entries.
  reftab::ObjectId id{};
  if (!reftab::ParseHexId("88751306180ff00d452d6f429b84d058fdf2d98b", 20, &id)) return 1;
  reftab::LogInfo who{"A U Thor", "author@example.com", 1700000000, 200, "embed example\n"};
  reftab::Transaction tx = (*stack)->NewTransaction();
  tx.Update("refs/heads/main", reftab::RefValue::Id(id), reftab::RefValue::Absent(), who);
  tx.Update("refs/heads/topic", reftab::RefValue::Id(id), std::nullopt, who);
  tx.Update("HEAD", reftab::RefValue::Symref("refs/heads/main"));
  if (reftab::Status s = tx.Commit(); !s.ok()) {
    std::fprintf(stderr, "commit: %s\n", s.ToString().c_str());
    return 1;
  }

  // Exact lookup on a snapshot (the fast path: newest table first, no iterator).
  std::shared_ptr<const reftab::Snapshot> snap = (*stack)->snapshot();
  reftab::RefRecord ref;
  bool found = false;
  if (reftab::Status s = snap->ReadRef("refs/heads/main", &ref, &found); !s.ok() || !found) {
    std::fprintf(stderr, "lookup failed\n");
    return 1;
  }
  std::printf("%s %s\n", reftab::HexId(ref.value, snap->hash_size()).c_str(), ref.refname.c_str());

  // Prefix iteration through the merged iterator; deletions hidden.
  reftab::MergedRefIterator it = snap->NewRefIterator();
  it.set_suppress_deletions(true);
  if (!it.Seek("refs/heads/").ok()) return 1;
  while (it.Next(&ref) && ref.refname.rfind("refs/heads/", 0) == 0) {
    std::printf("branch %s\n", ref.refname.c_str());
  }
  return it.status().ok() ? 0 : 1;
}

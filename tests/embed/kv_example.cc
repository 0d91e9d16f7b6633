// The README's key/value store example (store/kv/kv_store.h): put, batch, get, snapshot, iterate.
// Built in-tree as an ordinary test. Usage: kv_example DIR   (DIR/kv becomes the store)
#include <reftab/store/kv/kv_store.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  reftab::KvOptions options;  // fsync per write (kGit), auto-compaction on
  auto kv = reftab::KvStore::Open(std::string(argv[1]) + "/kv", options);
  if (!kv.ok()) {
    std::fprintf(stderr, "%s\n", kv.status().ToString().c_str());
    return 1;
  }
  reftab::Status s = (*kv)->Put("user/1", std::string("Ada\0Lovelace", 12));  // any bytes
  reftab::KvWriteBatch batch;  // applied atomically, as one table
  batch.Put("user/2", "Grace");
  batch.Put("user/3", "Edsger");
  batch.Delete("user/1");
  if (s.ok()) s = (*kv)->Write(batch);
  if (!s.ok()) {
    std::fprintf(stderr, "write: %s\n", s.ToString().c_str());
    return 1;
  }

  std::string value;
  bool found = false;
  s = (*kv)->Get("user/2", &value, &found);  // sees other processes' writes too
  if (!s.ok() || !found || value != "Grace") return 1;

  auto snap = (*kv)->GetSnapshot();  // fixed: later writes do not show
  if (!snap.ok()) return 1;
  reftab::KvIteratorOptions range;
  range.prefix = "user/";
  reftab::KvIterator it = snap->NewIterator(range);
  int n = 0;
  for (s = it.SeekToFirst(); s.ok() && it.Valid(); it.Next(), ++n) {
    std::printf("%.*s = %.*s\n", int(it.key().size()), it.key().data(), int(it.value().size()),
                it.value().data());
  }
  if (!s.ok() || !it.status().ok()) return 1;
  return n == 2 ? 0 : 1;  // user/1 was deleted
}

// Internal, not installed: compresses one log block at a time on a thread of its own, so
// that the table writer's thread can build and compress the next block meanwhile (zlib at
// level 9 is most of the time a large reflog section takes to write).
//
// Every block is its own zlib stream made with git's settings (format/compression.h), so a
// block's bytes do not depend on which thread compressed it: the table is the one a single
// thread writes, byte for byte.
#ifndef REFTAB_STORE_BACKGROUND_DEFLATER_H_
#define REFTAB_STORE_BACKGROUND_DEFLATER_H_

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "format/compression.h"
#include "format/status.h"

namespace reftab {

class BackgroundDeflater {
 public:
  // Starts the thread; nullptr when the machine has a single core (a second thread would
  // only take turns with the first) or no thread can be started: the caller then
  // compresses every block itself.
  static std::unique_ptr<BackgroundDeflater> Start();
  // Lets the block in progress finish, then ends the thread.
  ~BackgroundDeflater();
  BackgroundDeflater(const BackgroundDeflater&) = delete;
  BackgroundDeflater& operator=(const BackgroundDeflater&) = delete;

  // Begins compressing a copy of `block`, whose first `plain` bytes (the block header, and
  // the file header before it in a table's first block) are stored as they are. Only when
  // !busy().
  void Submit(std::string_view block, size_t plain);
  // A block was submitted and not yet waited for (the caller's view; no lock needed).
  bool busy() const { return busy_; }
  // Waits for the submitted block. `*stored` receives its stored form (the plain bytes,
  // then the zlib stream), valid until the next Submit.
  Status Wait(std::string_view* stored);

 private:
  BackgroundDeflater() = default;
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  bool queued_ = false;  // under mu_: a block is waiting for the thread or being compressed
  bool stop_ = false;    // under mu_
  bool busy_ = false;    // the caller's thread only
  // Handed over with queued_: only the thread touches them while it is set.
  std::string in_;
  size_t plain_ = 0;
  std::string out_;
  Status status_;
  Deflater deflater_;
  std::thread thread_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_BACKGROUND_DEFLATER_H_

// Public API: how long store operations (compaction, verification, big transactions, a
// migration) tell their caller how far they are, without the store knowing who listens: the
// CLI draws a line on a terminal (cli/progress.h), a library user may count or ignore.
// Operations take a nullable `Progress*`; nullptr means nobody listens.
#ifndef REFTAB_STORE_PROGRESS_H_
#define REFTAB_STORE_PROGRESS_H_

#include <cstdint>
#include <string_view>

#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class Progress {
 public:
  virtual ~Progress() = default;
  // A new phase named `title` ("Compacting refs") of `total` units; 0 when not known ahead.
  virtual void Start(std::string_view title, uint64_t total) = 0;
  // `done` units so far. Called often (ProgressPhase thins it out to about 200 calls a phase
  // with a known total, one per 256 units without): a listener throttles itself.
  virtual void Update(uint64_t done) = 0;
  // The phase ended after Update's last `done`.
  virtual void Stop() = 0;
};

// One phase of a (possibly absent) listener: Start on construction, Stop on destruction, so
// an early return still ends the phase. Tick and Set cost a compare in hot loops: the
// listener's (virtual) Update is called only every `stride_` units and once more at the end.
class ProgressPhase {
 public:
  ProgressPhase(Progress* p, std::string_view title, uint64_t total)
      : p_(p),
        stride_(total >= 400 ? total / 200
                : total > 0  ? 1
                             : 256) {
    if (p_) p_->Start(title, total);
  }
  ~ProgressPhase() {
    if (!p_) return;
    if (reported_ != done_) p_->Update(done_);
    p_->Stop();
  }
  ProgressPhase(const ProgressPhase&) = delete;
  ProgressPhase& operator=(const ProgressPhase&) = delete;
  // Counts one more unit.
  void Tick() { Set(done_ + 1); }
  void Set(uint64_t done) {
    done_ = done;
    if (p_ && (done_ - reported_ >= stride_ || done_ < reported_)) {
      reported_ = done_;
      p_->Update(done_);
    }
  }

 private:
  Progress* p_;
  uint64_t stride_;
  uint64_t done_ = 0;
  uint64_t reported_ = 0;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_PROGRESS_H_

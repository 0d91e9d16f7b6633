// The progress line of long commands, as git draws it on stderr:
//   "Compacting refs:  45% (450/1000)\r" ... "Compacting refs: 100% (1000/1000), done.\n"
// ("Title: 450" while the total is not known). It is drawn only when stderr is a terminal
// of the foreground process, unless --progress forces it (git's rule); --no-progress
// silences it. Like git it waits GIT_PROGRESS_DELAY seconds (default 2) before the first
// line, so quick operations print nothing, and redraws when the percentage changes or once a
// second. Store operations see it as a store/progress.h listener.
#ifndef REFTAB_CLI_PROGRESS_H_
#define REFTAB_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/git_options.h"
#include "store/progress.h"

namespace reftab::cli {

enum class ProgressFlag { kAuto, kOn, kOff };

// Takes "--progress" or "--no-progress"; false for any other argument.
bool TakeProgressFlag(const std::string& arg, ProgressFlag* flag);
// The same for git's option parser: --[no-]progress, hidden from the usage (reftab's own
// where git draws no progress), setting *flag.
GitOption ProgressOption(ProgressFlag* flag);

class TerminalProgress : public Progress {
 public:
  explicit TerminalProgress(ProgressFlag flag, FILE* out = stderr);
  // The listener to hand to the store: this, or nullptr when nothing is to be drawn.
  Progress* get() { return enabled_ ? this : nullptr; }

  void Start(std::string_view title, uint64_t total) override;
  void Update(uint64_t done) override;
  void Stop() override;

 private:
  using Clock = std::chrono::steady_clock;
  void Draw(uint64_t done, bool timer, const char* end);
  bool InForeground() const;

  FILE* out_;
  bool enabled_;
  Clock::duration delay_;
  std::string title_;
  uint64_t total_ = 0;
  uint64_t done_ = 0;
  bool running_ = false;
  bool shown_ = false;  // a line was drawn in this phase
  unsigned last_percent_ = 101;
  size_t last_len_ = 0;  // length of the counters last drawn, to blank what is left
  Clock::time_point start_, last_draw_;
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_PROGRESS_H_

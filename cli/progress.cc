#include "cli/progress.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdlib>

namespace reftab::cli {
namespace {

constexpr std::chrono::seconds kRedrawEvery{1};

// git's GIT_PROGRESS_DELAY: whole seconds before the first line.
std::chrono::seconds DelayFromEnvironment() {
  const char* v = std::getenv("GIT_PROGRESS_DELAY");
  if (!v || !*v) return std::chrono::seconds(2);
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return std::chrono::seconds(*end || n < 0 ? 2 : n);
}

}  // namespace

bool TakeProgressFlag(const std::string& arg, ProgressFlag* flag) {
  if (arg == "--progress") {
    *flag = ProgressFlag::kOn;
  } else if (arg == "--no-progress") {
    *flag = ProgressFlag::kOff;
  } else {
    return false;
  }
  return true;
}

GitOption ProgressOption(ProgressFlag* flag) {
  GitOption o;
  o.long_name = "progress";
  o.hidden = true;
  o.set = [flag](bool unset, std::optional<std::string_view>) {
    *flag = unset ? ProgressFlag::kOff : ProgressFlag::kOn;
    return std::string();
  };
  return o;
}

TerminalProgress::TerminalProgress(ProgressFlag flag, FILE* out)
    : out_(out), delay_(DelayFromEnvironment()) {
  enabled_ = flag == ProgressFlag::kOn || (flag == ProgressFlag::kAuto && isatty(fileno(out)));
}

// A background job keeps quiet on the terminal but still prints its final line (git's rule).
bool TerminalProgress::InForeground() const {
  pid_t group = tcgetpgrp(fileno(out_));
  return group < 0 || group == getpgid(0);
}

void TerminalProgress::Start(std::string_view title, uint64_t total) {
  if (running_) Stop();
  title_ = title;
  total_ = total;
  done_ = 0;
  running_ = true;
  shown_ = false;
  last_percent_ = 101;
  last_len_ = 0;
  start_ = last_draw_ = Clock::now();
  Draw(0, false, nullptr);
}

void TerminalProgress::Update(uint64_t done) {
  if (!running_) return;
  done_ = done;
  Clock::time_point now = Clock::now();
  Draw(done, now - last_draw_ >= kRedrawEvery, nullptr);
}

void TerminalProgress::Stop() {
  if (!running_) return;
  // The final line only if the phase lasted long enough to show one.
  if (shown_ || Clock::now() - start_ >= delay_) Draw(done_, true, ", done.\n");
  running_ = false;
}

// `timer`: a second has passed since the last line. `end`: the phase's last line ends so.
void TerminalProgress::Draw(uint64_t done, bool timer, const char* end) {
  Clock::time_point now = Clock::now();
  if (!shown_ && now - start_ < delay_ && !end) return;
  char counters[64];
  if (total_ > 0) {
    unsigned percent = unsigned(done * 100 / total_);
    if (percent == last_percent_ && !timer) return;
    last_percent_ = percent;
    std::snprintf(counters, sizeof counters, "%3u%% (%" PRIu64 "/%" PRIu64 ")", percent, done,
                  total_);
  } else {
    if (!timer && !end) return;
    std::snprintf(counters, sizeof counters, "%" PRIu64, done);
  }
  size_t len = std::char_traits<char>::length(counters);
  if (!InForeground() && !end) return;
  int blank = len < last_len_ ? int(last_len_ - len + 1) : 0;
  std::fprintf(out_, "%s: %s%*s", title_.c_str(), counters, blank, end ? end : "\r");
  std::fflush(out_);
  last_len_ = len;
  last_draw_ = now;
  shown_ = true;
}

}  // namespace reftab::cli

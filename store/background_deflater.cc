#include "store/background_deflater.h"

#include <system_error>

namespace reftab {

std::unique_ptr<BackgroundDeflater> BackgroundDeflater::Start() {
  if (std::thread::hardware_concurrency() < 2) return nullptr;
  std::unique_ptr<BackgroundDeflater> d(new BackgroundDeflater());
  // std::thread reports a failure to start (no memory, a thread limit) only by throwing.
  try {
    d->thread_ = std::thread([p = d.get()] { p->Run(); });
  } catch (const std::system_error&) {
    return nullptr;
  }
  return d;
}

BackgroundDeflater::~BackgroundDeflater() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundDeflater::Submit(std::string_view block, size_t plain) {
  in_.assign(block.data(), block.size());
  plain_ = plain;
  busy_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued_ = true;
  }
  cv_.notify_all();
}

Status BackgroundDeflater::Wait(std::string_view* stored) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !queued_; });
  }
  busy_ = false;
  *stored = out_;
  return status_;
}

void BackgroundDeflater::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return queued_ || stop_; });
    if (!queued_) return;  // stopped, nothing left
    lock.unlock();
    out_.assign(in_.data(), plain_);
    Status s = deflater_.Compress(reinterpret_cast<const uint8_t*>(in_.data()) + plain_,
                                  in_.size() - plain_, &out_);
    lock.lock();
    status_ = s;
    queued_ = false;
    cv_.notify_all();
  }
}

}  // namespace reftab

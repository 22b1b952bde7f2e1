// BatchQueue: serialized capture messages on their way from the capture thread (producer) to
// the network thread (consumer), with the agent's capture memory bound.
//
// `memory` counts every queued byte until ENet frees it (the network thread passes it to
// SendOwned as release_on_free), plus the encoder's fixed buffers (their size comes with each
// Push, up or down), so memory.unacked() is the capture's extra memory and memory.peak() its
// high-water mark.
// Push waits while adding a message and the buffers' growth since the last Push would exceed
// `limit` (unless no message is held at all, so one always fits); the network thread calls
// Wake() after ENet released bytes. Cancel() makes a waiting or later Push return false at once.
//
// Once the game runs again before the walk is over (Resume(): a snapshot walk, heap_walker.h
// WorldResumed), Push also waits while the messages held (queued or inside ENet, the account
// minus the encoder's buffers) would exceed `resumed_limit` (which the producer may lower, e.g.
// to a share of a small heap: LowerResumedLimit): the walk, not the game, waits for
// the network then, so a host slower than the walk costs time instead of memory. A walk in the
// stopped world keeps `limit` alone (buffered mode: the batches wait for the resume).
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "xrpm/protocol/enet_io.h"

namespace xrpm {
namespace agent {

class BatchQueue {
 public:
  BatchQueue(size_t limit, protocol::SendAccounting* memory, size_t resumed_limit = SIZE_MAX)
      : limit_(limit), memory_(memory), resumed_limit_(resumed_limit) {}
  ~BatchQueue() { Drain(); }

  // Producer. Queues `bytes` once the bound has room for it and for the encoder's buffers at
  // `fixed_bytes` (their size now: a growth is charged, a shrink given back; kBuffersUnchanged
  // leaves the charge as it is), and charges both. Adds *stalled_us for time spent waiting on
  // the bound. False if cancelled (nothing charged).
  static constexpr size_t kBuffersUnchanged = SIZE_MAX;
  bool Push(std::string bytes, size_t fixed_bytes, uint64_t* stalled_us);
  // Producer: the game runs again; from now on `resumed_limit` bounds the messages held.
  void Resume();
  // Producer: lowers `resumed_limit` to `limit` (a larger value leaves it as it is).
  void LowerResumedLimit(size_t limit);
  // Producer: no more messages.
  void Close();
  // Producer, when the encoder is gone: releases its buffers' charge.
  void ReleaseFixed();

  // Consumer. Non-blocking; false when nothing is queued.
  bool Pop(std::string* out);
  bool closed_and_empty() const;
  void Wake() {
    { std::lock_guard<std::mutex> lock(mu_); }  // orders the release before a waiter's check
    cv_.notify_all();
  }

  // Either side: stop the producer and drop whatever is queued.
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  size_t limit() const { return limit_; }
  size_t resumed_limit() const;
  // High-water marks of the messages held (queued or inside ENet, without the encoder's
  // buffers) and of the buffers' charge; their sum bounds memory->peak().
  size_t messages_peak() const;
  size_t buffers_peak() const;
  // How many times Push has waited for room (a test holds the consumer until it does).
  uint64_t waits() const;

 private:
  void Drain();

  const size_t limit_;
  protocol::SendAccounting* memory_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> q_;
  bool closed_ = false;
  std::atomic<bool> cancelled_{false};
  // Guarded by mu_:
  size_t fixed_ = 0;  // the encoder's buffers charged to memory_
  bool resumed_ = false;
  size_t resumed_limit_;
  size_t messages_peak_ = 0, fixed_peak_ = 0;
  uint64_t waits_ = 0;
};

}  // namespace agent
}  // namespace xrpm

#include "xrpm/app/worker.h"

#include <exception>

namespace xrpm::app {

bool TaskContext::cancelled() const {
  return worker_->cancel_running_.load();
}

const std::atomic<bool>* TaskContext::cancel_flag() const {
  return &worker_->cancel_running_;
}

void TaskContext::SetPhase(std::string phase, uint64_t total) {
  {
    std::lock_guard lk(worker_->mu_);
    worker_->status_.phase = std::move(phase);
    worker_->status_.done = 0;
    worker_->status_.total = total;
  }
  worker_->Wake();
}

void TaskContext::SetProgress(uint64_t done) {
  std::lock_guard lk(worker_->mu_);
  worker_->status_.done = done;
  // No wake here: progress can move millions of times; the GUI polls while busy.
}

Worker::Worker(std::function<void()> wake) : wake_(std::move(wake)), thread_([this] { Loop(); }) {}

Worker::~Worker() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
    queue_.clear();
    cancel_running_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

uint64_t Worker::Post(std::string label, Task task, ErrorHandler on_error) {
  uint64_t id;
  {
    std::lock_guard lk(mu_);
    id = next_id_++;
    queue_.push_back(Job{id, std::move(label), std::move(task), std::move(on_error)});
  }
  cv_.notify_one();
  Wake();
  return id;
}

void Worker::CancelAll() {
  {
    std::lock_guard lk(mu_);
    queue_.clear();
    if (running_id_) cancel_running_ = true;
  }
  done_cv_.notify_all();
  Wake();
}

size_t Worker::RunCompletions() {
  size_t n = 0;
  for (;;) {
    Completion c;
    {
      std::lock_guard lk(mu_);
      if (completions_.empty()) break;
      c = std::move(completions_.front());
      completions_.pop_front();
    }
    if (c) c();
    ++n;
  }
  return n;
}

TaskStatus Worker::Status() const {
  std::lock_guard lk(mu_);
  TaskStatus s = status_;
  s.busy = running_id_ != 0;
  s.queued = queue_.size();
  s.cancel_requested = cancel_running_;
  if (s.busy)
    s.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return s;
}

bool Worker::Idle() const {
  std::lock_guard lk(mu_);
  return running_id_ == 0 && queue_.empty() && completions_.empty();
}

bool Worker::WaitTasksDone(std::chrono::milliseconds timeout) const {
  std::unique_lock lk(mu_);
  return done_cv_.wait_for(lk, timeout, [&] { return running_id_ == 0 && queue_.empty(); });
}

void Worker::Loop() {
  std::unique_lock lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    running_id_ = job.id;
    cancel_running_ = false;
    status_ = TaskStatus{};
    status_.label = job.label;
    started_ = std::chrono::steady_clock::now();
    lk.unlock();
    Wake();

    Completion done;
    try {
      TaskContext ctx(this);
      done = job.task(ctx);
    } catch (const std::exception& e) {
      if (job.on_error) done = [h = std::move(job.on_error), m = std::string(e.what())] { h(m); };
    } catch (...) {
      if (job.on_error) done = [h = std::move(job.on_error)] { h("unknown error"); };
    }

    lk.lock();
    if (done) completions_.push_back(std::move(done));
    running_id_ = 0;
    cancel_running_ = false;
    status_ = TaskStatus{};
    done_cv_.notify_all();
    lk.unlock();
    Wake();
    lk.lock();
  }
}

}  // namespace xrpm::app

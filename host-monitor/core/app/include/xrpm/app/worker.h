// Worker: one background thread that runs long tasks (load, analysis, save, diff) in order, so
// the UI thread never blocks. A task runs on the worker and returns a Completion; completions
// run later on the UI thread, inside RunCompletions(), so only the UI thread ever mutates
// session state. Tasks report progress (phase, done/total) and poll for cancellation through
// their TaskContext. A task that throws gets its on_error called (on the UI thread) with the
// exception text.
//
// `wake` is called (from the worker thread) whenever a completion is ready or progress moves,
// so a GUI sleeping in glfwWaitEventsTimeout can redraw; it must be thread-safe
// (glfwPostEmptyEvent is).
//
// Thread-safety: Post, Cancel*, Status, Idle and WaitIdle may be called from any thread;
// RunCompletions must be called from one thread only (the UI thread).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace xrpm::app {

class TaskContext;
using Completion = std::function<void()>;
using Task = std::function<Completion(TaskContext&)>;
using ErrorHandler = std::function<void(const std::string& message)>;

// What the worker is doing, for a progress bar.
struct TaskStatus {
  bool busy = false;     // a task is running
  std::string label;     // "Opening heap.gclog"
  std::string phase;     // "Reading", "Dominator tree"
  uint64_t done = 0;     // progress within the phase (units of the task's choosing)
  uint64_t total = 0;    // 0: indeterminate
  double elapsed_s = 0;  // since the task started
  size_t queued = 0;     // tasks waiting behind it
  bool cancel_requested = false;

  float fraction() const { return total ? static_cast<float>(double(done) / double(total)) : -1.f; }
};

class Worker;

// Handed to a running task: progress reporting and cancellation.
class TaskContext {
 public:
  bool cancelled() const;
  // The flag behind cancelled(), for engines that poll an atomic (Progress).
  const std::atomic<bool>* cancel_flag() const;
  void SetPhase(std::string phase, uint64_t total = 0);
  void SetProgress(uint64_t done);

 private:
  friend class Worker;
  explicit TaskContext(Worker* w) : worker_(w) {}
  Worker* worker_;
};

class Worker {
 public:
  explicit Worker(std::function<void()> wake = {});
  ~Worker();  // cancels the running task, drops queued ones and joins
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Queues a task; returns its id. on_error runs on the UI thread if the task throws.
  uint64_t Post(std::string label, Task task, ErrorHandler on_error = {});
  // Requests cancellation of the running task (cooperative) and drops the queued ones.
  void CancelAll();
  // UI thread: runs the completions of finished tasks, in order. Returns how many ran.
  size_t RunCompletions();

  TaskStatus Status() const;
  // No task queued or running and no completion waiting.
  bool Idle() const;
  // Blocks until no task is queued or running (completions may still wait for
  // RunCompletions). For scripts and tests; returns false on timeout.
  bool WaitTasksDone(std::chrono::milliseconds timeout) const;

 private:
  friend class TaskContext;
  struct Job {
    uint64_t id;
    std::string label;
    Task task;
    ErrorHandler on_error;
  };
  void Loop();
  void Wake() const {
    if (wake_) wake_();
  }

  std::function<void()> wake_;
  mutable std::mutex mu_;
  std::condition_variable cv_;               // new job or stop
  mutable std::condition_variable done_cv_;  // a job finished
  std::deque<Job> queue_;
  std::deque<Completion> completions_;
  uint64_t next_id_ = 1;
  uint64_t running_id_ = 0;                  // 0: none
  std::atomic<bool> cancel_running_{false};  // also set when the worker stops
  bool stop_ = false;
  TaskStatus status_;
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;  // last: starts after every member above is initialised
};

}  // namespace xrpm::app

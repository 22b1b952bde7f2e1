// ManagedThreads: the runtime's managed threads, for reading each one's thread-static fields
// inside a capture's collection (static_roots.h) and naming the thread a root is on.
//
// The runtime lists its threads only outside collections (EnumThreads takes the thread store
// lock, which a collection holds), so Refresh takes the list on the capture thread before the
// collection, with each thread's operating system id. A thread that ends between Refresh and
// the collection must not be asked about (its ThreadID is freed): the thread events
// (kMonitorThreads) report each end (OnDestroyed), which marks it gone. Names come from the
// same events (OnNameChanged: a name set before an attach is not known). A thread started
// after Refresh is not in the list until the next capture.
//
// Memory: O(threads) for the list and the names; nothing per object.
//
// Thread-safety: every member takes the one mutex; the callbacks come from any runtime thread,
// Refresh and Label from the capture thread, ForEachLive from the collection's thread (the
// runtime never suspends a thread inside the profiler's own code, so a thread in OnDestroyed
// always finishes it and the collection never waits on the mutex for long).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "corprof_abi.h"

namespace xrpm {
namespace dotnet {

class ManagedThreads {
 public:
  struct Thread {
    cor::ThreadID id = 0;
    uint32_t os_id = 0;  // 0: not known
    std::string name;    // "" when never named
    bool live = true;    // false once it ended (its id must not be used)
  };

  explicit ManagedThreads(cor::ICorProfilerInfo10* info) : info_(info) {}
  ManagedThreads(const ManagedThreads&) = delete;
  ManagedThreads& operator=(const ManagedThreads&) = delete;

  // The runtime's events.
  void OnDestroyed(cor::ThreadID thread);
  void OnNameChanged(cor::ThreadID thread, const cor::WCHAR* name, cor::ULONG length);

  // Takes the runtime's thread list again (outside any collection); false when the runtime
  // refused (the last list stays, its ended threads marked).
  bool Refresh();
  // Calls f(index, id) for each listed thread still running, under the mutex.
  template <typename F>
  void ForEachLive(F&& f) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < threads_.size(); ++i)
      if (threads_[i].live) f(static_cast<uint32_t>(i), threads_[i].id);
  }
  // "thread 4242", `thread 4242 "Worker"` or "main thread 4200" (the process's first thread,
  // which runs Main) for the thread at `index` of the last list.
  std::string Label(uint32_t index) const;
  size_t size() const;

 private:
  cor::ICorProfilerInfo10* const info_;
  mutable std::mutex mu_;
  std::vector<Thread> threads_;
  std::unordered_map<cor::ThreadID, std::string> names_;  // from OnNameChanged, running threads
};

}  // namespace dotnet
}  // namespace xrpm

// EventLog: a lock-free multi-producer log of runtime events (class loaded, root range
// registered, GC handle created, ...) that one consumer drains in order.
//
// Why lock-free: Mono may suspend a thread anywhere (preemptive suspend) while it is inside a
// profiler callback. If that callback held a lock that the capture needs while the world is
// stopped, the capture would wait for a thread that only resumes after the capture: a
// deadlock. So producers only allocate a node and push it with one compare-and-swap; the
// indexed tables are built by the consumer, which is always one of the module's own threads
// (never suspended by Mono).
//
// Algorithm: a Treiber stack; Drain exchanges the head with null (O(1)) and reverses the
// detached list (O(n)) so events are replayed in the order their pushes took effect.
// Memory: one node per event until the next drain (the module drains every 100 ms).
//
// Thread-safety: Push from any thread; Drain from one consumer at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <new>
#include <string>

namespace xrpm {
namespace mono {

enum class EventKind : uint8_t {
  kClassLoaded,      // a = MonoClass*, name
  kRootRegister,     // a = start, b = size, c = MonoGCRootSource, d = key
  kRootUnregister,   // a = start
  kHandleCreated,    // a = handle, b = MonoGCHandleType
  kHandleDeleted,    // a = handle
  kDomainLoaded,     // a = MonoDomain*
  kDomainName,       // a = MonoDomain*, name (its friendly name)
  kDomainUnloading,  // a = MonoDomain*
};

struct Event {
  Event* next = nullptr;
  EventKind kind;
  uintptr_t a = 0, b = 0, c = 0, d = 0;
  std::string name;
};

class EventLog {
 public:
  EventLog() = default;
  ~EventLog() { Free(Detach()); }
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // Never throws: an event that cannot be allocated is dropped (and counted).
  void Push(EventKind kind, uintptr_t a, uintptr_t b = 0, uintptr_t c = 0, uintptr_t d = 0,
            const char* name = nullptr) noexcept {
    Event* e = new (std::nothrow) Event;
    if (!e) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    e->kind = kind;
    e->a = a;
    e->b = b;
    e->c = c;
    e->d = d;
    if (name) {
      try {
        e->name = name;
      } catch (...) {  // bad_alloc: keep the event, without its name
      }
    }
    e->next = head_.load(std::memory_order_relaxed);
    while (!head_.compare_exchange_weak(e->next, e, std::memory_order_release,
                                        std::memory_order_relaxed)) {
    }
  }

  // Calls fn(const Event&) for every event pushed since the last drain, oldest first.
  template <class Fn>
  size_t Drain(Fn&& fn) {
    Event* list = Detach();
    Event* reversed = nullptr;
    while (list) {
      Event* next = list->next;
      list->next = reversed;
      reversed = list;
      list = next;
    }
    size_t n = 0;
    for (Event* e = reversed; e; e = e->next, ++n) fn(*e);
    Free(reversed);
    return n;
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  Event* Detach() { return head_.exchange(nullptr, std::memory_order_acquire); }
  static void Free(Event* e) {
    while (e) {
      Event* next = e->next;
      delete e;
      e = next;
    }
  }

  std::atomic<Event*> head_{nullptr};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace mono
}  // namespace xrpm

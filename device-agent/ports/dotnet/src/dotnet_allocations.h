// DotnetAllocations: the allocations of a program under `xrpm-dotnet --allocations`, by one of
// two routes (AllocationRoute), chosen at start-up:
//
// kSampled (the default on .NET 10 and later): the runtime's own randomized allocation sampling
// (allocation_sampled_event.h), through an in-process EventPipe session the profiler starts
// (ICorProfilerInfo12::EventPipeStartSession: Microsoft-Windows-DotNETRuntime, keyword
// AllocationSamplingKeyword, informational) whose AllocationSampled events arrive in
// EventPipeEventDelivered on the allocating thread. The stack: a profiler's session (a
// synchronous one) gets the instruction pointers only of events whose writer walked the stack
// itself, which the runtime's own events do not (ep-session.c passes the writer's stack; the
// walk happens only when buffering for the other session kinds), so each sample's stack is
// walked with DoStackSnapshot on the current thread, as on the exact route (instruction pointers,
// when an event carries them, are mapped with GetFunctionFromIP instead). Allocation stays on the
// runtime's fast path: only about one allocation per 100 KiB reaches the profiler. The interval is
// the runtime's, fixed at 102,400 bytes whatever a subscription asks (SampleBytes tells the agent,
// which tells the host). Frame rows carry no exact figure on this route: a sample on the game
// thread adds its weight (s / p(s) bytes, 1 / p(s) objects, xrpm/protocol/sampling.h) to the
// frame in progress, an unbiased but coarse per-frame estimate (0 in most frames under 100 KiB).
//
// kExact (`--allocations=exact`, and the fallback on runtimes without ICorProfilerInfo12 or the
// event): the profiler's ObjectAllocated callback (COR_PRF_ENABLE_OBJECT_ALLOCATED at start-up,
// then COR_PRF_MONITOR_OBJECT_ALLOCATED: the runtime then allocates every object through its slow
// path and calls the profiler on the allocating thread, before the constructor runs). Start-up
// only: the runtime accepts the enabling bit in Initialize alone, never after an attach. Per
// allocation (OnAllocated): the object's size (GetObjectSize2); on the game thread (the frame
// method's, frame_hook.h) the bytes and the object are counted in the frame in progress
// (dotnet_frames.h: exact per-frame figures); on every thread the thread's AllocationSampler
// (xrpm/agent/sample_interval.h, the interval in force: the frames subscription's, else the
// start-up --sample-bytes) decides whether it is sampled, one sample per N bytes on average,
// unbiased by size; its stack from ICorProfilerInfo2::DoStackSnapshot on the current thread.
//
// Both need the frame method's hook (not --no-frame): the frames subscription that receives the
// samples is the hook's (dotnet_frames.h). A sample is kept by the allocation origins
// (dotnet_origins.h, unless turned off: its object, class, frame and interned stack) and handed
// on while a frames subscription listens: its class (named as captures name classes,
// type_names.h) and up to agent::kMaxSampleStackDepth managed frames, innermost first, each
// method named "Namespace.Class.Method" (type_names.h). The agent's FrameTracker interns them
// (frame_events.h) for `xrpm allocations --by type|method|stack` and the monitor's Allocations
// view. The sample's scope tag (AllocationSample::tag_key/tag_name) is the allocating thread's
// innermost open Xrpm.Profiler.Scope (dotnet_game_api.h), as on Mono.
//
// Cost and bounds: exact: an unsampled allocation costs the callback, GetObjectSize2, a thread
// check and one compare and subtract. Sampled: nothing per allocation in the profiler. A sample
// costs the stack walk (O(depth)) and two lookups under a mutex. Names are computed once per
// method and class, outside the mutex (the runtime's metadata calls may block on the runtime's
// own locks; a thread waiting for the mutex must never wait for one): the caches hold at most
// kMaxAllocNames entries each (protocol::kMaxFrameDefs, what the agent's tables keep anyway);
// past that a new method or class is sent under a fixed placeholder name, with no allocation.
// Nothing else allocates in the callbacks.
//
// Thread-safety: OnAllocated and OnEventPipeEvent from any managed thread (the runtime's
// callbacks); the name caches under names_mu_, never held across a runtime call; the sampler per
// thread (thread_local); StartSession once, from the profiler's start.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "allocation_sampled_event.h"
#include "corprof_abi.h"
#include "dotnet_origins.h"
#include "frame_hook.h"
#include "xrpm/agent/sample_interval.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace dotnet {

// Most method and class names cached for samples (each).
constexpr size_t kMaxAllocNames = protocol::kMaxFrameDefs;

enum class AllocationRoute : uint8_t {
  kSampled,  // the runtime's AllocationSampled events (EventPipe, .NET 10 and later)
  kExact,    // ObjectAllocated for every allocation (start-up only)
};

class DotnetAllocations {
 public:
  // The event mask bits (low word) the exact route ORs into every SetEventMask2 of the process
  // from Initialize on: the enabling bit is immutable, so a later mask without it is refused.
  static constexpr cor::DWORD kExactMaskLow =
      cor::kEnableObjectAllocated | cor::kMonitorObjectAllocated | cor::kEnableStackSnapshot;

  // `startup_sample_bytes`: the exact route's interval while no frames subscription listens.
  // `info12`: the sampled route's session interface (null on the exact route).
  DotnetAllocations(cor::ICorProfilerInfo10* info, cor::ICorProfilerInfo12* info12,
                    FrameHook* frame, uint32_t startup_sample_bytes, AllocationRoute route)
      : info_(info),
        info12_(info12),
        frame_(frame),
        route_(route),
        interval_(startup_sample_bytes) {}
  DotnetAllocations(const DotnetAllocations&) = delete;
  DotnetAllocations& operator=(const DotnetAllocations&) = delete;

  AllocationRoute route() const { return route_; }
  // The mask bits this route needs in every SetEventMask2 (low and high words).
  cor::DWORD mask_low() const {
    return route_ == AllocationRoute::kExact ? kExactMaskLow : cor::kEnableStackSnapshot;
  }
  cor::DWORD mask_high() const {
    return route_ == AllocationRoute::kSampled ? cor::kHighMonitorEventPipe : 0;
  }
  // The sampled route's EventPipe session, once the mask holds mask_high(). "" or why not.
  std::string StartSession();

  // Where sampled objects' origins are kept (null: none). Before the first allocation.
  void set_origins(DotnetOrigins* origins) { origins_ = origins; }

  // A frames subscription with `sample_bytes` began (0: it ended).
  void SetSubscription(uint32_t sample_bytes) { interval_.SetSubscription(sample_bytes); }
  // The interval the samples follow when a subscription asks for `requested`.
  uint32_t SampleBytes(uint32_t requested) const {
    return route_ == AllocationRoute::kSampled ? kRuntimeSampleBytes : requested;
  }
  uint32_t mean_bytes() const { return SampleBytes(interval_.mean_bytes()); }

  // The runtime's ObjectAllocated, on the allocating thread (exact route).
  void OnAllocated(cor::ObjectID object, cor::ClassID klass);
  // An event of the session, on the thread that wrote it (sampled route): its id, payload and
  // the thread's managed stack (instruction pointers, innermost first).
  void OnEventPipeEvent(uint32_t event_id, const uint8_t* data, size_t bytes,
                        const cor::UINT_PTR* ips, uint32_t ip_count);
  // Payloads of the session that did not parse (the first one's error is logged once).
  uint64_t bad_events() const { return bad_events_.load(std::memory_order_relaxed); }

 private:
  // Walks the calling thread's stack for a sample, then keeps it.
  void SampleAllocation(cor::ObjectID object, cor::ClassID klass, uint64_t size);
  // A sample with its stack: to the origins and, while one listens, the frames subscription.
  void KeepSample(cor::ObjectID object, cor::ClassID klass, uint64_t size, const uint64_t* keys,
                  uint32_t depth);
  // agent::SiteTable::NameOf over MethodName (`self`: this).
  static std::string OriginMethodName(void* self, uint64_t function);
  // Names the `depth` methods and hands the sample to the frames' sink.
  void SendSample(cor::ClassID klass, uint64_t size, const uint64_t* keys, uint32_t depth);
  // The cached name of a method (FunctionID) or class (ClassID), computed on first use; a
  // placeholder once the cache is full.
  const char* MethodName(cor::FunctionID function);
  const char* ClassName(cor::ClassID klass);
  const char* CachedName(std::unordered_map<uintptr_t, std::string>& cache, uintptr_t key,
                         bool is_class);

  cor::ICorProfilerInfo10* const info_;
  cor::ICorProfilerInfo12* const info12_;  // the sampled route's (else null)
  FrameHook* const frame_;                 // the game thread and the frame records (never null)
  const AllocationRoute route_;
  agent::SampleInterval interval_;
  DotnetOrigins* origins_ = nullptr;
  cor::EventPipeSession session_ = 0;
  std::atomic<uint64_t> bad_events_{0};
  std::mutex names_mu_;
  std::unordered_map<uintptr_t, std::string> methods_;  // under names_mu_; nodes never erased
  std::unordered_map<uintptr_t, std::string> classes_;  // under names_mu_; nodes never erased
};

}  // namespace dotnet
}  // namespace xrpm

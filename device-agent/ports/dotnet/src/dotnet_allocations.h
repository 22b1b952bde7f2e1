// DotnetAllocations: every allocation of a program under `xrpm-dotnet --allocations`, from the
// profiler's ObjectAllocated callback (COR_PRF_ENABLE_OBJECT_ALLOCATED at start-up, then
// COR_PRF_MONITOR_OBJECT_ALLOCATED: the runtime then allocates every object through its slow
// path and calls the profiler on the allocating thread, before the constructor runs). Start-up
// only: the runtime accepts the enabling bit in Initialize alone, never after an attach. It needs
// the frame method's hook (not --no-frame): the frames subscription that receives the samples is
// the hook's (dotnet_frames.h).
//
// Per allocation (OnAllocated): the object's size (GetObjectSize2); on the game thread (the frame
// method's, frame_hook.h) the bytes and the object are counted in the frame in progress
// (dotnet_frames.h: exact per-frame figures); on every thread the thread's AllocationSampler
// (xrpm/agent/sample_interval.h, the interval in force: the frames subscription's, else the
// start-up --sample-bytes) decides whether it is sampled, one sample per N bytes on average,
// unbiased by size. A sample is walked only while a frames subscription listens (nothing else
// keeps samples on .NET yet): its class (named as captures name classes, type_names.h) and up to
// agent::kMaxSampleStackDepth managed frames of the allocating thread, innermost first, from
// ICorProfilerInfo2::DoStackSnapshot on the current thread (a synchronous walk), each method named
// "Namespace.Class.Method" (type_names.h). The agent's FrameTracker interns them (frame_events.h)
// for `xrpm allocations --by type|method|stack` and the monitor's Allocations view.
// The sample's scope tag (AllocationSample::tag_key/tag_name) is left empty: ScopeTag() is where a
// thread's innermost scope tag (Xrpm.dll's scopes on .NET) will be taken.
//
// Cost and bounds: an unsampled allocation costs the callback, GetObjectSize2, a thread check and
// one compare and subtract. A sample costs the stack walk (O(depth)) and two lookups under a
// mutex. Names are computed once per method and class, outside the mutex (the runtime's metadata
// calls may block on the runtime's own locks; a thread waiting for the mutex must never wait for
// one): the caches hold at most kMaxAllocNames entries each (protocol::kMaxFrameDefs, what the
// agent's tables keep anyway); past that a new method or class is sent under a fixed placeholder
// name, with no allocation. Nothing else allocates in the callback.
//
// Thread-safety: OnAllocated from any managed thread (the runtime's callback); the name caches
// under names_mu_, never held across a runtime call; the sampler per thread (thread_local).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "corprof_abi.h"
#include "frame_hook.h"
#include "xrpm/agent/sample_interval.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace dotnet {

// Most method and class names cached for samples (each).
constexpr size_t kMaxAllocNames = protocol::kMaxFrameDefs;

class DotnetAllocations {
 public:
  // The event mask bits (low word) ORed into every SetEventMask2 of the process from Initialize
  // on: the enabling bit is immutable, so a later mask without it would be refused.
  static constexpr cor::DWORD kMaskLow =
      cor::kEnableObjectAllocated | cor::kMonitorObjectAllocated | cor::kEnableStackSnapshot;

  // `startup_sample_bytes`: the interval in force while no frames subscription listens.
  DotnetAllocations(cor::ICorProfilerInfo10* info, FrameHook* frame, uint32_t startup_sample_bytes)
      : info_(info), frame_(frame), interval_(startup_sample_bytes) {}
  DotnetAllocations(const DotnetAllocations&) = delete;
  DotnetAllocations& operator=(const DotnetAllocations&) = delete;

  // A frames subscription with `sample_bytes` began (0: it ended).
  void SetSubscription(uint32_t sample_bytes) { interval_.SetSubscription(sample_bytes); }
  uint32_t mean_bytes() const { return interval_.mean_bytes(); }

  // The runtime's ObjectAllocated, on the allocating thread.
  void OnAllocated(cor::ObjectID object, cor::ClassID klass);

 private:
  void SampleAllocation(cor::ClassID klass, uint64_t size);
  // The cached name of a method (FunctionID) or class (ClassID), computed on first use; a
  // placeholder once the cache is full.
  const char* MethodName(cor::FunctionID function);
  const char* ClassName(cor::ClassID klass);
  const char* CachedName(std::unordered_map<uintptr_t, std::string>& cache, uintptr_t key,
                         bool is_class);
  // The allocating thread's innermost scope tag: none on .NET yet (key 0, no name).
  static uint64_t ScopeTagKey() { return 0; }
  static const char* ScopeTagName() { return nullptr; }

  cor::ICorProfilerInfo10* const info_;
  FrameHook* const frame_;  // the game thread and the frame records (never null)
  agent::SampleInterval interval_;
  std::mutex names_mu_;
  std::unordered_map<uintptr_t, std::string> methods_;  // under names_mu_; nodes never erased
  std::unordered_map<uintptr_t, std::string> classes_;  // under names_mu_; nodes never erased
};

}  // namespace dotnet
}  // namespace xrpm

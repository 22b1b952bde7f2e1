// FrameHook: the frame method of a program under xrpm-dotnet (Microsoft.Xna.Framework.Game:Tick
// unless --frame names another), so that a capture lands between two frames, as under xrpm-mono.
//
// CoreCLR calls a profiler's enter/leave hooks only when it asked for them at start-up
// (COR_PRF_MONITOR_ENTERLEAVE in Initialize; never after an attach). A function ID mapper, which
// the runtime calls once per method before compiling it, turns the hooks on for the frame method
// alone (matched by its name and its class's full name), so no other method pays for them. The
// game thread is the first thread that enters the method; its leaves (depth back to 0) count the
// completed frames, end a frame record (dotnet_frames.h) and wake a capture waiting for the end
// of one.
//
// How a capture uses it (DotnetPort): CoreCLR can stop the world only inside a collection, and a
// hook cannot hold the game thread (it runs in cooperative mode: the collection would wait for
// it), so when the method returned within the frame window the capture waits for its next return
// and forces the collection at once; with the world stopped (GarbageCollectionStarted) the port
// checks that the game thread is outside the method, and if a collection caught it inside (a
// frame that began before the world stopped) it is not recorded and the capture waits for the
// next return, a bounded number of times.
//
// Thread-safety: Install from the runtime's start-up thread; the mapper from JIT threads (its
// metadata cache under a mutex); Enter/Leave from managed threads (only the game thread's
// count); completed/recent/in_frame/OnGameThread anywhere (in_frame is exact with the world
// stopped); WaitForFrameEnd from the capture thread.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "corprof_abi.h"
#include "dotnet_frames.h"
#include "module_metadata.h"
#include "profiler_options.h"

namespace xrpm {
namespace dotnet {

class FrameHook {
 public:
  FrameHook(cor::ICorProfilerInfo10* info, mono::FrameMethod method, uint32_t window_ms);
  FrameHook(const FrameHook&) = delete;
  FrameHook& operator=(const FrameHook&) = delete;

  // The event mask bit the hooks need (ORed into every SetEventMask2 of the process).
  static constexpr cor::DWORD kMaskLow = cor::kMonitorEnterLeave;
  // Installs the mapper and the hooks (Initialize only, before the event mask with kMaskLow).
  // One FrameHook per process. False with *error when the runtime refused.
  bool Install(std::string* error);

  // "Namespace.Class:Method".
  const std::string& name() const { return name_; }
  uint32_t window_ms() const { return window_ms_; }
  // The method was compiled (the program has it).
  bool found() const { return found_.load(std::memory_order_relaxed); }
  // Frames completed by the game thread.
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  // The method returned within the frame window.
  bool Recent() const;
  // The game thread is inside the method.
  bool in_frame() const { return inside_.load(std::memory_order_acquire); }
  // Waits until more than `after` frames completed or the deadline; true when they did.
  bool WaitForFrameEnd(uint64_t after, std::chrono::steady_clock::time_point deadline);
  // The calling thread is the game thread (the first thread that entered the method).
  bool OnGameThread() const {
    return have_game_.load(std::memory_order_acquire) && pthread_equal(game_, pthread_self());
  }
  // The frame records the hooks feed (dotnet_frames.h).
  DotnetFrames& frames() { return frames_; }

 private:
  static cor::UINT_PTR Map(cor::FunctionID function, void* self, cor::BOOL* hook);
  static void Enter(cor::FunctionID, cor::UINT_PTR, void*, void*);
  static void Leave(cor::FunctionID, cor::UINT_PTR, void*, void*);
  static void Tailcall(cor::FunctionID, cor::UINT_PTR, void*);
  bool Matches(cor::FunctionID function);
  void OnEnter();
  void OnLeave();
  static int64_t NowNs();

  cor::ICorProfilerInfo10* const info_;
  const mono::FrameMethod method_;
  const std::string name_;
  const std::string class_full_name_;  // "Namespace.Class"
  const uint32_t window_ms_;

  std::mutex metadata_mu_;
  ModuleMetadata metadata_;  // under metadata_mu_
  std::atomic<bool> found_{false};

  std::atomic<bool> have_game_{false};
  pthread_t game_{};
  int depth_ = 0;  // the game thread's
  std::atomic<bool> inside_{false};
  std::atomic<uint64_t> completed_{0};
  std::atomic<int64_t> last_leave_ns_{0};
  DotnetFrames frames_;

  std::atomic<int> waiters_{0};
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
};

}  // namespace dotnet
}  // namespace xrpm

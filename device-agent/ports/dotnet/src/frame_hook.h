// FrameHook: the frame method of a program under xrpm-dotnet (Microsoft.Xna.Framework.Game:Tick
// unless --frame names another), so that a capture lands between two frames, as under xrpm-mono.
//
// The method's own code calls the hook: when a module that defines the method (matched by its
// name and its top-level class's full name; the runtime's own modules, in its shared framework
// directory, are not looked at) finishes loading, the hook asks the runtime to
// compile the method again (ReJIT) and, asked for the new body, gives it the module's body with
// a native call at the entry and another before each return (il_method_body.h). The calls are
// inline P/Invokes, so nothing else in the program pays anything: no enter/leave hooks, which
// would turn ReadyToRun code off for the whole base library (corprof_abi.h), and nothing on
// other methods. ReJIT is allowed after an attach too: there the hook goes through the modules
// already loaded (CatchUp). A body the rewrite refuses (il_method_body.h), or a runtime that
// refuses the request, leaves the method as it was and says why (the capture then stops the
// game where it is). The game thread is the first thread that enters the method; its returns
// (depth back to 0) count the completed frames, end a frame record (dotnet_frames.h) and wake a
// capture waiting for the end of one. An exception escaping the method skips the exit call
// (as the runtime's leave hook would): the next entry, found no deeper on the stack than the
// unwound one, ends that frame first.
//
// How a capture uses it (DotnetPort): CoreCLR can stop the world only inside a collection, so
// when the method returned within the frame window the capture asks the game thread to wait in
// the method's exit call at its next return (HoldAtFrameEnd: the thread is in preemptive mode
// there, so the collection does not wait for it), forces the collection while it waits, and
// lets it go (Release). A game thread that does not return in time is not held: the collection
// then catches it where it is (the port checks with the world stopped, and a collection that
// caught it inside the method is not recorded and the capture tries again, a bounded number of
// times).
//
// Thread-safety: OnModuleLoaded and CatchUp from runtime threads (the module list under a
// mutex); the ReJIT requests from the hook's own thread (never inside a callback: RequestReJIT
// takes the runtime's code version locks); OnReJitParameters from JIT threads; the native calls
// from managed threads (only the game thread's count); completed/recent/in_frame/OnGameThread
// anywhere (in_frame is exact with the world stopped); HoldAtFrameEnd and Release from the
// capture thread.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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

  // The event mask bits the hook needs (ORed into every SetEventMask2 of the process).
  static constexpr cor::DWORD kMaskLow = cor::kEnableRejit | cor::kMonitorModuleLoads;
  // Where the hook says what it did (the port's log; stderr until set). One FrameHook per
  // process (the native calls find it through a global).
  void set_log(std::function<void(const std::string&)> log);

  // A module finished loading: when it defines the method, asks for the method's ReJIT and
  // waits (bounded) until the request is sent, so the method's first call is hooked.
  void OnModuleLoaded(cor::ModuleID module);
  // After an attach, once the event mask is set: every module loaded before it.
  void CatchUp();
  // GetReJITParameters: the rewritten body of a method OnModuleLoaded asked for.
  cor::HRESULT OnReJitParameters(cor::ModuleID module, cor::mdToken method,
                                 cor::ICorProfilerFunctionControl* control);
  // ReJITError for a method the hook asked for.
  void OnReJitError(cor::ModuleID module, cor::mdToken method, cor::HRESULT status);

  // "Namespace.Class:Method".
  const std::string& name() const { return name_; }
  uint32_t window_ms() const { return window_ms_; }
  // The method was compiled with its calls (the program has it).
  bool found() const { return found_.load(std::memory_order_relaxed); }
  // Frames completed by the game thread.
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  // The method returned within the frame window.
  bool Recent() const;
  // The game thread is inside the method.
  bool in_frame() const { return inside_.load(std::memory_order_acquire); }
  // Capture thread: asks the game thread to wait in the exit call of its next return from the
  // method, and waits until it does or `deadline`. True: it waits there until Release (at most
  // kMaxHold). False: it did not return in time and runs on.
  bool HoldAtFrameEnd(std::chrono::steady_clock::time_point deadline);
  // Lets a held game thread go on; nothing when none is held.
  void Release();
  // When the held game thread stopped (steady clock, ns since its epoch); 0 when none is.
  int64_t held_since_ns() const { return held_since_ns_.load(std::memory_order_acquire); }
  // The longest a game thread waits for Release (a capture's collection of a very large heap
  // fits; a capture thread that never released still lets the game go).
  static constexpr std::chrono::minutes kMaxHold{10};
  // The calling thread is the game thread (the first thread that entered the method).
  bool OnGameThread() const {
    return have_game_.load(std::memory_order_acquire) && pthread_equal(game_, pthread_self());
  }
  // The frame records the hooks feed (dotnet_frames.h).
  DotnetFrames& frames() { return frames_; }

 private:
  // The native functions the method's code calls (C calling convention, no arguments).
  static void EnterCall();
  static void ExitCall();
  void OnEnter();
  void OnLeave();
  void HoldHere();  // the game thread, at a frame end with a hold asked for
  static int64_t CoarseNowNs();
  void Log(const std::string& line);
  // The module is one of the runtime's own (its shared framework directory). Under modules_mu_.
  bool InRuntimeDirectory(cor::ModuleID module);
  // Queues the ReJIT of the module's frame methods: the request's ticket, 0 when none.
  uint64_t Queue(cor::ModuleID module);
  // The ReJIT requests' thread: sends what Queue queued.
  void RequestLoop();

  cor::ICorProfilerInfo10* const info_;
  const mono::FrameMethod method_;
  const std::string name_;
  const std::string class_full_name_;  // "Namespace.Class"
  std::u16string class_name16_;        // the same two names in UTF-16 (empty: not UTF-8)
  std::u16string method_name16_;
  const uint32_t window_ms_;

  std::mutex modules_mu_;
  ModuleMetadata metadata_;                                    // under modules_mu_
  std::unordered_map<cor::ModuleID, cor::mdToken> signature_;  // the calli signature, per module
  std::string runtime_dir_;  // where System.Private.CoreLib.dll is, with its final slash
  std::vector<std::pair<cor::ModuleID, cor::mdToken>> queued_;  // ReJIT requests not yet sent
  bool thread_started_ = false;
  uint64_t queued_count_ = 0;  // requests queued so far
  uint64_t sent_ = 0;          // of them, sent to the runtime
  std::condition_variable queued_cv_;
  std::condition_variable sent_cv_;
  std::function<void(const std::string&)> log_;  // under modules_mu_
  std::atomic<bool> found_{false};

  std::atomic<bool> have_game_{false};
  pthread_t game_{};
  int depth_ = 0;           // the game thread's
  uintptr_t outer_sp_ = 0;  // the game thread's stack at the outermost entry
  std::atomic<bool> inside_{false};
  std::atomic<uint64_t> completed_{0};
  std::atomic<int64_t> last_leave_ns_{0};
  DotnetFrames frames_;

  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  enum class Hold { kNone, kAsked, kHeld };
  Hold hold_ = Hold::kNone;              // under wait_mu_
  std::atomic<bool> hold_asked_{false};  // hold_ != kNone, for the game thread's fast check
  std::atomic<int64_t> held_since_ns_{0};
};

}  // namespace dotnet
}  // namespace xrpm

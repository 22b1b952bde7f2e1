// ProfilerOptions: the options of the xrpm Mono profiler module, as Mono passes them to
// mono_profiler_init_xrpm ("xrpm" or "xrpm:KEY=VALUE,KEY=VALUE,..."), and the inverse the
// launcher (xrpm-mono) uses to build that string.
//
//   port=N                  serve hosts on 127.0.0.1:N (0: any free port; default 4510)
//   listen=ADDR:PORT        serve hosts on ADDR:PORT instead (off loopback a token is required)
//   frame=NS.Class:Method   the frame method (default Microsoft.Xna.Framework.Game:Tick)
//   quiet                   no agent log lines except errors
//   allocations             Mono reports every allocation: frames and allocation samples with
//                           stacks can be served (slower allocation; off by default)
//   allocations=exact|sampled  CoreCLR (xrpm-dotnet): which route `allocations` takes
//                           (dotnet_allocations.h; sampled, the default, falls back to exact on
//                           runtimes before .NET 10); Mono has one route and takes either
//   announce                discovery beacon on the local network (AgentOptions::announce)
//   no_origins              CoreCLR (xrpm-dotnet): with `allocations`, captures carry no
//                           allocation origins (dotnet_origins.h; the GC events then stay off
//                           between captures); Mono turns them off with sample_bytes=0
//   no_frame                CoreCLR (xrpm-dotnet --no-frame): the frame method is not hooked
//   sample_bytes=N          with `allocations`: allocation origins in captures, one sampled
//                           allocation per N bytes on average from start-up (default 16384;
//                           0..67108864; 0 records no origins); a frames subscription's
//                           interval replaces it while the subscription lasts
//   frame_window_ms=N       a capture waits for the frame method to return when it returned
//                           within the last N ms; otherwise (a program not running frames,
//                           or stalled) it stops the program at the next safe point
//                           (default 1000; 1..600000)
//   walk=snapshot|paused    how a capture walks the heap: in a copy-on-write child process
//                           while the game runs on (snapshot, the default; snapshot_walk.h;
//                           the port walks paused when allocation origins are recorded or
//                           no child can be made), or with the game stopped (paused)
// The token is not an option (a command line is visible to every user of the machine): it is
// read from the environment variable XRPM_MONO_TOKEN, which the module removes once read.
//
// Thread-safety: plain functions on values.
#pragma once

#include <cstdint>
#include <string>

namespace xrpm {
namespace mono {

constexpr const char* kDefaultFrameMethod = "Microsoft.Xna.Framework.Game:Tick";
constexpr const char* kTokenEnv = "XRPM_MONO_TOKEN";
// The launcher's handshake: a file descriptor the module writes one line to once it has run
// ("ok ADDR:PORT" or "error MESSAGE"), so a module Mono did not load is noticed.
constexpr const char* kStatusFdEnv = "XRPM_MONO_STATUS_FD";

// The default start-up interval of allocation origins (the protocol's default frames interval).
constexpr uint32_t kDefaultOriginSampleBytes = 16 * 1024;
constexpr uint32_t kMaxOriginSampleBytes = 64u * 1024 * 1024;
// The frame-boundary window (frame_window_ms): its default and its largest value.
constexpr uint32_t kDefaultFrameWindowMs = 1000;
constexpr uint32_t kMaxFrameWindowMs = 600000;

// How a capture walks the heap (walk=, xrpm-mono --walk).
enum class WalkMode : uint8_t {
  kSnapshot,  // in a copy-on-write child, the game running (snapshot_walk.h)
  kPaused,    // with the game stopped, on the collector thread
};
constexpr WalkMode kDefaultWalkMode = WalkMode::kSnapshot;
const char* WalkModeName(WalkMode m);  // "snapshot", "paused"
// "snapshot" / "paused" -> the mode; false otherwise.
bool ParseWalkMode(const std::string& text, WalkMode* out);

struct FrameMethod {
  std::string name_space;  // "Microsoft.Xna.Framework" ("" for the global namespace)
  std::string class_name;  // "Game"
  std::string method;      // "Tick"
};

struct ProfilerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 4510;
  std::string frame = kDefaultFrameMethod;
  bool quiet = false;
  bool allocations = false;
  bool allocations_exact = false;  // allocations=exact (CoreCLR's ObjectAllocated route)
  bool announce = false;
  bool no_origins = false;  // CoreCLR: no allocation origins with `allocations`
  bool no_frame = false;    // CoreCLR: the frame method not hooked
  uint32_t sample_bytes = kDefaultOriginSampleBytes;
  uint32_t frame_window_ms = kDefaultFrameWindowMs;
  WalkMode walk = kDefaultWalkMode;
};

// "Namespace.Class:Method" -> parts. False (with *error) when malformed.
bool ParseFrameMethod(const std::string& text, FrameMethod* out, std::string* error);

// Parses Mono's profiler description ("xrpm", "xrpm:port=0,frame=..."). False (with *error
// naming the bad option and what was expected) on an unknown or malformed option.
bool ParseProfilerOptions(const std::string& desc, ProfilerOptions* out, std::string* error);

// The description for `mono --profile=` that ParseProfilerOptions reads back as `opts`.
std::string FormatProfilerOptions(const ProfilerOptions& opts);

}  // namespace mono
}  // namespace xrpm

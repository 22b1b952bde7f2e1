// Xrpm.dll for .NET: the in-game API of the xrpm profiler for games on CoreCLR (.NET 8 and later),
// with the same names and behaviour as the Mono port's Xrpm.dll. Reference it (docs/DOTNET.md:
// a project or a file reference) and ship it beside the game; it does nothing until the game runs
// under xrpm-dotnet (from start-up, or after `xrpm-dotnet --attach PID`).
//
//   Xrpm.Profiler.Marker("Level 7 loaded");          // on the Timeline, in `xrpm frames`
//   Xrpm.Profiler.RequestCapture("boss fight");       // the host captures (xrpm capture --keep)
//   using (Xrpm.Profiler.Scope("AI")) { ... }         // tags the allocations made inside
//
// How the calls reach the agent: the profiler library (libxrpm-dotnet-profiler.so, loaded by the
// runtime for xrpm-dotnet) exports four C functions (device-agent/ports/dotnet/src/
// dotnet_game_api.h). The static constructor asks once for the library by its file name
// (NativeLibrary.TryLoad: the dynamic loader answers with the library already loaded in this
// process, matched by its soname) and, when xrpm_game_api_version() says the agent runs, keeps
// the functions as static readonly unmanaged function pointers: a call is then one pinned string
// and one native call, no allocation (Scope returns a shared object).
//
// Without the agent every call returns at once and never throws: the answer is a static readonly
// bool, a constant to the JIT. An agent attached later (xrpm-dotnet --attach) is noticed by the
// late path: each call without the agent also counts down a static counter, and every 256th call
// looks again if a second has passed since the last look (a Stopwatch read; the lookup itself at
// most once a second), so after an attach the calls reach the agent within about a second of
// game time. A game that never calls the API never looks.
// Text longer than 128 UTF-8 bytes is cut, never refused; the agent's marker queue is a fixed
// ring; scopes nest to any depth, the innermost 32 are kept.
//
// Thread-safety: every method may be called from any thread; scopes are per thread and must be
// left on the thread that entered them (the using statement does).
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Xrpm {

public static unsafe class Profiler {
  // The profiler library's file name (its soname): xrpm-dotnet loads it from its own directory.
  const string Library = "libxrpm-dotnet-profiler.so";

  // The agent ran when this class was initialised (start-up): folded by the JIT.
  static readonly bool started;
  static readonly delegate* unmanaged<int, char*, int, void> post;
  static readonly delegate* unmanaged[SuppressGCTransition]<char*, int, void> enter;
  static readonly delegate* unmanaged[SuppressGCTransition]<void> leave;
  static readonly IDisposable scope = new ScopeExit();
  static readonly IDisposable lateScope = new LateScopeExit();
  static readonly IDisposable noScope = new NoScope();

  static Profiler() {
    Api api;
    started = Late.Find(out api);
    if (started) {
      post = api.Post;
      enter = api.Enter;
      leave = api.Leave;
    }
  }

  // A marker: a named moment ("Wave 3", "Level 7 loaded").
  public static void Marker(string text) {
    if (started) Post(post, 0, text);
    else if (Late.Ready()) Post(Late.api.Post, 0, text);
  }

  // Asks the connected host for a heap capture now (it decides; `xrpm capture` unattended and
  // the monitor's Auto capture take it), labelled `label`.
  public static void RequestCapture(string label) {
    if (started) Post(post, 1, label);
    else if (Late.Ready()) Post(Late.api.Post, 1, label);
  }

  // Tags the allocations this thread makes until the result is disposed.
  public static IDisposable Scope(string tag) {
    if (started) {
      fixed (char* p = tag) enter(p, tag == null ? 0 : tag.Length);
      return scope;
    }
    if (!Late.Ready()) return noScope;
    fixed (char* p = tag) Late.api.Enter(p, tag == null ? 0 : tag.Length);
    return lateScope;
  }

  // True when the calls reach xrpm-dotnet's agent (from start-up, or once an attach was noticed).
  public static bool IsAttached {
    get { return started || Late.Ready(); }
  }

  static void Post(delegate* unmanaged<int, char*, int, void> fn, int kind, string text) {
    fixed (char* p = text) fn(kind, p, text == null ? 0 : text.Length);
  }

  struct Api {
    internal delegate* unmanaged<int, char*, int, void> Post;
    internal delegate* unmanaged[SuppressGCTransition]<char*, int, void> Enter;
    internal delegate* unmanaged[SuppressGCTransition]<void> Leave;
  }

  // The agent found after the class was initialised (an attach), looked for at a bounded rate.
  static class Late {
    const int CallsPerLook = 256;
    internal static Api api;  // valid once found
    static volatile bool found;
    static int countdown = CallsPerLook;
    // Stopwatch ticks; the static constructor has just looked.
    static long nextLook = Stopwatch.GetTimestamp() + Stopwatch.Frequency;
    static int looking;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool Ready() {
      if (found) return true;
      if (--countdown > 0) return false;  // racy between threads: only the rate suffers
      return Look();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool Look() {
      countdown = CallsPerLook;
      long now = Stopwatch.GetTimestamp();
      if (now < Volatile.Read(ref nextLook)) return false;
      if (Interlocked.Exchange(ref looking, 1) != 0) return found;
      try {
        Volatile.Write(ref nextLook, now + Stopwatch.Frequency);
        Api a;
        if (Find(out a)) {
          api = a;
          found = true;  // after api (volatile write: release)
        }
      } finally {
        Volatile.Write(ref looking, 0);
      }
      return found;
    }

    // The loaded profiler library's functions, when its agent runs in this process.
    internal static bool Find(out Api a) {
      a = default(Api);
      try {
        if (!OperatingSystem.IsLinux()) return false;  // the library exists for Linux only
        IntPtr lib;
        if (!NativeLibrary.TryLoad(Library, out lib)) return false;
        IntPtr version, p, e, l;
        if (NativeLibrary.TryGetExport(lib, "xrpm_game_api_version", out version) &&
            NativeLibrary.TryGetExport(lib, "xrpm_game_post", out p) &&
            NativeLibrary.TryGetExport(lib, "xrpm_game_enter_scope", out e) &&
            NativeLibrary.TryGetExport(lib, "xrpm_game_leave_scope", out l) &&
            ((delegate* unmanaged<int>)version)() == 1) {
          a.Post = (delegate* unmanaged<int, char*, int, void>)p;
          a.Enter = (delegate* unmanaged[SuppressGCTransition]<char*, int, void>)e;
          a.Leave = (delegate* unmanaged[SuppressGCTransition]<void>)l;
          return true;  // the reference TryLoad added keeps the library loaded
        }
        NativeLibrary.Free(lib);  // not the agent's process (or not yet): as it was
        return false;
      } catch (Exception) {  // a loader that refuses: no agent
        return false;
      }
    }
  }

  sealed class ScopeExit : IDisposable {
    public void Dispose() {
      leave();
    }
  }

  sealed class LateScopeExit : IDisposable {
    public void Dispose() {
      Late.api.Leave();
    }
  }

  sealed class NoScope : IDisposable {
    public void Dispose() {}
  }
}

}  // namespace Xrpm

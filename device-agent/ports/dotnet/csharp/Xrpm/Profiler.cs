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
// dotnet_game_api.h). The static constructor looks once for the library among the objects loaded
// in this process (dl_iterate_phdr, by its file name) and, when xrpm_game_api_version() says the
// agent runs, keeps the functions as static readonly unmanaged function pointers: a call is then
// one pinned string and one native call, no allocation (Scope returns a small struct).
//
// Without the agent every call returns at once and never throws: the answer is a static readonly
// bool, a constant to the JIT. An agent attached later (xrpm-dotnet --attach) is noticed by the
// late path: each call without the agent also reads a volatile bool and counts down a static
// counter; every 256th call reads the Stopwatch, and when a second has passed since the last look
// it looks again (a few microseconds, at most once a second). After an attach the calls reach the
// agent within about a second of game time. A game that never calls the API never looks.
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
  // The profiler library's file name: xrpm-dotnet has the runtime load it from its own directory.
  const string Library = "libxrpm-dotnet-profiler.so";

  // The agent ran when this class was initialised (start-up): folded by the JIT.
  static readonly bool started;
  static readonly delegate* unmanaged<int, char*, int, void> post;
  static readonly delegate* unmanaged[SuppressGCTransition]<char*, int, void> enter;
  static readonly delegate* unmanaged[SuppressGCTransition]<void> leave;

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
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  // A struct, not an IDisposable object: the using statement then calls its Dispose directly
  // (no interface call, no allocation), which the JIT inlines to one compare without the agent.
  public static ScopeExit Scope(string tag) {
    if (started) {
      Enter(enter, tag);
      return new ScopeExit(ScopeExit.Agent);
    }
    if (!Late.Ready()) return default;
    Enter(Late.api.Enter, tag);
    return new ScopeExit(ScopeExit.LateAgent);
  }

  // True when the calls reach xrpm-dotnet's agent (from start-up, or once an attach was noticed).
  public static bool IsAttached {
    get { return started || Late.Ready(); }
  }

  // The calls with a pinned string (a method of their own: a method that pins is not inlined).
  static void Post(delegate* unmanaged<int, char*, int, void> fn, int kind, string text) {
    fixed (char* p = text) fn(kind, p, text == null ? 0 : text.Length);
  }

  static void Enter(delegate* unmanaged[SuppressGCTransition]<char*, int, void> fn, string tag) {
    fixed (char* p = tag) fn(p, tag == null ? 0 : tag.Length);
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

    // Every CallsPerLook calls without the agent: looks again when a second has passed since the
    // last look.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool Look() {
      countdown = CallsPerLook;
      long now = Stopwatch.GetTimestamp();
      if (now < Volatile.Read(ref nextLook)) return false;
      if (Interlocked.Exchange(ref looking, 1) != 0) return false;
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

    // The loaded profiler library's functions, when its agent runs in this process. The library
    // is looked for among the loaded objects (dl_iterate_phdr: a few microseconds), never by
    // name through the loader, whose search of its path when the library is not loaded takes
    // about 0.7 ms and could load it into a process that has no agent.
    internal static bool Find(out Api a) {
      a = default(Api);
      try {
        if (!OperatingSystem.IsLinux()) return false;  // the library exists for Linux only
        IntPtr path = IntPtr.Zero;
        dl_iterate_phdr(&OnLoadedObject, (IntPtr)(&path));
        IntPtr lib;
        // A full path: the loader finds the loaded object without searching (and adds a
        // reference, which keeps it loaded).
        if (path == IntPtr.Zero || !NativeLibrary.TryLoad(Marshal.PtrToStringUTF8(path), out lib))
          return false;
        IntPtr version, p, e, l;
        if (NativeLibrary.TryGetExport(lib, "xrpm_game_api_version", out version) &&
            NativeLibrary.TryGetExport(lib, "xrpm_game_post", out p) &&
            NativeLibrary.TryGetExport(lib, "xrpm_game_enter_scope", out e) &&
            NativeLibrary.TryGetExport(lib, "xrpm_game_leave_scope", out l) &&
            ((delegate* unmanaged<int>)version)() == 1) {
          a.Post = (delegate* unmanaged<int, char*, int, void>)p;
          a.Enter = (delegate* unmanaged[SuppressGCTransition]<char*, int, void>)e;
          a.Leave = (delegate* unmanaged[SuppressGCTransition]<void>)l;
          return true;
        }
        NativeLibrary.Free(lib);  // loaded, its agent not (yet) running: our reference goes
        return false;
      } catch (Exception) {  // no dl_iterate_phdr (not glibc or musl), a loader that refuses
        return false;
      }
    }

    // dl_iterate_phdr's callback: stops at the object whose path ends in "/" + Library and
    // stores its path (the loader's string, valid while the object is loaded) in *data.
    [UnmanagedCallersOnly]
    static int OnLoadedObject(IntPtr info, nuint size, IntPtr data) {
      // struct dl_phdr_info { ElfW(Addr) dlpi_addr; const char* dlpi_name; ... }
      byte* name = *(byte**)((byte*)info + IntPtr.Size);
      if (name == null) return 0;
      int n = 0;
      while (name[n] != 0) n++;
      int m = Library.Length;
      if (n <= m || name[n - m - 1] != (byte)'/') return 0;
      for (int i = 0; i < m; i++) {
        if (name[n - m + i] != (byte)Library[i]) return 0;
      }
      *(IntPtr*)data = (IntPtr)name;
      return 1;
    }

    [DllImport("libc")]
    static extern int dl_iterate_phdr(delegate* unmanaged<IntPtr, nuint, IntPtr, int> callback,
                                      IntPtr data);
  }

  // What Scope returns: disposing it leaves the scope its Scope call entered (nothing when no
  // agent was there). Copies share that one scope: dispose one of them, once.
  public readonly struct ScopeExit : IDisposable {
    internal const byte None = 0, Agent = 1, LateAgent = 2;
    readonly byte kind;

    internal ScopeExit(byte kind) {
      this.kind = kind;
    }

    public void Dispose() {
      if (kind == None) return;
      if (kind == Agent)
        leave();
      else
        Late.api.Leave();
    }
  }
}

}  // namespace Xrpm

// Xrpm.dll: the in-game API of the xrpm profiler for Mono games. Reference it
// (mcs -r:Xrpm.dll) and ship it beside the game; it does nothing until the game runs under
// xrpm-mono, whose profiler module registers the internal calls below (game_api.h).
//
//   Xrpm.Profiler.Marker("Level 7 loaded");          // on the Timeline, in `xrpm frames`
//   Xrpm.Profiler.RequestCapture("boss fight");       // the host captures (xrpm capture --keep)
//   using (Xrpm.Profiler.Scope("AI")) { ... }         // tags the allocations made inside
//
// Without the agent every call returns at once and never throws: the static constructor asks
// once whether the module is there (it sets XRPM_AGENT_PID to this process's id when it loads;
// a child process inherits the variable but not the module) and the answer is a static readonly
// field, a constant to the JIT. The internal calls are reached only through the nested class
// Native's wrappers, compiled when first called, so Mono never looks for them without the agent
// (a missing internal call makes Mono print a warning). With the agent a call costs one
// internal call (no allocation: Scope returns a shared object). Text longer than 128 UTF-8
// bytes is cut, never refused; a game calling thousands of times per frame does not grow the
// agent's memory (its marker queue is a fixed ring; scopes nest to any depth, the innermost 32
// are kept).
//
// Thread-safety: every method may be called from any thread; scopes are per thread and must be
// left on the thread that entered them (the using statement does).
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Xrpm {

public static class Profiler {
  static readonly bool attached = Attach();
  static readonly IDisposable scope = new ScopeExit();
  static readonly IDisposable noScope = new NoScope();

  // A marker: a named moment ("Wave 3", "Level 7 loaded").
  public static void Marker(string text) {
    if (attached) Native.Post(0, text);
  }

  // Asks the connected host for a heap capture now (it decides; `xrpm capture` unattended and
  // the monitor's Auto capture take it), labelled `label`.
  public static void RequestCapture(string label) {
    if (attached) Native.Post(1, label);
  }

  // Tags the allocations this thread makes until the result is disposed.
  public static IDisposable Scope(string tag) {
    if (!attached) return noScope;
    Native.Enter(tag);
    return scope;
  }

  // True when the game runs under xrpm-mono (the calls reach the agent).
  public static bool IsAttached {
    get { return attached; }
  }

  static bool Attach() {
    try {
      string pid = Environment.GetEnvironmentVariable("XRPM_AGENT_PID");
      if (pid == null || pid != Process.GetCurrentProcess().Id.ToString()) return false;
      return Native.Attached();
    } catch (Exception) {  // MissingMethodException, SecurityException: no agent after all
      return false;
    }
  }

  // The internal calls the profiler module registers (game_api.h), called only when attached.
  // Mono resolves an internal call when it compiles a method that calls it, so each is wrapped
  // in a method that is never inlined: compiling Marker() or Scope() resolves nothing.
  static class Native {
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static bool Attached() { return AgentAttached(); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void Post(int kind, string text) { PostMarker(kind, text); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void Enter(string tag) { EnterScope(tag); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void Leave() { LeaveScope(); }

    [MethodImpl(MethodImplOptions.InternalCall)]
    static extern bool AgentAttached();
    [MethodImpl(MethodImplOptions.InternalCall)]
    static extern void PostMarker(int kind, string text);
    [MethodImpl(MethodImplOptions.InternalCall)]
    static extern void EnterScope(string tag);
    [MethodImpl(MethodImplOptions.InternalCall)]
    static extern void LeaveScope();
  }

  sealed class ScopeExit : IDisposable {
    public void Dispose() {
      Native.Leave();
    }
  }

  sealed class NoScope : IDisposable {
    public void Dispose() {}
  }
}

}  // namespace Xrpm

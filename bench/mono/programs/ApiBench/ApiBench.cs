// ApiBench: the in-game API's cost on the game thread (Xrpm.dll; its targets and figures in
// docs/PERFORMANCE.md), one source for both runtimes: built by mcs for Mono (`mono_bench --only
// api`, with and without xrpm-mono) and by the SDK for .NET (bench/dotnet/programs/ApiBench's
// project; bench/dotnet/api_bench.sh, with and without xrpm-dotnet): FRAMES
// frames (the frame method ApiBench.Bench:Tick), each running every burst once untimed (warm)
// and then timing bursts of 16 iterations of an empty loop, 16 calls of an empty method of its
// own (not inlined: the "empty call" baseline), 16 Profiler.Marker calls, 16 Profiler.Scope
// enter/leave pairs (`using`) and 16 `using` statements over a no-op IDisposable of its own (what
// the C# construct costs without Xrpm), then sleeping 1 ms (so a live agent drains its marker
// queue, 32 markers a frame of its 256 slots, between frames and the figure is the post, never
// the drop path). Prints "api_ns empty E call C marker M scope S using_noop U" (Stopwatch time
// per call, averaged over the frames) and "ApiBench: attached B, markers N".
//
//   mono ApiBench.exe FRAMES    |    dotnet ApiBench.dll FRAMES
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using Xrpm;

namespace ApiBench {
  public static class Bench {
    const int Burst = 16;
    static long empty, call, marker, scope, usingNoop, sink, markers;

    sealed class Noop : IDisposable {
      public void Dispose() {}
    }
    static readonly IDisposable noop = new Noop();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void EmptyCall(string text) {}

    // One untimed pass of every burst: the first code after the sleep runs cold (caches, branch
    // predictors; ~20 ns per call more whatever it is), which would fall on whichever burst is
    // timed first.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Warm() {
      for (int i = 0; i < Burst; i++) sink += i;
      for (int i = 0; i < Burst; i++) EmptyCall("Level 7 loaded");
      for (int i = 0; i < Burst; i++) Profiler.Marker("Level 7 loaded");
      for (int i = 0; i < Burst; i++) {
        using (Profiler.Scope("AI")) sink += i;
      }
      for (int i = 0; i < Burst; i++) {
        using (noop) sink += i;
      }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() {
      Warm();
      long t0 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) sink += i;
      long t1 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) EmptyCall("Level 7 loaded");
      long t2 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) Profiler.Marker("Level 7 loaded");
      long t3 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) {
        using (Profiler.Scope("AI")) sink += i;
      }
      long t4 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) {
        using (noop) sink += i;
      }
      long t5 = Stopwatch.GetTimestamp();
      empty += t1 - t0;
      call += t2 - t1;
      marker += t3 - t2;
      scope += t4 - t3;
      usingNoop += t5 - t4;
      markers += Burst;
    }

    public static int Main(string[] args) {
      int frames;
      if (args.Length < 1 || !int.TryParse(args[0], out frames) || frames < 2) {
        Console.Error.WriteLine("usage: ApiBench FRAMES");
        return 2;
      }
      // Warm up past tiered compilation's first tiers (30 calls, then the background tier-1
      // compile), then start from zero.
      for (int f = 0; f < 200; f++) {
        Tick();
        if (f % 50 == 0) Thread.Sleep(100);
      }
      empty = call = marker = scope = usingNoop = markers = 0;
      Console.Error.WriteLine("ApiBench: ready");
      for (int f = 0; f < frames; f++) {
        Tick();
        Thread.Sleep(1);
      }
      double ns = 1e9 / Stopwatch.Frequency / ((double)frames * Burst);
      Console.Out.WriteLine("api_ns empty " + (empty * ns).ToString("F2") + " call " +
                            (call * ns).ToString("F2") + " marker " + (marker * ns).ToString("F2") +
                            " scope " + (scope * ns).ToString("F2") + " using_noop " +
                            (usingNoop * ns).ToString("F2"));
      Console.Out.WriteLine("ApiBench: attached " + Profiler.IsAttached + ", markers " + markers +
                            " " + sink % 2);
      Console.Out.Flush();
      return 0;
    }
  }
}

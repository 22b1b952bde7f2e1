// ApiBench: the in-game API's cost on the game thread (Xrpm.dll; its targets in docs/PERFORMANCE.md), for the
// Mono port's benchmark (bench/mono, `mono_bench --only api`): FRAMES frames (the frame method
// ApiBench.Bench:Tick), each timing bursts of 16 iterations of an empty loop (the baseline),
// 16 Profiler.Marker calls and 16 Profiler.Scope enter/leave pairs, then sleeping 1 ms (so a
// live agent drains its marker queue between bursts and the figure is the post, never the drop
// path), and 16 `using` statements over a no-op IDisposable of its own (what the C# construct
// costs without Xrpm). Prints "api_ns empty E marker M scope S using_noop U" (per call, averaged
// over the frames) and
// "ApiBench: attached B, markers N".
//
//   mono ApiBench.exe FRAMES
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using Xrpm;

namespace ApiBench {
  public static class Bench {
    const int Burst = 16;
    static long empty, marker, scope, usingNoop, sink, markers;

    sealed class Noop : IDisposable {
      public void Dispose() {}
    }
    static readonly IDisposable noop = new Noop();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() {
      long t0 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) sink += i;
      long t1 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) Profiler.Marker("Level 7 loaded");
      long t2 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) {
        using (Profiler.Scope("AI")) sink += i;
      }
      long t3 = Stopwatch.GetTimestamp();
      for (int i = 0; i < Burst; i++) {
        using (noop) sink += i;
      }
      long t4 = Stopwatch.GetTimestamp();
      usingNoop += t4 - t3;
      empty += t1 - t0;
      marker += t2 - t1;
      scope += t3 - t2;
      markers += Burst;
    }

    public static int Main(string[] args) {
      int frames;
      if (args.Length < 1 || !int.TryParse(args[0], out frames) || frames < 2) {
        Console.Error.WriteLine("usage: ApiBench.exe FRAMES");
        return 2;
      }
      Tick();  // JIT everything, then start from zero
      empty = marker = scope = usingNoop = markers = 0;
      Console.Error.WriteLine("ApiBench: ready");
      for (int f = 0; f < frames; f++) {
        Tick();
        Thread.Sleep(1);
      }
      double ns = 1e9 / Stopwatch.Frequency / ((double)frames * Burst);
      Console.Out.WriteLine("api_ns empty " + (empty * ns).ToString("F2") + " marker " +
                            (marker * ns).ToString("F2") + " scope " +
                            (scope * ns).ToString("F2") + " using_noop " +
                            (usingNoop * ns).ToString("F2"));
      Console.Out.WriteLine("ApiBench: attached " + Profiler.IsAttached + ", markers " + markers +
                            " " + sink % 2);
      Console.Out.Flush();
      return 0;
    }
  }
}

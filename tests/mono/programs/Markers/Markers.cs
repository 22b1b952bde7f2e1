// Markers: the in-game API (Xrpm.dll) used as a game would, for the Mono port's tests.
//   - every 20 frames a marker "Wave W" (W = frame / 20 + 1), in the frame it names;
//   - at frame 30, and then every 100 frames, RequestCapture("Wave W ended");
//   - every frame 100 Markers.AiThing allocated inside Scope("AI") (and 10 Markers.Nested inside
//     Scope("Path") nested in it), and 100 Markers.Plain outside any scope.
// The frame method is Markers.Program:Tick (xrpm-mono --frame Markers.Program:Tick). Without the
// agent (plain `mono Markers.exe`) the calls do nothing and never throw; the program says
// whether it is attached.
//
//   mono Markers.exe [--frames K]
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using Xrpm;

namespace Markers {
  public class AiThing { public int A; }
  public class Nested { public int B; }
  public class Plain { public int C; }

  public static class Program {
    static long frame;
    static long sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() {
      if (frame % 20 == 0) Profiler.Marker("Wave " + (frame / 20 + 1));
      if (frame % 100 == 30) Profiler.RequestCapture("Wave " + (frame / 20 + 1) + " ended");
      using (Profiler.Scope("AI")) {
        for (int i = 0; i < 100; i++) sink += new AiThing { A = i }.A;
        using (Profiler.Scope("Path")) {
          for (int i = 0; i < 10; i++) sink += new Nested { B = i }.B;
        }
      }
      for (int i = 0; i < 100; i++) sink += new Plain { C = i }.C;
      frame++;
    }

    public static int Main(string[] args) {
      long frames = 0;
      for (int i = 0; i < args.Length; i++) {
        if (args[i] == "--frames" && i + 1 < args.Length && long.TryParse(args[i + 1], out frames)) i++;
        else { Console.Error.WriteLine("Markers: unknown argument " + args[i]); return 2; }
      }
      Console.Error.WriteLine("Markers: attached " + Profiler.IsAttached);
      for (long f = 0; frames == 0 || f < frames; f++) {
        Tick();
        if (f == 1) Console.Error.WriteLine("Markers: ready");
        Thread.Sleep(10);
      }
      Console.Error.WriteLine("Markers: done " + sink);
      return 0;
    }
  }
}

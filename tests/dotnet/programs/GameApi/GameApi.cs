// GameApi: the in-game API (Xrpm.dll for .NET) used as a game would, for the .NET port's tests.
//   - every 20 frames a marker "Wave W" (W = frame / 20 + 1), in the frame it names;
//   - at frame 30, and then every 100 frames, RequestCapture("Wave W ended");
//   - every frame 100 GameApi.AiThing allocated inside Scope("AI") (and 10 GameApi.Nested inside
//     Scope("Path") nested in it), and 100 GameApi.Plain outside any scope.
// The frame method is GameApi.Program:Tick (xrpm-dotnet --frame GameApi.Program:Tick). Without
// the agent (plain `dotnet GameApi.dll`) the calls do nothing and never throw; the program says
// whether it is attached at start and again when that changes (after xrpm-dotnet --attach:
// "GameApi: attached True at frame N").
//
//   dotnet GameApi.dll [--frames K] [--odd]  (K = 0 or absent: until killed; --odd: null, empty,
//                                            long and unpaired-surrogate texts first)
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using Xrpm;

namespace GameApi {
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
      bool odd = false;
      for (int i = 0; i < args.Length; i++) {
        if (args[i] == "--frames" && i + 1 < args.Length && long.TryParse(args[i + 1], out frames)) i++;
        else if (args[i] == "--odd") odd = true;
        else { Console.Error.WriteLine("GameApi: unknown argument " + args[i]); return 2; }
      }
      Profiler.Scope(null).Dispose();
      if (odd) {  // the odd calls a game may make: null, empty and long text
        Profiler.Marker(null);
        Profiler.Marker("");
        Profiler.RequestCapture(null);
        Profiler.Marker(new string('x', 1000));
        Profiler.RequestCapture("\ud800 unpaired");
      }
      bool attached = Profiler.IsAttached;
      Console.Error.WriteLine("GameApi: attached " + attached);
      for (long f = 0; frames == 0 || f < frames; f++) {
        Tick();
        if (f == 1) Console.Error.WriteLine("GameApi: ready");
        if (!attached && Profiler.IsAttached) {
          attached = true;
          Console.Error.WriteLine("GameApi: attached True at frame " + f);
        }
        Thread.Sleep(10);
      }
      Console.Error.WriteLine("GameApi: done " + sink);
      return 0;
    }
  }
}

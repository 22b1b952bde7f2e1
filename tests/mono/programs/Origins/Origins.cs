// Origins: a program whose allocation origins are known by construction, for the Mono port's
// allocation-origin tests (xrpm-mono --allocations; frame method Origins.Program:Tick):
//   - M Origins.Early objects made before the first frame by Origins.Program.MakeEarly (alloc
//     frame 0), held by a static list;
//   - N Origins.Tracked objects, each with a byte[PAD] payload, made by
//     Origins.Maker.MakeTracked inside the frame method when K frames have completed (alloc frame
//     K), held by a static list; then GC.Collect() moves them out of the nursery and the program
//     writes "Origins: made N at frame K" to stderr;
//   - a little garbage every frame (Origins.Program.MakeGarbage), dropped at once.
//
//   mono Origins.exe N PAD K [M]
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Origins {
  public class Tracked { public int Index; public byte[] Payload; }
  public class Early { public int Index; }
  public class Garbage { public int A; }

  public static class Holder {
    public static List<Tracked> Tracked = new List<Tracked>();
    public static List<Early> Early = new List<Early>();
  }

  public static class Maker {
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void MakeTracked(int n, int pad) {
      for (int i = 0; i < n; i++) Holder.Tracked.Add(new Tracked { Index = i, Payload = new byte[pad] });
    }
  }

  public static class Program {
    static int n, pad, k;
    static long frame;
    static long sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeEarly(int m) {
      for (int i = 0; i < m; i++) Holder.Early.Add(new Early { Index = i });
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeGarbage() {
      for (int i = 0; i < 50; i++) {
        var g = new Garbage { A = i };
        sink += g.A;
      }
    }

    // One frame: garbage, and the tracked objects when K frames have completed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() {
      if (frame == k) Maker.MakeTracked(n, pad);
      MakeGarbage();
    }

    public static int Main(string[] args) {
      int m = 0;
      if (args.Length < 3 || !int.TryParse(args[0], out n) || !int.TryParse(args[1], out pad) ||
          !int.TryParse(args[2], out k) || (args.Length > 3 && !int.TryParse(args[3], out m))) {
        Console.Error.WriteLine("usage: Origins.exe N PAD K [M]");
        return 2;
      }
      MakeEarly(m);
      for (frame = 0; ; frame++) {
        Tick();
        if (frame == k) {
          GC.Collect();
          Console.Error.WriteLine("Origins: made " + n + " at frame " + k);
        }
        Thread.Sleep(16);
      }
    }
  }
}

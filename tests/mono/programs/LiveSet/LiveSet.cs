// LiveSet: a program whose live set is known by construction, for the Mono port's tests.
//   - N StaticHeld instances in a static list (declaring class LiveSet.Holder)
//   - M LocalHeld instances in an array held by a local of Main (the frame loop's caller)
//   - one pinned array of LiveSet.Blit (a pinned GC handle)
//   - one WeakOnly instance reachable only through a WeakReference (must not be captured)
//   - Garbage instances allocated and dropped every frame (must not be captured, up to what
//     conservative stack scanning keeps from the frame being left)
// About 300 KB of garbage per frame, so Mono collects several times a second.
// The frame method is LiveSet.Program:Tick (run it with xrpm-mono --frame LiveSet.Program:Tick),
// or pass --no-frame to run without one (captures then happen at the next safe point).
//
//   mono LiveSet.exe N M [--frames K] [--no-frame]
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace LiveSet {
  public class StaticHeld { public int Index; }
  public class LocalHeld { public int Index; }
  public class WeakOnly { public long Payload; }
  public class Garbage { public int A, B; public byte[] Pad; }
  public struct Blit { public int A; }

  public static class Holder {
    public static List<StaticHeld> Items = new List<StaticHeld>();
    public static WeakReference Weak;
    public static GCHandle Pinned;
  }

  public static class Program {
    static long allocated;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeWeak() { Holder.Weak = new WeakReference(new WeakOnly { Payload = 42 }); }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeGarbage() {
      for (int i = 0; i < 1000; i++) {
        var g = new Garbage { A = i, Pad = new byte[256] };
        allocated += g.A;
      }
    }

    // One frame: only garbage.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() { MakeGarbage(); }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Frame() { MakeGarbage(); }

    public static int Main(string[] args) {
      int n, m;
      if (args.Length < 2 || !int.TryParse(args[0], out n) || !int.TryParse(args[1], out m)) {
        Console.Error.WriteLine("usage: LiveSet.exe N M [--frames K] [--no-frame]");
        return 2;
      }
      long frames = 0;
      bool useFrame = true;
      for (int i = 2; i < args.Length; i++) {
        if (args[i] == "--frames" && i + 1 < args.Length && long.TryParse(args[i + 1], out frames)) i++;
        else if (args[i] == "--no-frame") useFrame = false;
        else { Console.Error.WriteLine("LiveSet: unknown argument " + args[i]); return 2; }
      }
      for (int i = 0; i < n; i++) Holder.Items.Add(new StaticHeld { Index = i });
      var local = new LocalHeld[m];
      for (int i = 0; i < m; i++) local[i] = new LocalHeld { Index = i };
      Holder.Pinned = GCHandle.Alloc(new Blit[16], GCHandleType.Pinned);
      MakeWeak();
      GC.Collect();
      // The console's first use (encoder, stream, JIT) happens here, before any frame, so that
      // "ready" follows a frame boundary closely.
      Console.Error.WriteLine("LiveSet: " + n + " static, " + m + " local");
      for (long f = 0; frames == 0 || f < frames; f++) {
        if (useFrame) Tick(); else Frame();
        // After the second frame: the frame method is compiled and has returned twice.
        if (f == 1) Console.Error.WriteLine("LiveSet: ready");
        Thread.Sleep(16);
      }
      GC.KeepAlive(local);
      Holder.Pinned.Free();
      return 0;
    }
  }
}

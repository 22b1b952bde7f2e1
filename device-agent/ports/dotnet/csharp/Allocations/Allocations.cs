// Allocations: allocation traffic known by construction, for the .NET port's allocation tests
// (tests/dotnet/dotnet_allocations_test.cpp) and its benchmark (bench/dotnet).
//
//   Allocations.dll frames [--frames N]
//     Runs frames (Allocations.Program:Tick: run it under xrpm-dotnet --frame
//     Allocations.Program:Tick) 16 ms apart; each frame allocates exactly 1,000
//     Allocations.Garbage (two ints: 24 bytes on a 64-bit runtime) in
//     Allocations.Program.MakeGarbage, and nothing else from frame 3 on. Writes "Allocations:
//     ready" and "Allocations: garbage size B" (the runtime's own figure: the bytes one Garbage
//     adds to GC.GetAllocatedBytesForCurrentThread) after the second frame (so in frame 2).
//     Meanwhile a background thread allocates Allocations.Background (100 every 5 ms) in
//     Allocations.Program.Worker: not the game thread's, so never in a frame's figures. With
//     --frames N it ends after N frames, writing "Allocations: jit-compiled methods M" (the
//     runtime's count: methods that ReadyToRun code did not cover).
//   Allocations.dll throwing [--frames N]
//     Frames of Allocations.Program:ThrowingTick, 2 ms apart, every third of which throws out of
//     the method (caught by the loop): the frame hook's exit call does not run for those.
//   Allocations.dll bench COUNT ROUNDS [--gate PATH]
//     ROUNDS rounds of COUNT allocations of Allocations.Small (32 bytes; one in 64 kept in a ring
//     of 4,096 so some survive a collection, as in a game) in Allocations.Program.Make; writes
//     (to stderr) "alloc_ns X" (wall time per allocation, collections included) after each
//     round, then "small_objects N small_bytes B total_bytes T": every Small the program
//     allocated and their bytes (N x one Small's size, measured as above), and
//     GC.GetTotalAllocatedBytes(true) at the end. With --gate (a named pipe the benchmark
//     writes to) it reads one line from PATH before starting and another before exiting, so a
//     host can subscribe first and collect every sample last.
using System;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Allocations {
  public class Garbage { public int A, B; }
  public class Small { public int A, B; public Small Next; }
  public class Background { public long A; }

  public static class Program {
    static long sink;
    static Small[] ring = new Small[4096];

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeGarbage() {
      for (int i = 0; i < 1000; i++) {
        var g = new Garbage { A = i };
        sink += g.A;
      }
    }

    // One frame: exactly 1,000 Garbage objects.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() { MakeGarbage(); }

    static int throwingFrames;

    // A frame method that throws out of every third frame (its caller catches it): the frame
    // hook's exit call never runs for those.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ThrowingTick() {
      MakeGarbage();
      if (++throwingFrames % 3 == 0)
        throw new InvalidOperationException("frame " + throwingFrames);
    }

    static int Throwing(string[] args) {
      long frames = 0;
      if (args.Length == 3 && args[1] == "--frames") long.TryParse(args[2], out frames);
      Console.Error.WriteLine("Allocations: throwing frames");
      int thrown = 0;
      for (long f = 0; frames == 0 || f < frames; f++) {
        try {
          ThrowingTick();
        } catch (InvalidOperationException) {
          thrown++;
        }
        Thread.Sleep(2);
      }
      Console.Error.WriteLine("Allocations: " + thrown + " frames threw");
      return 0;
    }

    // Another thread's allocations, all the time.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Worker() {
      for (;;) {
        for (int i = 0; i < 100; i++) {
          var b = new Background { A = i };
          Interlocked.Add(ref sink, b.A);
        }
        Thread.Sleep(5);
      }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static Small Make(int i) { return new Small { A = i }; }

    // The bytes one object adds to this thread's allocated bytes (the runtime's own count).
    static long SizeOf(Func<object> make) {
      make();  // compiled, its type loaded
      long before = GC.GetAllocatedBytesForCurrentThread();
      for (int i = 0; i < 1000; i++) make();
      return (GC.GetAllocatedBytesForCurrentThread() - before) / 1000;
    }

    static int Frames(string[] args) {
      long frames = 0;
      if (args.Length == 3 && args[1] == "--frames") long.TryParse(args[2], out frames);
      long garbageSize = SizeOf(() => new Garbage());
      new Thread(Worker) { IsBackground = true }.Start();
      Console.Error.WriteLine("Allocations: frames");
      for (long f = 0; frames == 0 || f < frames; f++) {
        Tick();
        // Between frames 1 and 2: counted in frame 2 (a frame ends when Tick returns).
        if (f == 1) {
          Console.Error.WriteLine("Allocations: ready");
          Console.Error.WriteLine("Allocations: garbage size " + garbageSize);
        }
        Thread.Sleep(16);
      }
      Console.Error.WriteLine("Allocations: jit-compiled methods " +
                              System.Runtime.JitInfo.GetCompiledMethodCount(false));
      return 0;
    }

    static int Bench(string[] args) {
      int count, rounds;
      if ((args.Length != 3 && (args.Length != 5 || args[3] != "--gate")) ||
          !int.TryParse(args[1], out count) || !int.TryParse(args[2], out rounds) || count < 1 ||
          rounds < 1) {
        Console.Error.WriteLine("usage: Allocations.dll bench COUNT ROUNDS [--gate PATH]");
        return 2;
      }
      StreamReader gate = args.Length == 5 ? new StreamReader(args[4]) : null;
      if (gate != null) gate.ReadLine();
      long smallSize = SizeOf(() => new Small());  // 1,001 Small
      Make(0);
      for (int r = 0; r < rounds; r++) {
        var sw = Stopwatch.StartNew();
        Small prev = null;
        for (int i = 0; i < count; i++) {
          var s = Make(i);
          s.Next = prev;
          prev = (i & 63) == 0 ? s : null;
          if ((i & 63) == 0) ring[(i >> 6) & 4095] = s;
        }
        sw.Stop();
        Console.Error.WriteLine("alloc_ns " +
                                (sw.Elapsed.TotalMilliseconds * 1e6 / count).ToString("F2"));
      }
      long smallObjects = (long)count * rounds + 1002;  // + SizeOf's and Make(0)'s
      Console.Error.WriteLine("small_objects " + smallObjects + " small_bytes " +
                              (smallSize * smallObjects) + " total_bytes " +
                              GC.GetTotalAllocatedBytes(true));
      if (gate != null) gate.ReadLine();
      return 0;
    }

    public static int Main(string[] args) {
      if (args.Length >= 1 && args[0] == "frames") return Frames(args);
      if (args.Length >= 1 && args[0] == "bench") return Bench(args);
      if (args.Length >= 1 && args[0] == "throwing") return Throwing(args);
      Console.Error.WriteLine(
          "usage: Allocations.dll frames [--frames N] | throwing [--frames N] | bench COUNT ROUNDS");
      return 2;
    }
  }
}

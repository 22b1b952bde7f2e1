// AllocBench: the allocation path's cost, for the Mono port's benchmark (bench/mono,
// docs/PERFORMANCE.md): ROUNDS rounds of COUNT allocations of a 32-byte object (one in 64 kept
// in a ring of 4,096 so some survive a collection, as in a game); prints "alloc_ns X" (wall time
// per allocation, collections included) after each round, then exits.
//
//   mono AllocBench.exe COUNT ROUNDS
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace AllocBench {
  public class Small { public int A, B; public Small Next; }

  public static class Bench {
    static Small[] ring = new Small[4096];

    [MethodImpl(MethodImplOptions.NoInlining)]
    static Small Make(int i) { return new Small { A = i }; }

    public static int Main(string[] args) {
      int count, rounds;
      if (args.Length < 2 || !int.TryParse(args[0], out count) || !int.TryParse(args[1], out rounds) ||
          count < 1 || rounds < 1) {
        Console.Error.WriteLine("usage: AllocBench.exe COUNT ROUNDS");
        return 2;
      }
      Make(0);  // JIT it
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
        Console.Out.WriteLine("alloc_ns " + (sw.Elapsed.TotalMilliseconds * 1e6 / count).ToString("F2"));
        Console.Out.Flush();
      }
      return 0;
    }
  }
}

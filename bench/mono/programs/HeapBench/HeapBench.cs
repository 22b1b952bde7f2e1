// HeapBench: a C# heap of a given number of live objects and references, for the Mono port's
// benchmark (bench/, docs/PERFORMANCE.md). Each Node has three references (to pseudo-random
// other nodes), so N nodes give 3 N references. It runs frames of the default frame method
// (Microsoft.Xna.Framework.Game is not linked here, so the frame method is HeapBench.Bench:Tick)
// and, on its standard input, answers:
//   "gc"     -> times a plain GC.Collect() of the same heap and prints "gc_us N"
//   "quit"   -> exits
//
//   mono HeapBench.exe NODES
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace HeapBench {
  public class Node { public Node A, B, C; public int Value; }

  public static class Bench {
    static Node[] nodes;
    static volatile bool quit;
    static int gcRequests;
    public static long Frames;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() { Frames++; }

    public static int Main(string[] args) {
      int n;
      if (args.Length < 1 || !int.TryParse(args[0], out n) || n < 1) {
        Console.Error.WriteLine("usage: HeapBench.exe NODES");
        return 2;
      }
      nodes = new Node[n];
      for (int i = 0; i < n; i++) nodes[i] = new Node { Value = i };
      uint x = 2463534242;
      for (int i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        nodes[i].A = nodes[x % (uint)n];
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        nodes[i].B = nodes[x % (uint)n];
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        nodes[i].C = nodes[x % (uint)n];
      }
      GC.Collect();
      var reader = new Thread(() => {
        string line;
        while ((line = Console.In.ReadLine()) != null) {
          if (line == "gc") Interlocked.Increment(ref gcRequests);
          else if (line == "quit") break;
        }
        quit = true;
      });
      reader.IsBackground = true;
      reader.Start();
      Console.Out.WriteLine("ready " + n);
      Console.Out.Flush();
      while (!quit) {
        Tick();
        if (Volatile.Read(ref gcRequests) > 0) {
          Interlocked.Decrement(ref gcRequests);
          var sw = Stopwatch.StartNew();
          GC.Collect();
          sw.Stop();
          Console.Out.WriteLine("gc_us " + (long)(sw.Elapsed.TotalMilliseconds * 1000));
          Console.Out.Flush();
        }
        Thread.Sleep(16);
      }
      GC.KeepAlive(nodes);
      return 0;
    }
  }
}

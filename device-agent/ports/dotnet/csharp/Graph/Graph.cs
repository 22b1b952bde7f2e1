// Graph: a .NET program whose live set is known by construction, for the .NET port's tests.
//   - N Graph.Item instances in a static List<Graph.Item> (Graph.Holder.Items)
//   - M Graph.Entry instances, values of a static Dictionary<string, Graph.Entry> whose keys are
//     M strings made at run time ("key-0", ...)
//   - K Graph.Node instances in a Graph.Node[] held by a local of Main
//   - 10 Graph.StaticOnly instances in a static List<Graph.StaticOnly> (Graph.Holder.Planted)
//     that only a method Main calls touches, so no frame of Main's holds it: only the static
//   - one Graph.Blit[] held by a pinned GC handle
//   - one Graph.WeakOnly reachable only through a WeakReference (must not be captured)
//   - G Graph.Garbage instances made and dropped before "ready" (must not be captured)
//   - one Graph.Sample with known field values (Graph.Holder.Sample): Count 42, Alive true,
//     Mood Mood.Happy (an enum of bytes), Day DayOfWeek.Friday (an enum of the base library),
//     Label "sample-N" (made at run time), Title "a literal title" (a literal: on the non-GC
//     heap), Numbers an int[7], Position a Graph.Point (1.5, -2) embedded in it, Friend the first
//     Graph.Item, Maybe 5 (an int?), Pair ("pair", the second Graph.Item): generic structs
// With --thread-statics: 3 Graph.PerThread instances in Main's thread's [ThreadStatic]
// List<Graph.PerThread> (Graph.Holder.Mine) and 5 in the same field of a thread named
// "graph-worker", which waits until Main is let go; nothing else holds them.
// With --collect: a GC.Collect() before "ready" (the runtime has then measured its heap once).
// It writes "Graph: ready" to stderr, then opens the file given by --gate (a named pipe the test
// made and holds open) and reads one line from it, which holds it there until the test writes
// that line; then it writes "Graph: done" and exits with 0.
//
//   dotnet Graph.dll N M K --gate PATH [--thread-statics | --collect]
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Graph {
  public class Item { public int Index; public string Label; }
  public class Entry { public int Value; }
  public class Node { public Node Next; public int Index; }
  public class WeakOnly { public long Payload; }
  public class StaticOnly { public int Index; }
  public class PerThread { public int Index; }
  public class Garbage { public int A; public byte[] Pad; }
  public struct Blit { public int A; }
  public enum Mood : byte { Calm = 1, Happy = 7 }
  public struct Point { public float X; public float Y; }
  public class Sample {
    public int Count;
    public bool Alive;
    public Mood Mood;
    public DayOfWeek Day;
    public string Label;
    public string Title;
    public int[] Numbers;
    public Point Position;
    public Item Friend;
    public int? Maybe;
    public KeyValuePair<string, Item> Pair;
  }

  public static class Holder {
    public static List<Item> Items = new List<Item>();
    public static Dictionary<string, Entry> Entries = new Dictionary<string, Entry>();
    public static List<StaticOnly> Planted;
    public static WeakReference Weak;
    public static GCHandle Pinned;
    public static Sample Sample;
    [ThreadStatic] public static List<PerThread> Mine;
  }

  public static class Program {
    static long sink;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeWeak() { Holder.Weak = new WeakReference(new WeakOnly { Payload = 42 }); }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakePlanted() {
      var planted = new List<StaticOnly>();
      for (int i = 0; i < 10; i++) planted.Add(new StaticOnly { Index = i });
      Holder.Planted = planted;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeGarbage(int count) {
      for (int i = 0; i < count; i++) {
        var g = new Garbage { A = i, Pad = new byte[64] };
        sink += g.A;
      }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static Node[] MakeNodes(int k) {
      var nodes = new Node[k];
      for (int i = 0; i < k; i++) nodes[i] = new Node { Index = i, Next = i > 0 ? nodes[i - 1] : null };
      return nodes;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void FillMine(int count) {
      var mine = new List<PerThread>();
      for (int i = 0; i < count; i++) mine.Add(new PerThread { Index = i });
      Holder.Mine = mine;
    }

    public static int Main(string[] args) {
      bool threadStatics = args.Length == 6 && args[5] == "--thread-statics";
      bool collect = args.Length == 6 && args[5] == "--collect";
      if ((args.Length != 5 && !threadStatics && !collect) || args[3] != "--gate" ||
          !int.TryParse(args[0], out int n) || !int.TryParse(args[1], out int m) ||
          !int.TryParse(args[2], out int k)) {
        Console.Error.WriteLine("usage: Graph N M K --gate PATH [--thread-statics | --collect]");
        return 2;
      }
      System.Threading.ManualResetEventSlim release = null;
      System.Threading.Thread worker = null;
      if (threadStatics) {
        release = new System.Threading.ManualResetEventSlim(false);
        FillMine(3);
        var filled = new System.Threading.ManualResetEventSlim(false);
        worker = new System.Threading.Thread(() => {
          FillMine(5);
          filled.Set();
          release.Wait();
        }) { Name = "graph-worker", IsBackground = true };
        worker.Start();
        filled.Wait();
      }
      for (int i = 0; i < n; i++) Holder.Items.Add(new Item { Index = i, Label = null });
      for (int i = 0; i < m; i++) Holder.Entries.Add("key-" + i, new Entry { Value = i });
      Node[] nodes = MakeNodes(k);
      Holder.Sample = new Sample {
        Count = 42, Alive = true, Mood = Mood.Happy, Day = DayOfWeek.Friday, Label = "sample-" + n,
        Title = "a literal title", Numbers = new int[7], Position = new Point { X = 1.5f, Y = -2f },
        Friend = n > 0 ? Holder.Items[0] : null, Maybe = 5,
        Pair = new KeyValuePair<string, Item>("pair", n > 1 ? Holder.Items[1] : null)
      };
      Holder.Pinned = GCHandle.Alloc(new Blit[16], GCHandleType.Pinned);
      MakeWeak();
      MakePlanted();
      MakeGarbage(1000);
      Console.Error.WriteLine("Graph: " + n + " items, " + m + " entries, " + k + " nodes");
      if (collect) GC.Collect();
      Console.Error.WriteLine("Graph: ready");
      using (var gate = new StreamReader(args[4])) gate.ReadLine();
      GC.KeepAlive(nodes);
      release?.Set();
      worker?.Join();
      Console.Error.WriteLine("Graph: done");
      return 0;
    }
  }
}

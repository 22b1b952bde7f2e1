// Domains: a program with AppDomains whose contents are known by construction, for the Mono
// port's AppDomain sections (tests/mono/mono_domains_test.cpp).
//   - the root domain holds R RootHeld instances in a static list (Domains.RootHolder)
//   - the domain "Worker" holds W WorkerHeld instances in the same kind of static list
//     (Domains.WorkerHolder), allocated by code running in that domain
//   - the domain "Doomed" is created, holds D DoomedHeld instances and is unloaded before
//     "ready": none of its objects may be captured
// The frame method is Domains.Program:Tick (xrpm-mono --frame Domains.Program:Tick); each
// frame drops some garbage in the root domain.
//
//   mono Domains.exe R W D [--frames K]
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Domains {
  public class RootHeld { public int Index; }
  public class WorkerHeld { public int Index; public string Label; }
  public class DoomedHeld { public int Index; }

  public static class RootHolder { public static List<RootHeld> Items = new List<RootHeld>(); }
  public static class WorkerHolder { public static List<WorkerHeld> Items = new List<WorkerHeld>(); }
  public static class DoomedHolder { public static List<DoomedHeld> Items = new List<DoomedHeld>(); }

  // Runs in the domain it is created in (by name, through AppDomain.DoCallBack).
  public class Filler : MarshalByRefObject {
    public void FillWorker(int n) {
      for (int i = 0; i < n; i++) WorkerHolder.Items.Add(new WorkerHeld { Index = i, Label = "w" + i });
    }
    public void FillDoomed(int n) {
      for (int i = 0; i < n; i++) DoomedHolder.Items.Add(new DoomedHeld { Index = i });
    }
  }

  public static class Program {
    static long allocated;

    static Filler FillerIn(AppDomain d) {
      return (Filler)d.CreateInstanceAndUnwrap(typeof(Filler).Assembly.FullName, typeof(Filler).FullName);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() {
      for (int i = 0; i < 200; i++) allocated += new byte[64].Length;
    }

    public static int Main(string[] args) {
      int r, w, d;
      if (args.Length < 3 || !int.TryParse(args[0], out r) || !int.TryParse(args[1], out w) ||
          !int.TryParse(args[2], out d)) {
        Console.Error.WriteLine("usage: Domains.exe R W D [--frames K]");
        return 2;
      }
      long frames = 0;
      for (int i = 3; i < args.Length; i++) {
        if (args[i] == "--frames" && i + 1 < args.Length && long.TryParse(args[i + 1], out frames)) i++;
        else { Console.Error.WriteLine("Domains: unknown argument " + args[i]); return 2; }
      }
      for (int i = 0; i < r; i++) RootHolder.Items.Add(new RootHeld { Index = i });
      AppDomain worker = AppDomain.CreateDomain("Worker");
      FillerIn(worker).FillWorker(w);
      AppDomain doomed = AppDomain.CreateDomain("Doomed");
      FillerIn(doomed).FillDoomed(d);
      AppDomain.Unload(doomed);
      GC.Collect();
      GC.WaitForPendingFinalizers();
      Console.Error.WriteLine("Domains: " + r + " root, " + w + " worker, " + d + " unloaded");
      for (long f = 0; frames == 0 || f < frames; f++) {
        Tick();
        if (f == 1) Console.Error.WriteLine("Domains: ready");
        Thread.Sleep(16);
      }
      AppDomain.Unload(worker);
      return 0;
    }
  }
}

// Mistakes: a small game whose heap holds each mistake `xrpm inspect` finds, a known
// number of times, next to near-misses that must not be reported. The same source runs under
// Mono (tests/mono/mono_inspect_test.cpp, built by mcs) and CoreCLR
// (tests/dotnet/dotnet_inspect_test.cpp, built by the .NET SDK from
// device-agent/ports/dotnet/csharp/Mistakes), with the same plan as the emulator's `mistakes`
// scenario:
//
//   duplicate-strings   the text "Grunt #" built at run time into 5 Enemy.Name strings; near-miss
//                       "Boss #" built once
//   event-handler-leaks 4 Enemy subscribed to the static event GameEvents.EnemyKilled and held
//                       nowhere else; near-miss: a subscriber the game's enemy list also holds
//   disposed-but-held   2 Texture with _disposed = true held by the game; near-misses: one in
//                       use, one disposed and dropped
//   sparse-collections  List<Enemy> SpawnQueue: 1 of 32; 9 empty List<int>(4096) in Scores;
//                       Dictionary<int, Enemy>, HashSet<Enemy> (100 added, then cleared: their
//                       buckets stay), Queue<Enemy>(64) and Stack<Enemy>(64) empty, one of each;
//                       near-misses: List<Enemy> Enemies 5 of 16 (31 %), Reserve 12 of 20 (60 %),
//                       a List<int>(4096) of 2000, a Dictionary<int, Enemy> of 10 in 11 buckets
//   boxed-values        40 boxed Hit (a struct of the game that no field declares: only the
//                       runtime's type traits tell it is one) in an object[]; 3 boxed Weapon (an
//                       enum of the game) in an object[]; near-misses: a box of each dropped, and
//                       40 Hit stored inline in a Hit[] (no boxes)
//   finalizable         2 SoundHandle (a class with a finalizer) held by the game; near-miss:
//                       Enemy, Texture (no finalizer)
//
// Everything is planted by Setup, a frame of its own that has returned before any capture: no
// stale local of it can keep a near-miss alive (a conservative stack scan, Mono's, would see
// one; docs/INSPECTIONS.md). The frame method is Mistakes.Program:Tick.
//
//   mono Mistakes.exe          dotnet Mistakes.dll
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Mistakes {
  public enum Weapon { Sword = 1, Bow = 2, Staff = 3 }

  public struct Hit {
    public int Damage;
    public float X;
  }

  public class Enemy {
    public string Name;
    public int Health = 100;
    public Enemy(string name) { Name = name; }
    public void OnEnemyKilled(object sender, EventArgs e) { Health = 0; }
  }

  public class Texture : IDisposable {
    public string Asset;
    public int Width = 256;
    bool _disposed;
    public Texture(string asset) { Asset = asset; }
    public bool IsDisposed { get { return _disposed; } }
    public void Dispose() { _disposed = true; }
  }

  // A handle to a native sound: the finalizer XNA's guidance says to keep off gameplay objects.
  public class SoundHandle {
    public int Handle;
    public SoundHandle(int handle) { Handle = handle; }
    ~SoundHandle() { Handle = 0; }
  }

  public static class GameEvents {
    public static event EventHandler EnemyKilled;
    public static void Subscribe(Enemy e) { EnemyKilled += e.OnEnemyKilled; }
    public static void Raise() {  // never called while the test runs: the leak stays
      EventHandler h = EnemyKilled;
      if (h != null) h(null, EventArgs.Empty);
    }
  }

  public class Game {
    public static Game Instance;
    public List<Enemy> Enemies = new List<Enemy>(16);
    public List<Enemy> SpawnQueue = new List<Enemy>(32);
    public List<Enemy> Reserve = new List<Enemy>(20);
    public Texture[] Textures = new Texture[2];
    public Texture Background = new Texture("sky");
    public object[] Loadout = new object[3];
    public object[] Hits = new object[40];
    public Hit[] HitLog = new Hit[40];
    public SoundHandle[] Sounds = { new SoundHandle(1), new SoundHandle(2) };
    public Enemy Boss;
    public List<int>[] Scores = new List<int>[10];
    public Dictionary<int, Enemy> ById = new Dictionary<int, Enemy>();
    public Dictionary<int, Enemy> Squad = new Dictionary<int, Enemy>(10);
    public HashSet<Enemy> Targets = new HashSet<Enemy>();
    public Queue<Enemy> Waves = new Queue<Enemy>(64);
    public Stack<Enemy> Undo = new Stack<Enemy>(64);
    public int[,] Grid = new int[4, 4];  // a type trait: array rank 2 of System.Int32
  }

  public static class Program {
    // Built at run time: each call a new string object (literals would be one interned copy).
    static string Named(string stem, int n) { return stem + " #" + (n > 0 ? "" : "?"); }

    // Boxes nothing keeps: made in a frame of their own, gone when it returns.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void DropBoxes() {
      object weapon = Weapon.Bow;
      Hit h = new Hit();
      h.Damage = -1;
      object hit = h;
      GC.KeepAlive(weapon);
      GC.KeepAlive(hit);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Setup() {
      var g = new Game();
      Game.Instance = g;
      for (int i = 0; i < 5; i++) {
        var e = new Enemy(Named("Grunt", i + 1));
        g.Enemies.Add(e);
        if (i == 0) GameEvents.Subscribe(e);
      }
      for (int i = 0; i < 4; i++) GameEvents.Subscribe(new Enemy("Ghost " + (i + 1)));
      g.Boss = new Enemy(Named("Boss", 1));
      g.SpawnQueue.Add(new Enemy("Runner " + 1));
      for (int i = 0; i < 12; i++) g.Reserve.Add(new Enemy("Reserve " + (i + 1)));
      for (int i = 0; i < 10; i++) g.Scores[i] = new List<int>(4096);
      for (int i = 0; i < 2000; i++) g.Scores[9].Add(i);
      for (int i = 0; i < 100; i++) {
        g.ById.Add(i, g.Enemies[i % 5]);
        g.Targets.Add(new Enemy("Target " + i));
      }
      g.ById.Clear();
      g.Targets.Clear();
      for (int i = 0; i < 10; i++) g.Squad.Add(i, g.Reserve[i]);
      g.Textures[0] = new Texture("level1");
      g.Textures[1] = new Texture("level2");
      g.Textures[0].Dispose();
      g.Textures[1].Dispose();
      new Texture("old").Dispose();
      Weapon[] kinds = { Weapon.Sword, Weapon.Bow, Weapon.Staff };
      for (int i = 0; i < 3; i++) g.Loadout[i] = kinds[i];
      for (int i = 0; i < 40; i++) {
        Hit h = new Hit();
        h.Damage = i;
        h.X = i * 0.5f;
        g.Hits[i] = h;
        g.HitLog[i] = h;
      }
      DropBoxes();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() { System.Threading.Thread.Sleep(5); }

    public static int Main(string[] args) {
      Setup();
      Console.Error.WriteLine("Mistakes: ready");
      for (;;) Tick();
    }
  }
}

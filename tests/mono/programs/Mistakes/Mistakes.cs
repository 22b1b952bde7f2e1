// Mistakes: a small game whose heap holds each mistake `xrpm inspect` finds, a known
// number of times, next to near-misses that must not be reported; for
// tests/mono/mono_inspect_test.cpp (the same plan as the emulator's `mistakes` scenario):
//
//   duplicate-strings   the text "Grunt #" built at run time into 5 Enemy.Name strings; near-miss
//                       "Boss #" built once
//   event-handler-leaks 4 Enemy subscribed to the static event GameEvents.EnemyKilled and held
//                       nowhere else; near-miss: a subscriber the game's enemy list also holds
//   disposed-but-held   2 Texture with _disposed = true held by the game; near-misses: one in
//                       use, one disposed and dropped
//   sparse-collections  List<Enemy> SpawnQueue: 1 of 32; near-miss: List<Enemy> Enemies 5 of 16;
//                       9 empty List<int>(4096) in Scores; near-miss: a List<int>(4096) of 2000
//   boxed-values        3 boxed Weapon (an enum of the game) in an object[]; near-miss: a box
//                       dropped
//   finalizable         2 SoundHandle (a class with a finalizer) held by the game; near-miss:
//                       Enemy, Texture (no finalizer)
//
// The frame method is Mistakes.Program:Tick.
//
//   mono Mistakes.exe
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Mistakes {
  public enum Weapon { Sword = 1, Bow = 2, Staff = 3 }

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
  }

  public class Game {
    public static Game Instance;
    public List<Enemy> Enemies = new List<Enemy>(16);
    public List<Enemy> SpawnQueue = new List<Enemy>(32);
    public Texture[] Textures = new Texture[2];
    public Texture Background = new Texture("sky");
    public object[] Loadout = new object[3];
    public SoundHandle[] Sounds = { new SoundHandle(1), new SoundHandle(2) };
    public Enemy Boss;
    public List<int>[] Scores = new List<int>[10];
  }

  public static class Program {
    // Built at run time: each call a new string object (literals would be one interned copy).
    static string Named(string stem, int n) { return stem + " #" + (n > 0 ? "" : "?"); }

    // A box nothing keeps: made in a frame of its own, gone when it returns.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void DropABox() {
      object dropped = Weapon.Bow;
      GC.KeepAlive(dropped);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() { System.Threading.Thread.Sleep(5); }

    public static int Main(string[] args) {
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
      for (int i = 0; i < 10; i++) g.Scores[i] = new List<int>(4096);
      for (int i = 0; i < 2000; i++) g.Scores[9].Add(i);
      g.Textures[0] = new Texture("level1");
      g.Textures[1] = new Texture("level2");
      g.Textures[0].Dispose();
      g.Textures[1].Dispose();
      new Texture("old").Dispose();
      Weapon[] kinds = { Weapon.Sword, Weapon.Bow, Weapon.Staff };
      for (int i = 0; i < 3; i++) g.Loadout[i] = kinds[i];
      DropABox();
      Console.Error.WriteLine("Mistakes: ready");
      for (;;) Tick();
    }
  }
}

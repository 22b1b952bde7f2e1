// XnaBubbles: the xrpm sample game for the Mono port, XNA-shaped: bubbles float up and pop,
// particles burst from popped bubbles, a HUD string is rebuilt every frame (garbage), and
// the leak scenario: each bubble subscribes to a static event when it spawns and never
// unsubscribes, so popped bubbles stay reachable from GameEvents.ScoreChanged.
//
//   mono XnaBubbles.exe [--frames N] [--fps N] [--no-leak] [--collect-at N]
// --fps 0 runs frames back to back and prints "XnaBubbles: N frames in S s (cpu C s)" at the end
// (C: the process's processor time over the frames, every thread).
// --collect-at N forces a full collection (GC.Collect(2)) in the update of frame N (from 0).
using System;
using System.Collections.Generic;
using Microsoft.Xna.Framework;

namespace XnaBubbles {
  public struct Vector2 {
    public float X, Y;
    public Vector2(float x, float y) { X = x; Y = y; }
  }

  public static class GameEvents {
    // The leak: a static event keeps every subscriber alive.
    public static event EventHandler ScoreChanged;
    public static void RaiseScoreChanged() {
      var h = ScoreChanged;
      if (h != null) h(null, EventArgs.Empty);
    }
  }

  public class Bubble {
    public Vector2 Position, Velocity;
    public float Radius;
    public bool Popped;
    public string Label;
    public int ScoreSeen;
    public void OnScoreChanged(object sender, EventArgs e) { ScoreSeen++; }
  }

  public class Particle {
    public Vector2 Position, Velocity;
    public float Life;
  }

  public class Hud {
    public string Text = "";
    public List<string> Lines = new List<string>();
  }

  public class BubblesGame : Game {
    readonly Random random = new Random(1234);
    readonly List<Bubble> bubbles = new List<Bubble>();
    readonly List<Particle> particles = new List<Particle>();
    readonly Hud hud = new Hud();
    readonly bool leak;
    readonly long frames;
    readonly long collectAt;
    int score;

    public BubblesGame(long frames, bool leak, long collectAt) {
      this.frames = frames;
      this.collectAt = collectAt;
      this.leak = leak;
    }

    protected override void Initialize() {
      for (int i = 0; i < 200; i++) Spawn();
    }

    void Spawn() {
      var b = new Bubble {
        Position = new Vector2((float)random.NextDouble() * 1280, 720),
        Velocity = new Vector2(0, -1 - (float)random.NextDouble() * 3),
        Radius = 8 + (float)random.NextDouble() * 24,
        Label = "bubble #" + bubbles.Count,
      };
      if (leak) GameEvents.ScoreChanged += b.OnScoreChanged;
      bubbles.Add(b);
    }

    protected override void Update(GameTime gameTime) {
      for (int i = bubbles.Count - 1; i >= 0; i--) {
        Bubble b = bubbles[i];
        b.Position.Y += b.Velocity.Y;
        if (b.Position.Y < 0 || random.Next(600) == 0) {
          b.Popped = true;
          bubbles.RemoveAt(i);
          score++;
          for (int p = 0; p < 12; p++)
            particles.Add(new Particle {
              Position = b.Position,
              Velocity = new Vector2((float)random.NextDouble() * 4 - 2, (float)random.NextDouble() * 4 - 2),
              Life = 1f,
            });
          GameEvents.RaiseScoreChanged();
          Spawn();
        }
      }
      for (int i = particles.Count - 1; i >= 0; i--) {
        Particle p = particles[i];
        p.Life -= 1f / 30;
        if (p.Life <= 0) particles.RemoveAt(i);
      }
      if (FrameCount == 0) Console.Error.WriteLine("XnaBubbles: running");  // the first frame
      if (FrameCount == collectAt) GC.Collect(2);  // a full collection in a known frame
      if (frames > 0 && FrameCount + 1 >= frames) Exit();
    }

    protected override void Draw(GameTime gameTime) {
      hud.Text = "Score: " + score + "  Bubbles: " + bubbles.Count + "  Particles: " + particles.Count +
                 "  Time: " + gameTime.TotalGameTime.TotalSeconds.ToString("F1");
      hud.Lines.Clear();
      hud.Lines.Add(hud.Text);
      hud.Lines.Add("frame " + FrameCount);
    }
  }

  public static class Program {
    public static int Main(string[] args) {
      long frames = 0;
      int fps = 60;
      bool leak = true;
      long collectAt = -1;
      for (int i = 0; i < args.Length; i++) {
        if (args[i] == "--frames" && i + 1 < args.Length && long.TryParse(args[i + 1], out frames)) {
          i++;
        } else if (args[i] == "--fps" && i + 1 < args.Length && int.TryParse(args[i + 1], out fps) && fps >= 0) {
          i++;
        } else if (args[i] == "--collect-at" && i + 1 < args.Length && long.TryParse(args[i + 1], out collectAt)) {
          i++;
        } else if (args[i] == "--no-leak") {
          leak = false;
        } else {
          Console.Error.WriteLine("XnaBubbles: unknown argument '" + args[i] +
                                  "' (expected --frames N, --fps N, --no-leak, --collect-at N)");
          return 2;
        }
      }
      var game = new BubblesGame(frames, leak, collectAt);
      game.TargetElapsedTime = TimeSpan.FromTicks(TimeSpan.TicksPerSecond / (fps == 0 ? 60 : fps));
      game.Unthrottled = fps == 0;
      var clock = System.Diagnostics.Stopwatch.StartNew();
      var cpu = System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
      game.Run();
      if (fps == 0) {
        cpu = System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime - cpu;
        Console.Error.WriteLine("XnaBubbles: " + game.FrameCount + " frames in " +
                                clock.Elapsed.TotalSeconds.ToString("F3") + " s (cpu " +
                                cpu.TotalSeconds.ToString("F3") + " s)");
      }
      return 0;
    }
  }
}

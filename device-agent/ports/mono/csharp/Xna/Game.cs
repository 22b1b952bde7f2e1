// A minimal stand-in for Microsoft.Xna.Framework.Game (XNA itself is not available on Linux):
// the same fixed-step loop shape as XNA, MonoGame and FNA, so the xrpm Mono agent's default
// frame method, Microsoft.Xna.Framework.Game:Tick, exists. Tick runs one Update and one Draw.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Microsoft.Xna.Framework {
  public class GameTime {
    public TimeSpan TotalGameTime;
    public TimeSpan ElapsedGameTime;
  }

  public class Game {
    readonly GameTime time = new GameTime();
    readonly Stopwatch clock = Stopwatch.StartNew();
    bool exiting;

    public TimeSpan TargetElapsedTime = TimeSpan.FromTicks(TimeSpan.TicksPerSecond / 60);
    // Frames back to back, no waiting (game time still advances TargetElapsedTime a frame).
    public bool Unthrottled;
    public long FrameCount { get; private set; }

    protected virtual void Initialize() {}
    protected virtual void Update(GameTime gameTime) {}
    protected virtual void Draw(GameTime gameTime) {}
    public void Exit() { exiting = true; }

    // Runs frames at the target rate until Exit() is called.
    public void Run() {
      Initialize();
      TimeSpan next = clock.Elapsed;
      while (!exiting) {
        Tick();
        next += TargetElapsedTime;
        TimeSpan wait = next - clock.Elapsed;
        if (Unthrottled)
          continue;
        if (wait > TimeSpan.Zero)
          Thread.Sleep(wait);
        else
          next = clock.Elapsed;  // running late: do not try to catch up
      }
    }

    // One frame: Update then Draw. The xrpm agent serves heap captures when it returns.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Tick() {
      time.ElapsedGameTime = TargetElapsedTime;
      time.TotalGameTime += TargetElapsedTime;
      Update(time);
      Draw(time);
      FrameCount++;
    }
  }
}

// Fields: a program whose objects hold known values, for the Mono port's fields and values
// test (tests/mono/mono_fields_test.cpp): one Sample with every primitive kind at a known value,
// enums (Int32, Byte and Int64 based, members known), strings with non-ASCII text, an unpaired
// surrogate and more characters than the capture's default cap, a struct inside a class (flattened
// to position.X / position.Y), an array of structs, static fields, and a static event with three
// Subscriber handlers. The frame method is Fields.Program:Tick. With a path argument, once that
// file exists the program loads a class it never used before (Fields.LateLoaded), holds one
// instance of it and prints "Fields: late" (a type loaded between two captures).
//
//   mono Fields.exe [LATE_FILE]
using System;
using System.Runtime.CompilerServices;

namespace Fields {
  public enum Color { Red = 0, Green = 1, Blue = 7 }
  public enum Small : byte { None = 0, Some = 200 }
  public enum Big : long { Low = -5000000000, High = 5000000000 }

  public struct Vec2 { public float X, Y; }
  public struct Cell { public int Id; public string Tag; }

  public class Sample {
    public bool Flag = true;
    public char Letter = '\u00e9';
    public sbyte SmallSigned = -100;
    public byte Octet = 250;
    public short Short = -30000;
    public ushort UShort = 60000;
    public int Int = -123456789;
    public uint UInt = 4000000000;
    public long Long = -9000000000000000000;
    public ulong ULong = 18000000000000000000;
    public IntPtr Pointer = new IntPtr(-42);
    public float Single = 1.5f;
    public double Double = -2.25;
    public Color Color = Color.Blue;
    public Small Small = Small.Some;
    public Big Big = Big.Low;
    public Vec2 Position = new Vec2 { X = 3.5f, Y = -7.25f };
    public string Name = "Bubble 42";
    public string Accented = "Gr\u00fc\u00dfe, \u4e16\u754c \U0001F600";
    public string Lone = "a\ud800b";
    public string Long2000 = new string('x', 2000);
    public Cell[] Cells = { new Cell { Id = 1, Tag = "one" }, new Cell { Id = 2, Tag = "two" } };
    public Sample Next;
  }

  public class Subscriber {
    public int Index;
    public Subscriber(int i) { Index = i; }
    public void OnPopped(object sender, EventArgs e) { }
  }

  // Loaded only by MakeLate (nothing else names it, so neither a field's type nor the JIT loads
  // it earlier).
  public class LateLoaded {
    public int Stamp = 12345;
    public string Label = "late";
    public Color Shade = Color.Green;
  }

  public static class Game {
    public static Sample Instance;
    public static int Counter = 7;
    public static event EventHandler Popped;
    public static object Extra;  // object: naming LateLoaded here would load it with Game
    public static void Subscribe(Subscriber s) { Popped += s.OnPopped; }
  }

  public static class Program {
    static long ticks;
    static string lateFile;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeLate() {
      Game.Extra = new LateLoaded();
      Console.Error.WriteLine("Fields: late");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Tick() {
      var garbage = new byte[1024];
      ticks += garbage.Length;
      System.Threading.Thread.Sleep(5);
      if (lateFile != null && System.IO.File.Exists(lateFile)) {
        lateFile = null;
        MakeLate();
      }
    }

    public static int Main(string[] args) {
      if (args.Length > 0) lateFile = args[0];
      Game.Instance = new Sample();
      Game.Instance.Next = new Sample { Name = "Bubble 7", Flag = false };
      for (int i = 0; i < 3; i++) Game.Subscribe(new Subscriber(i));
      Console.Error.WriteLine("Fields: ready");
      for (;;) Tick();
    }
  }
}

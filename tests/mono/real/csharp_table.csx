// Input of Mono's `csharp` shell for tests/mono/mono_real_programs_test.cpp: a table of known
// size held by the shell's session, then a wait (for a file the test creates once it has
// captured) so the captures happen while the shell holds the table.
public class TableRow { public int Key; public string Name; }
var table = new System.Collections.Generic.List<TableRow>();
for (int i = 0; i < 5000; i++) table.Add(new TableRow { Key = i, Name = "row" + i });
System.Console.Error.WriteLine("csharp: table of " + table.Count + " rows");
while (!System.IO.File.Exists(System.Environment.GetEnvironmentVariable("XRPM_TEST_GO"))) System.Threading.Thread.Sleep(20);
System.Console.Error.WriteLine("csharp: done, " + table.Count + " rows");

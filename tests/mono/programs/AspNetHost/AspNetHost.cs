// AspNetHost: a small program of ours hosting System.Web in-process (Debian's xsp4 does not start
// on Mono 6.8) to serve pages nobody here wrote (Debian's asp.net-examples), for
// tests/mono/mono_real_programs_test.cpp. Each directory named on the command line becomes an
// ASP.NET application (ApplicationHost.CreateApplicationHost: an AppDomain of its own; the
// directory's bin/ must hold a copy of AspNetHost.exe) and serves its pages; then the program
// holds its applications until the file named by XRPM_TEST_GO exists, serves every page again
// and exits. Each page served prints "AspNetHost: DIR/PAGE N chars" (N the HTML's length, the
// same on every round) on stderr.
//
//   mono AspNetHost.exe DIR/PAGE.aspx...
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Web;
using System.Web.Hosting;

namespace AspNetHost {
  public class Host : MarshalByRefObject {
    public string Process(string page) {
      var sw = new StringWriter();
      HttpRuntime.ProcessRequest(new SimpleWorkerRequest(page, "", sw));
      sw.Flush();
      return sw.ToString();
    }
    public override object InitializeLifetimeService() { return null; }  // held for the run
  }

  public static class Program {
    static readonly Dictionary<string, Host> Hosts = new Dictionary<string, Host>();

    static void ServeAll(string[] pages) {
      foreach (string arg in pages) {
        string rel = Path.GetDirectoryName(arg);
        string dir = Path.GetFullPath(rel == "" ? "." : rel);
        Host host;
        if (!Hosts.TryGetValue(dir, out host)) {
          host = (Host)ApplicationHost.CreateApplicationHost(typeof(Host), "/", dir);
          Hosts[dir] = host;
        }
        string html = host.Process(Path.GetFileName(arg));
        bool error = html.Contains("System.Web.HttpException") || html.Contains("Server Error");
        Console.Error.WriteLine("AspNetHost: " + arg + " " + html.Length + " chars" + (error ? " (an error page)" : ""));
      }
    }

    public static int Main(string[] args) {
      if (args.Length == 0) {
        Console.Error.WriteLine("usage: AspNetHost.exe DIR/PAGE.aspx...");
        return 2;
      }
      ServeAll(args);
      Console.Error.WriteLine("AspNetHost: " + Hosts.Count + " applications ready");
      string go = Environment.GetEnvironmentVariable("XRPM_TEST_GO");
      while (go != null && !File.Exists(go)) Thread.Sleep(20);
      ServeAll(args);
      Console.Error.WriteLine("AspNetHost: done");
      return 0;
    }
  }
}

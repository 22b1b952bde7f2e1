// ctest-labels: cpu_timing threaded
// Live counters: real NETCF names and categories, plausible movement, consistent .stat
// columns, thread-safe sampling while the game runs.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/emulator/stat_file.h"

namespace xrpm::emulator {
namespace {

std::map<std::string, agent::CounterValue> Sample(const Runtime& rt) {
  std::vector<agent::CounterValue> v(rt.CounterCount());
  EXPECT_EQ(rt.SampleCounters(v.data(), v.size()), v.size());
  std::map<std::string, agent::CounterValue> out;
  for (size_t i = 0; i < v.size(); ++i) out[rt.DescribeCounter(i).name] = v[i];
  return out;
}

TEST(Counters, HaveTheNetcfNamesAndCategories) {
  Runtime rt;
  std::map<std::string, std::set<std::string>> by_category;
  for (size_t i = 0; i < rt.CounterCount(); ++i) {
    agent::CounterInfo c = rt.DescribeCounter(i);
    by_category[c.category].insert(c.name);
    EXPECT_TRUE(std::string(c.unit) == "count" || std::string(c.unit) == "bytes" ||
                std::string(c.unit) == "ms");
  }
  for (const char* n :
       {"Managed Objects Allocated", "Managed Bytes Allocated", "Managed String Objects Allocated",
        "Bytes of String Objects Allocated", "Garbage Collections (GC)", "Bytes Collected By GC",
        "Managed Bytes In Use After GC", "Total Bytes In Use After GC", "GC Compactions",
        "Calls to GC.Collect", "GC Latency Time (ms)", "Pinned Objects",
        "Objects Moved by Compactor", "Objects Finalized", "Boxed Value Types"})
    EXPECT_TRUE(by_category["Garbage Collector"].count(n)) << n;
  EXPECT_TRUE(by_category["Memory"].count("GC Heap"));
  EXPECT_GE(by_category["Memory"].size(), 4u);
  EXPECT_TRUE(by_category["JIT"].count("Methods Jitted"));
  EXPECT_TRUE(by_category["JIT"].count("Native Bytes Jitted"));
  EXPECT_TRUE(by_category["Exceptions"].count("Exceptions Thrown"));
  for (const char* n : {"App Domains Created", "Assemblies Loaded", "Classes Loaded"})
    EXPECT_TRUE(by_category["Loader"].count(n)) << n;
  EXPECT_FALSE(by_category["Locks and Threads"].empty());
  EXPECT_EQ(rt.DescribeCounter(rt.CounterCount()).name, std::string(""));
}

TEST(Counters, MovePlausiblyWhileTheGameRuns) {
  Runtime rt;
  auto scenario = MakeScenario({"bubbles", 9});
  GameLoop loop(rt, *scenario, LoopConfig{0, 300});
  loop.Setup();
  auto start = Sample(rt);
  loop.RunHere();
  auto a = Sample(rt);
  GameLoop more(rt, *scenario, LoopConfig{0, 900});
  more.RunHere();
  auto b = Sample(rt);

  EXPECT_GT(a["Managed Objects Allocated"].total, start["Managed Objects Allocated"].total);
  EXPECT_GT(b["Managed Objects Allocated"].total, a["Managed Objects Allocated"].total);
  const agent::CounterValue& bytes = b["Managed Bytes Allocated"];
  EXPECT_EQ(bytes.n, static_cast<uint64_t>(b["Managed Objects Allocated"].total));
  EXPECT_LE(bytes.min, bytes.mean);
  EXPECT_LE(bytes.mean, bytes.max);
  EXPECT_GE(bytes.min, 8);
  EXPECT_NEAR(bytes.mean * static_cast<double>(bytes.n), static_cast<double>(bytes.total), 1.0);
  EXPECT_LE(b["Bytes of String Objects Allocated"].total, bytes.total);
  EXPECT_GT(b["Managed String Objects Allocated"].total, 1000);
  EXPECT_GT(b["Boxed Value Types"].total, 1000);  // Int32 and Vector2 boxes every frame

  // 1200 frames allocate a few MB: collections every 1 MB, with the heap staying small.
  const int64_t gcs = b["Garbage Collections (GC)"].total;
  EXPECT_GE(gcs, bytes.total / (1 << 20));
  EXPECT_LE(gcs, bytes.total / (1 << 20) + 1);
  EXPECT_GT(b["Bytes Collected By GC"].total, bytes.total / 2);
  EXPECT_LT(b["Managed Bytes In Use After GC"].total, b["GC Heap"].total);
  EXPECT_GT(b["Total Bytes In Use After GC"].total, b["Managed Bytes In Use After GC"].total);
  EXPECT_GT(b["Objects Finalized"].total, 10);  // sound instances and banners
  EXPECT_GT(b["Pinned Objects"].max, 0);
  EXPECT_EQ(b["Calls to GC.Collect"].total, 0);
  EXPECT_GE(b["Exceptions Thrown"].total, 3);
  EXPECT_GT(b["Methods Jitted"].total, 20);
  int64_t jitted = 0;
  for (size_t m = 0; m < rt.methods().size(); ++m) jitted += rt.methods()[m].jitted;
  EXPECT_EQ(b["Methods Jitted"].total, jitted) << "each method is compiled once, when first run";
  EXPECT_EQ(b["Classes Loaded"].total, static_cast<int64_t>(rt.types().loaded_classes()));
  EXPECT_EQ(b["Assemblies Loaded"].total, 5);
  EXPECT_EQ(b["App Domains Created"].total, 1);
  EXPECT_GT(b["Platform Invoke Calls"].total, 1200);

  rt.GcCollect();
  rt.EndFrame();
  EXPECT_EQ(Sample(rt)["Calls to GC.Collect"].total, 1);
  EXPECT_EQ(Sample(rt)["GC Compactions"].total, b["GC Compactions"].total + 1);
}

TEST(Counters, SamplingIsSafeWhileTheGameRuns) {
  Runtime rt;
  auto scenario = MakeScenario({"bubbles", 1});
  GameLoop loop(rt, *scenario, LoopConfig{0, 600});
  loop.Setup();
  std::atomic<bool> done{false};
  loop.Start([&] { done = true; });
  int64_t last = 0;
  size_t samples = 0;
  do {  // at least one sample, even when the 600 frames ran before this thread got a turn
    auto s = Sample(rt);
    const int64_t now = s["Managed Objects Allocated"].total;
    EXPECT_GE(now, last) << "a total never goes back";
    EXPECT_EQ(static_cast<int64_t>(s["Managed Bytes Allocated"].n), now) << "one consistent sample";
    last = now;
    ++samples;
  } while (!done);
  loop.Join();
  EXPECT_GT(samples, 0u);
}

TEST(Counters, StatTableHasOneRowPerCounter) {
  Runtime rt;
  std::string table = FormatStatTable(rt);
  size_t lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_EQ(lines, rt.CounterCount() + 1);
  EXPECT_NE(table.find("App Domains Created"), std::string::npos);
  // A counter that never recorded a datum shows dashes.
  EXPECT_NE(table.find("Calls to GC.Collect"), std::string::npos);
  size_t row = table.find("Calls to GC.Collect");
  EXPECT_NE(table.substr(row, table.find('\n', row) - row).find(" - "), std::string::npos);
}

}  // namespace
}  // namespace xrpm::emulator

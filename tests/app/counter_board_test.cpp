// CounterBoard (the Live counters view's model) and the counters CSV export: statistics and
// per-second rates per counter, grouping by category, pause / resume, and the exported columns.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xrpm/app/counter_board.h"

namespace xrpm::app {
namespace {

client::CounterReading Stat(int64_t total, int64_t last, uint64_t n) {
  client::CounterReading s;
  s.total = total;
  s.last = last;
  s.n = n;
  s.mean = n ? double(total) / double(n) : 0;
  s.min = n ? 1 : 0;
  s.max = last;
  return s;
}

class CounterBoardTest : public ::testing::Test {
 protected:
  client::CounterHistory h;
  void SetUp() override {
    h.SetDescriptors({{"Garbage Collector", "Managed Bytes Allocated", "bytes"},
                      {"Garbage Collector", "Garbage Collections (GC)", "count"},
                      {"JIT Compiler", "Methods JITed", "count"}},
                     250);
  }
  // Sample `seq` at device time seq * 250 ms: 1000 bytes and 1 method more each time.
  void Add(uint64_t seq) {
    client::CounterSampleRow r;
    r.seq = seq;
    r.boot_ms = seq * 250;
    r.host_s = double(seq) / 4;
    const int64_t k = int64_t(seq);
    r.values = {Stat(1000 * k, 1000, seq), Stat(k / 4, 1, seq / 4), Stat(k, 1, seq)};
    h.Add(r);
  }
};

TEST_F(CounterBoardTest, KeepsStatsAndRatesGroupedByCategory) {
  CounterBoard b;
  for (uint64_t s = 1; s <= 8; ++s) Add(s);
  EXPECT_TRUE(b.Update(h));
  EXPECT_EQ(b.samples(), 8u);
  EXPECT_EQ(b.categories(), (std::vector<std::string>{"Garbage Collector", "JIT Compiler"}));
  EXPECT_EQ(b.InCategory(0), (std::vector<int>{0, 1}));
  EXPECT_EQ(b.InCategory(1), (std::vector<int>{2}));
  const auto& bytes = b.counters()[0];
  EXPECT_EQ(bytes.stat.total, 8000);
  EXPECT_EQ(bytes.stat.n, 8u);
  EXPECT_DOUBLE_EQ(bytes.stat.mean, 1000);
  EXPECT_TRUE(bytes.has_rate);
  EXPECT_DOUBLE_EQ(bytes.per_second, 4000);  // 1000 bytes every 250 ms
  EXPECT_EQ(bytes.rate.size(), 8u);
  EXPECT_TRUE(bytes.selected);  // graphed from the start
  EXPECT_FALSE(b.Update(h));    // nothing new
}

TEST_F(CounterBoardTest, PauseFreezesTheBoardAndResumeCatchesUp) {
  CounterBoard b;
  Add(1);
  Add(2);
  b.Update(h);
  b.set_paused(true);
  Add(3);
  Add(4);
  EXPECT_FALSE(b.Update(h));
  EXPECT_EQ(b.samples(), 2u);
  EXPECT_EQ(b.counters()[2].stat.total, 2);
  b.set_paused(false);
  EXPECT_TRUE(b.Update(h));
  EXPECT_EQ(b.samples(), 4u);
  EXPECT_EQ(b.counters()[2].stat.total, 4);
  EXPECT_DOUBLE_EQ(b.counters()[2].per_second, 4);
}

TEST_F(CounterBoardTest, ExportsEverySampleAsCsvWithAllStatColumns) {
  for (uint64_t s = 1; s <= 3; ++s) Add(s);
  const std::string path =
      ::testing::TempDir() + "/xrpm_counters_" + std::to_string(::getpid()) + ".csv";
  ExportCountersCsv(h, path);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // The one counter CSV layout (client/counter_csv.h): a row per counter per sample.
  ASSERT_EQ(lines.size(), 1u + 3 * 3);
  EXPECT_EQ(lines[0], "host_s,boot_ms,seq,category,counter,unit,total,last,n,mean,min,max");
  EXPECT_EQ(lines[7],
            "0.75,750,3,Garbage Collector,Managed Bytes Allocated,bytes,3000,1000,3,1000,1,1000");
  EXPECT_EQ(lines[8].rfind("0.75,750,3,Garbage Collector,Garbage Collections (GC),count,", 0), 0u)
      << lines[8];
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace xrpm::app

namespace xrpm::app {
namespace {

// The game's markers on the counter graphs, by the device clock: between the samples around
// them, none outside the graphed span.
TEST(CounterBoardMarkers, MarkersFallBetweenTheSamplesAroundThem) {
  client::CounterHistory h(100);
  h.SetDescriptors({{"Garbage Collector", "GC Heap", "bytes"}}, 100);
  for (uint64_t i = 0; i < 11; ++i)  // samples at 1000, 1100, ... 2000 ms
    h.Add({i + 1, 1000 + 100 * i, double(i), {client::CounterReading{}}});
  CounterBoard b;
  b.Update(h);
  const std::vector<MarkerRow> m = {{MarkerKind::kMarker, "early", 0, 500'000},
                                    {MarkerKind::kMarker, "first", 0, 1'000'000},
                                    {MarkerKind::kMarker, "mid", 0, 1'450'000},
                                    {MarkerKind::kCaptureRequest, "end", 0, 2'000'000},
                                    {MarkerKind::kMarker, "late", 0, 2'500'000}};
  auto all = b.MarkersOnGraph(m, 11);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].marker, 1u);
  EXPECT_DOUBLE_EQ(all[0].x, 0.0);
  EXPECT_NEAR(all[1].x, 0.45, 1e-9);
  EXPECT_DOUBLE_EQ(all[2].x, 1.0);
  auto last5 = b.MarkersOnGraph(m, 5);  // 1600..2000 ms
  ASSERT_EQ(last5.size(), 1u);
  EXPECT_EQ(m[last5[0].marker].text, "end");
  EXPECT_TRUE(b.MarkersOnGraph(m, 1).empty());
}

}  // namespace
}  // namespace xrpm::app

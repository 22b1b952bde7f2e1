// Memory budgets (app/budget.h, app/budget_check.h): the documented schema parses;
// bad budgets are refused with the line and what was expected; patterns; and each rule (types,
// after_marker, leaks, frames, tags) holding and breaking on hand-made captures and recordings.
#include <gtest/gtest.h>

#include <cmath>

#include "heap_builder.h"
#include "xrpm/app/budget.h"
#include "xrpm/app/budget_check.h"
#include "xrpm/model/diagnostics.h"

namespace xrpm::app {
namespace {

using testing::HeapBuilder;

const char kDocumentedBudget[] = R"({
  "types":        [{"name": "Bubbles.*", "max_count": 500, "max_bytes": 65536, "max_retained_bytes": 1048576}],
  "after_marker": [{"marker": "Level 2 loaded", "type": "Level1.*", "max_count": 0}],
  "leaks":        [{"type": "*", "max_count": 0}],
  "frames":       {"alloc_bytes_mean": 2048, "alloc_bytes_p95": 4096, "alloc_bytes_max": 65536, "gcs_per_minute": 2},
  "tags":         [{"tag": "AI", "max_bytes_per_frame": 1024}]
})";

TEST(Budget, ParsesTheDocumentedExample) {
  const Budget b = ParseBudget(kDocumentedBudget, "budget.json");
  ASSERT_EQ(b.types.size(), 1u);
  EXPECT_EQ(b.types[0].name, "Bubbles.*");
  EXPECT_EQ(b.types[0].max_count, 500u);
  EXPECT_EQ(b.types[0].max_bytes, 65536u);
  EXPECT_EQ(b.types[0].max_retained_bytes, 1048576u);
  EXPECT_EQ(b.types[0].line, 2u);
  ASSERT_EQ(b.after_marker.size(), 1u);
  EXPECT_EQ(b.after_marker[0].marker, "Level 2 loaded");
  EXPECT_EQ(b.after_marker[0].type, "Level1.*");
  EXPECT_EQ(b.after_marker[0].line, 3u);
  ASSERT_EQ(b.leaks.size(), 1u);
  EXPECT_EQ(b.leaks[0].type, "*");
  EXPECT_EQ(b.frames.alloc_bytes_p95, 4096.0);
  EXPECT_EQ(b.frames.gcs_per_minute, 2.0);
  EXPECT_EQ(b.frames.line, 5u);
  ASSERT_EQ(b.tags.size(), 1u);
  EXPECT_EQ(b.tags[0].tag, "AI");
  EXPECT_EQ(b.tags[0].max_bytes_per_frame, 1024.0);
  EXPECT_EQ(b.tags[0].line, 6u);
  EXPECT_TRUE(ParseBudget("{}", "empty.json").types.empty());
}

// The refusal of `json`: its line and message.
Diagnostic Refused(const std::string& json) {
  try {
    ParseBudget(json, "budget.json");
    ADD_FAILURE() << "accepted: " << json;
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostic().file, "budget.json");
    EXPECT_EQ(e.diagnostic().code, "bad-budget");
    return e.diagnostic();
  }
  return {};
}

void ExpectRefused(const std::string& json, uint64_t line, const std::string& says) {
  const Diagnostic d = Refused(json);
  EXPECT_EQ(d.line, line) << d.message;
  EXPECT_NE(d.message.find(says), std::string::npos) << d.message;
}

TEST(Budget, BadBudgetsNameTheLineAndWhatWasExpected) {
  ExpectRefused("{\n  \"types\": [],\n  \"leak\": []\n}", 3,
                "unknown rule \"leak\", expected one of: types, after_marker, leaks, frames, tags");
  ExpectRefused("{\"types\": [\n  {\"name\": \"A\",\n   \"max_cnt\": 3}]}", 3,
                "types[0]: unknown key \"max_cnt\", expected one of: name, max_count, max_bytes, "
                "max_retained_bytes");
  ExpectRefused(
      "{\"types\": [{\"name\": \"A\", \"max_count\": 1},\n {\"name\": \"B\",\n "
      "\"max_count\": \"500\"}]}",
      3, "types[1].max_count: expected a non-negative integer, found string \"500\"");
  ExpectRefused("{\"leaks\": [{\"type\": \"*\", \"max_count\": -1}]}", 1,
                "leaks[0].max_count: expected a non-negative integer, found number -1");
  ExpectRefused("{\"leaks\": [{\"type\": \"*\", \"max_count\": 1.5}]}", 1,
                "expected a non-negative integer, found number 1.5");
  ExpectRefused("{\n\"types\": [{\"name\": \"\", \"max_count\": 1}]}", 2,
                "types[0].name: bad pattern \"\": empty");
  ExpectRefused("{\n\n\"leaks\": [{\"type\": \"Foo\\\\\", \"max_count\": 0}]}", 3,
                "bad pattern \"Foo\\\": a trailing \\ escapes nothing");
  ExpectRefused("{\"types\": [{\"name\": \"A\"}]}", 1,
                "types[0]: expected a limit: max_count, max_bytes or max_retained_bytes");
  ExpectRefused("{\"after_marker\": [{\"type\": \"A\", \"max_count\": 0}]}", 1,
                "after_marker[0]: missing \"marker\"");
  ExpectRefused("{\"frames\": {\"alloc_bytes_p99\": 1}}", 1, "unknown key \"alloc_bytes_p99\"");
  ExpectRefused("{\"frames\": {\"gcs_per_minute\": -2}}", 1,
                "frames.gcs_per_minute: expected a non-negative number, found number -2");
  ExpectRefused("{\"tags\": {\"tag\": \"AI\"}}", 1,
                "tags: expected an array of rules ([{...}, ...]), found object");
  ExpectRefused("[1, 2]", 1, "expected an object of rules");
  // Not JSON: the line of the byte where parsing stopped, and what the parser expected.
  ExpectRefused("{\n  \"types\": [\n    {\"name\": \"A\" \"max_count\": 1}\n  ]\n}", 3,
                "not JSON: syntax error while parsing object");
  ExpectRefused("", 1, "not JSON");
  ExpectRefused("{\"frames\": {\"alloc_bytes_p95\":\n 40E6255}}", 2,
                "expected a number, found number overflow parsing '40E6255'");
}

TEST(Budget, Patterns) {  // their matching: tests/model/glob_test.cpp
  EXPECT_EQ(CheckPattern("Bubbles.*"), "");
  EXPECT_NE(CheckPattern(""), "");
  EXPECT_NE(CheckPattern("a\\"), "");
}

// Game (static) -> Level (a list) -> Bubbles.Bubble x3 (32 B), Bubbles.Field 100 B nested in
// Level; Level1.Map (a local root) 200 B; garbage Bubbles.Bubble unreachable.
Snapshot Capture(const std::string& last_marker = "", bool after = true) {
  HeapBuilder h;
  h.Obj(0x10, "Game", 40, {0x20});
  h.Obj(0x20, "Bubbles.Field", 100, {0x30, 0x40, 0x50});
  h.Obj(0x30, "Bubbles.Bubble", 32);
  h.Obj(0x40, "Bubbles.Bubble", 32);
  h.Obj(0x50, "Bubbles.Bubble", 32);
  h.Obj(0x60, "Level1.Map", 200);
  h.Obj(0x70, "Bubbles.Bubble", 32);
  h.Root(0x10, RootKind::kStatic, 0, h.RawTypeId("Game"));
  h.Root(0x60, RootKind::kLocal);
  Snapshot s = h.Build();
  s.capture.emplace();
  if (after) {
    s.capture->last_marker = last_marker;
    s.capture->marker_age_us = 2'000'000;
  }
  return s;
}

const RuleResult* Find(const BudgetResult& r, const std::string& rule, size_t nth = 0) {
  for (const RuleResult& x : r.rules)
    if (x.rule == rule && nth-- == 0) return &x;
  return nullptr;
}

TEST(BudgetCheck, TypesHoldAndBreak) {
  const Snapshot s = Capture();
  Budget b = ParseBudget(R"({"types": [
      {"name": "Bubbles.*", "max_count": 5, "max_bytes": 228, "max_retained_bytes": 195},
      {"name": "Bubbles.Bubble", "max_count": 3}]})",
                         "b.json");
  const BudgetResult r = CheckBudget(b, {{"cap.xrpm", &s, nullptr}});
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.rules.size(), 4u);
  const RuleResult* count = Find(r, "types Bubbles.* max_count");
  ASSERT_TRUE(count);
  EXPECT_EQ(count->input, "cap.xrpm");
  EXPECT_EQ(count->measured, 5.0);  // four bubbles and the field
  EXPECT_TRUE(count->ok);
  EXPECT_EQ(Find(r, "types Bubbles.* max_bytes")->measured, 228.0);
  EXPECT_TRUE(Find(r, "types Bubbles.* max_bytes")->ok);
  // Retained: the field holds its bubbles, counted once (100 + 3 x 32); the garbage bubble is
  // not retained by anything.
  const RuleResult* retained = Find(r, "types Bubbles.* max_retained_bytes");
  EXPECT_EQ(retained->measured, 196.0);
  EXPECT_FALSE(retained->ok);
  EXPECT_EQ(retained->limit, 195.0);
  EXPECT_EQ(retained->line, 2u);
  const RuleResult* bubbles = Find(r, "types Bubbles.Bubble max_count");
  EXPECT_EQ(bubbles->measured, 4.0);
  EXPECT_FALSE(bubbles->ok);

  b.types[0].max_retained_bytes = 196;
  b.types[1].max_count = 4;
  EXPECT_TRUE(CheckBudget(b, {{"cap.xrpm", &s, nullptr}}).ok);
}

TEST(BudgetCheck, AfterMarkerAppliesToCapturesTakenAfterIt) {
  const Snapshot before = Capture("Level 1 loaded"), after = Capture("Level 2 loaded");
  const Budget b = ParseBudget(
      R"({"after_marker": [{"marker": "Level 2 loaded", "type": "Level1.*", "max_count": 0}]})",
      "b.json");
  BudgetResult r = CheckBudget(b, {{"one.xrpm", &before, nullptr}, {"two.xrpm", &after, nullptr}});
  ASSERT_EQ(r.rules.size(), 1u);  // only the capture taken after the marker
  EXPECT_EQ(r.rules[0].rule, "after_marker 'Level 2 loaded' Level1.* max_count");
  EXPECT_EQ(r.rules[0].input, "two.xrpm");
  EXPECT_EQ(r.rules[0].measured, 1.0);  // the map is still alive
  EXPECT_FALSE(r.ok);
  const Budget one = ParseBudget(
      R"({"after_marker": [{"marker": "Level 2 loaded", "type": "Level1.*", "max_count": 1}]})",
      "b.json");
  EXPECT_TRUE(CheckBudget(one, {{"two.xrpm", &after, nullptr}}).ok);
  // No capture after the marker: the run never got there, which breaks the rule.
  r = CheckBudget(one, {{"one.xrpm", &before, nullptr}});
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_FALSE(r.rules[0].measured.has_value());
  EXPECT_FALSE(r.ok);
}

// Three captures of a run, A at frame 100, B at 200, C at 300: two bubbles allocated in the
// window are still held in C; a texture from before A is not a leak.
struct LeakRun {
  Snapshot a, b, c;
  static AllocationOrigins Origins(uint64_t frame) {
    AllocationOrigins o;
    o.capture_frame = frame;
    o.methods = {"Bubbles.BubbleField.Spawn"};
    o.sites = {{{0}}};
    return o;
  }
  LeakRun() {
    a = HeapBuilder().Build();
    a.origins = Origins(100);
    b = HeapBuilder().Build();
    b.origins = Origins(200);
    HeapBuilder h;
    h.Obj(0x10, "Game", 40, {0x20, 0x30, 0x40});
    h.Obj(0x20, "Bubbles.Bubble", 32);
    h.Obj(0x30, "Bubbles.Bubble", 32);
    h.Obj(0x40, "Texture", 500);
    h.Root(0x10, RootKind::kStatic, 0, h.RawTypeId("Game"));
    c = h.Build();
    c.origins = Origins(300);
    for (uint64_t frame : {0, 120, 150, 10}) c.AddObjectOrigin(static_cast<uint32_t>(frame), 0);
  }
  std::vector<BudgetInput> Inputs() const {
    return {{"a.xrpm", &a, nullptr}, {"b.xrpm", &b, nullptr}, {"c.xrpm", &c, nullptr}};
  }
};

TEST(BudgetCheck, LeaksOverThreeCaptures) {
  const LeakRun run;
  const Budget b = ParseBudget(R"({"leaks": [{"type": "*", "max_count": 0},
                                            {"type": "Texture", "max_count": 0},
                                            {"type": "Bubbles.*", "max_count": 2}]})",
                               "b.json");
  const BudgetResult r = CheckBudget(b, run.Inputs());
  ASSERT_EQ(r.rules.size(), 3u);
  EXPECT_EQ(r.rules[0].input, "a.xrpm, b.xrpm, c.xrpm");
  EXPECT_EQ(r.rules[0].measured, 2.0);
  EXPECT_FALSE(r.rules[0].ok);
  EXPECT_EQ(r.rules[1].measured, 0.0);
  EXPECT_TRUE(r.rules[1].ok);
  EXPECT_TRUE(r.rules[2].ok);
  // Out of order: the leak filter's own refusal.
  std::vector<BudgetInput> swapped = run.Inputs();
  std::swap(swapped[0], swapped[2]);
  EXPECT_THROW(CheckBudget(b, swapped), InputError);
  // Not three captures: nothing to apply the rule to.
  std::vector<BudgetInput> two = run.Inputs();
  two.pop_back();
  EXPECT_THROW(CheckBudget(b, two), BudgetUsageError);
}

FrameRecording BudgetRecording() {
  FrameRecording r;
  r.sample_bytes = 1024;
  r.tags = {"AI", "Physics"};
  r.types = {"Bubbles.Bubble"};
  // 20 frames of 10 ms (0.2 s): 1,000 B each but one of 9,000 B; 1 collection.
  for (uint64_t f = 1; f <= 20; ++f)
    r.frames.push_back({f, f * 10'000, 10'000, 5'000, f == 7 ? 9'000u : 1'000u, 10,
                        f == 7 ? 1u : 0u, f == 7 ? 2'000u : 0u, -1});
  // AI: samples of 2048 B (larger than the interval: counted nearly as their size).
  for (uint64_t f = 1; f <= 20; f += 2) r.samples.push_back({f, 0, 1, 4096, 1});
  return r;
}

TEST(BudgetCheck, FramesAndTagsOfARecording) {
  const FrameRecording rec = BudgetRecording();
  Budget b = ParseBudget(R"({"frames": {"alloc_bytes_mean": 1400, "alloc_bytes_p95": 1000,
                                        "alloc_bytes_max": 8999, "gcs_per_minute": 300},
                             "tags": [{"tag": "AI", "max_bytes_per_frame": 2000},
                                      {"tag": "Physics", "max_bytes_per_frame": 0}]})",
                         "b.json");
  const BudgetResult r = CheckBudget(b, {{"rec.xrpm", nullptr, &rec}});
  ASSERT_EQ(r.rules.size(), 6u);
  EXPECT_EQ(Find(r, "frames alloc_bytes_mean")->measured, 1400.0);  // (19 x 1000 + 9000) / 20
  EXPECT_TRUE(Find(r, "frames alloc_bytes_mean")->ok);
  EXPECT_EQ(Find(r, "frames alloc_bytes_p95")->measured, 1000.0);
  EXPECT_TRUE(Find(r, "frames alloc_bytes_p95")->ok);
  EXPECT_EQ(Find(r, "frames alloc_bytes_max")->measured, 9000.0);
  EXPECT_FALSE(Find(r, "frames alloc_bytes_max")->ok);
  EXPECT_DOUBLE_EQ(*Find(r, "frames gcs_per_minute")->measured, 300.0);  // 1 in 0.2 s
  EXPECT_TRUE(Find(r, "frames gcs_per_minute")->ok);
  // 10 samples of 4096 B at N = 1024: each counts 4096 / (1 - e^-4) B, over 20 frames.
  const double ai = 10 * 4096 / (1 - std::exp(-4.0)) / 20;
  EXPECT_NEAR(*Find(r, "tags AI max_bytes_per_frame")->measured, ai, 1e-6);
  EXPECT_FALSE(Find(r, "tags AI max_bytes_per_frame")->ok);  // ~2088 > 2000
  EXPECT_EQ(Find(r, "tags Physics max_bytes_per_frame")->measured, 0.0);
  EXPECT_TRUE(Find(r, "tags Physics max_bytes_per_frame")->ok);
  EXPECT_FALSE(r.ok);

  b.frames.alloc_bytes_max = 9000;
  b.tags[0].max_bytes_per_frame = 2100;
  EXPECT_TRUE(CheckBudget(b, {{"rec.xrpm", nullptr, &rec}}).ok);
  // Recording rules with only captures given: nothing to apply them to.
  const Snapshot s = Capture();
  EXPECT_THROW(CheckBudget(b, {{"cap.xrpm", &s, nullptr}}), BudgetUsageError);
  EXPECT_THROW(CheckBudget(ParseBudget(R"({"types": [{"name": "*", "max_count": 1}]})", "b"),
                           {{"rec.xrpm", nullptr, &rec}}),
               BudgetUsageError);
}

}  // namespace
}  // namespace xrpm::app

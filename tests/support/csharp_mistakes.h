// What `xrpm inspect --json` must say about a capture of the C# Mistakes game
// (tests/mono/programs/Mistakes/Mistakes.cs, run under Mono and under CoreCLR): every planted
// finding with its exact count, the near-misses absent (a near-miss of a planted type would
// change its count), and no inspection guessing (captures of both ports carry type traits);
// and the traits of the game's types as the capture holds them. The runtime's own heap (the
// BCL's strings, boxes and collections) adds findings of its own, so findings are checked by
// their `what`, not by their number.
//
// Thread-safety: one test thread.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "subprocess.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

inline const nlohmann::json* MistakesFinding(const nlohmann::json& j, const std::string& inspection,
                                             const std::string& what) {
  for (const auto& in : j["inspections"])
    if (in["name"] == inspection)
      for (const auto& f : in["findings"])
        if (f["what"] == what) return &f;
  return nullptr;
}

inline void ExpectTheCSharpMistakes(const nlohmann::json& j) {
  struct Planted {
    const char* inspection;
    const char* what;
    uint64_t count;
  };
  const std::string list = "System.Collections.Generic.List<";
  const Planted planted[] = {
      {"duplicate-strings", "Grunt #", 5},
      {"event-handler-leaks", "static Mistakes.GameEvents.EnemyKilled -> Mistakes.Enemy", 4},
      {"disposed-but-held", "Mistakes.Texture", 2},  // not the one in use, nor the one dropped
      // 1 of 32, not Enemies (5 of 16) nor Reserve (12 of 20)
      {"sparse-collections", "System.Collections.Generic.List<Mistakes.Enemy>", 1},
      {"sparse-collections", "System.Collections.Generic.List<System.Int32>", 9},  // not 2000
      // cleared after 100 (its buckets stay); not Squad, 10 in 11 buckets
      {"sparse-collections", "System.Collections.Generic.Dictionary<System.Int32, Mistakes.Enemy>",
       1},
      {"sparse-collections", "System.Collections.Generic.HashSet<Mistakes.Enemy>", 1},
      {"sparse-collections", "System.Collections.Generic.Queue<Mistakes.Enemy>", 1},
      {"sparse-collections", "System.Collections.Generic.Stack<Mistakes.Enemy>", 1},
      // a struct no field declares: found by its trait; not the box dropped, nor the Hit[]
      {"boxed-values", "Mistakes.Hit", 40},
      {"boxed-values", "Mistakes.Weapon", 3},  // not the box dropped
      // live objects of a type with a finalizer (the capture's type flag)
      {"finalizable", "Mistakes.SoundHandle", 2},
  };
  for (const Planted& p : planted) {
    const nlohmann::json* f = MistakesFinding(j, p.inspection, p.what);
    ASSERT_NE(f, nullptr) << p.inspection << " / " << p.what << "\n" << j.dump(1).substr(0, 8000);
    EXPECT_EQ((*f)["count"], p.count) << p.what;
  }
  EXPECT_EQ(MistakesFinding(j, "duplicate-strings", "Boss #"), nullptr);    // held once
  EXPECT_EQ(MistakesFinding(j, "finalizable", "Mistakes.Enemy"), nullptr);  // no finalizer
  EXPECT_EQ(MistakesFinding(j, "finalizable", "Mistakes.Texture"), nullptr);
  EXPECT_EQ(MistakesFinding(j, "sparse-collections", "Mistakes.Enemy[]"), nullptr);  // backing
  EXPECT_EQ(MistakesFinding(j, "boxed-values", "Mistakes.Hit[]"), nullptr);
  for (const auto& in : j["inspections"]) {
    EXPECT_TRUE(in["skipped"].is_null()) << in["name"] << ": " << in["skipped"];
    EXPECT_TRUE(in["note"].is_null()) << in["name"] << ": " << in["note"];  // traits, no guess
  }
}

// The traits of the game's types, as the runtime reported them.
inline void ExpectTheCSharpMistakesTraits(const Snapshot& s) {
  EXPECT_TRUE(s.has_type_traits());
  auto traits = [&](const std::string& name) {
    for (const TypeInfo& t : s.types)
      if (t.name == name) return DescribeTypeTraits(t.traits, t.has_finalizer);
    return "no type " + name;
  };
  EXPECT_EQ(traits("Mistakes.Hit"), "value type");
  EXPECT_EQ(traits("Mistakes.Weapon"), "enum of System.Int32");
  EXPECT_EQ(traits("Mistakes.Enemy"), "class");
  EXPECT_EQ(traits("Mistakes.SoundHandle"), "class, has finalizer");
  EXPECT_EQ(traits("System.Int32[,]"), "array rank 2 of System.Int32");
  EXPECT_EQ(traits("Mistakes.Hit[]"), "array rank 1 of Mistakes.Hit");
  EXPECT_EQ(traits("System.String"), "class");
}

#ifdef XRPM_CLI_BIN
// Captures the game running behind `endpoint` into `file` with `xrpm capture`, runs `xrpm inspect
// --json` on it and checks both the findings and the traits; `log` (the game's output) goes with
// a failed capture.
inline void CaptureAndExpectTheCSharpMistakes(const std::string& endpoint, const std::string& file,
                                              const std::string& log) {
  RunResult cap = RunProcess({XRPM_CLI_BIN, "capture", "--connect", endpoint, "-o", file}, 120000);
  ASSERT_EQ(cap.exit_code, 0) << cap.err << log;
  RunResult r = RunProcess({XRPM_CLI_BIN, "inspect", file, "--json"}, 120000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectTheCSharpMistakes(nlohmann::json::parse(r.out));
  Diagnostics diags;
  ExpectTheCSharpMistakesTraits(formats::LoadSnapshot(file, diags));
}
#endif

}  // namespace xrpm::testing

// The emulator's ground-truth dump with contents against a live capture of the same heap: the
// runtime plays a fixed number of frames on the test thread, an agent serves it, the host
// captures it over 127.0.0.1 (agent -> wire -> HostClient -> CaptureAssembler), and then the
// dump walks it (the capture's collection moved what it would; the dump's finds nothing to
// move). The capture lists objects in address order, the dump depth-first, so objects are
// matched by id: every type's layout, the enums, every object's values and string text, every
// reference's slot and every root's label must be the same, with values and with --no-values.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "played_scenario.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::testing {
namespace {

void ExpectSameFields(const Snapshot& cap, const Snapshot& dump) {
  ASSERT_EQ(CheckFields(dump), "");
  EXPECT_EQ(dump.fields.values_captured, cap.fields.values_captured);
  EXPECT_EQ(dump.fields.string_cap, cap.fields.string_cap);
  // Types come in the order the runtime describes them, in both.
  ASSERT_EQ(dump.type_count(), cap.type_count());
  for (size_t t = 0; t < cap.type_count(); ++t) {
    ASSERT_EQ(dump.types[t].id, cap.types[t].id);
    EXPECT_EQ(dump.types[t].has_finalizer, cap.types[t].has_finalizer) << cap.types[t].name;
    EXPECT_TRUE(dump.types[t].traits == cap.types[t].traits) << cap.types[t].name;
    EXPECT_TRUE(cap.types[t].traits.known()) << cap.types[t].name;  // the emulator says all
  }
  EXPECT_TRUE(dump.fields.layouts == cap.fields.layouts);
  EXPECT_TRUE(dump.fields.enums == cap.fields.enums);
  // Roots come in the runtime's order in both.
  ASSERT_EQ(dump.root_count(), cap.root_count());
  size_t labelled = 0;
  for (size_t r = 0; r < cap.root_count(); ++r) {
    ASSERT_EQ(dump.root_object[r], cap.root_object[r]) << r;
    ASSERT_EQ(dump.fields.label_of_root(r), cap.fields.label_of_root(r)) << r;
    labelled += !cap.fields.label_of_root(r).empty();
  }
  EXPECT_GT(labelled, 0u);
  // Objects by id.
  ASSERT_EQ(dump.object_count(), cap.object_count());
  std::unordered_map<ObjectId, size_t> at;
  for (size_t i = 0; i < cap.object_count(); ++i) at.emplace(cap.object_id[i], i);
  size_t with_values = 0, slotted = 0;
  for (size_t d = 0; d < dump.object_count(); ++d) {
    const auto it = at.find(dump.object_id[d]);
    ASSERT_NE(it, at.end()) << std::hex << dump.object_id[d];
    const size_t c = it->second;
    ASSERT_EQ(dump.object_type[d], cap.object_type[c]);
    const auto dv = dump.fields.values_of(d), cv = cap.fields.values_of(c);
    ASSERT_TRUE(std::equal(dv.begin(), dv.end(), cv.begin(), cv.end()))
        << dump.type_name_of(d) << " " << std::hex << dump.object_id[d];
    with_values += !dv.empty();
    const uint64_t db = dump.ref_begin(d), cb = cap.ref_begin(c);
    ASSERT_EQ(dump.ref_end[d] - db, cap.ref_end[c] - cb);
    for (uint64_t k = 0; k < dump.ref_end[d] - db; ++k) {
      ASSERT_EQ(dump.refs[db + k], cap.refs[cb + k]);
      ASSERT_EQ(dump.fields.slot_of(db + k), cap.fields.slot_of(cb + k))
          << dump.type_name_of(d) << " reference " << k;
      slotted += dump.fields.slot_of(db + k) != kNoSlot;
    }
  }
  EXPECT_GT(slotted, 20u);  // the mistakes game is small
  if (cap.fields.values_captured) {
    EXPECT_GT(with_values, 20u);
  } else {
    EXPECT_EQ(with_values, 0u);
  }
}

TEST(DumpFields, TheDumpHoldsWhatALiveCaptureOfTheSameHeapHolds) {
  for (const char* scenario : {"bubbles", "mistakes"}) {
    SCOPED_TRACE(scenario);
    PlayedScenario d({scenario, 5}, 180);
    ASSERT_TRUE(d.agent);
    std::string error;
    const std::optional<Snapshot> cap = d.HostCapture(true, &error);
    ASSERT_TRUE(cap) << error;
    const Snapshot dump = emulator::DumpToSnapshot(d.rt, emulator::DumpContents{true, true, 0});
    ExpectSameFields(*cap, dump);
  }
}

TEST(DumpFields, NoValuesAgreesToo) {
  PlayedScenario d({"bubbles", 5}, 180);
  ASSERT_TRUE(d.agent);
  std::string error;
  const std::optional<Snapshot> cap = d.HostCapture(false, &error);
  ASSERT_TRUE(cap) << error;
  const Snapshot dump = emulator::DumpToSnapshot(d.rt, emulator::DumpContents{true, false, 0});
  ExpectSameFields(*cap, dump);
}

}  // namespace
}  // namespace xrpm::testing

// The host's model of a fields capture against what the wire carried: the emulator's
// bubbles, played a fixed number of frames on the test thread (so two captures see one heap),
// captured once through the protocol library alone (field_capture.h, the oracle) and once
// through HostClient -> CaptureAssembler -> Snapshot. Every object's field values, string text
// and length, every reference's slot, the root labels and the layouts must agree; the snapshot
// passes the model's own check and survives .xrpm unchanged; --no-values keeps slots and labels.
#include <gtest/gtest.h>

#include <cstring>

#include "field_capture.h"
#include "played_scenario.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::testing {
namespace {

// The played scenario, plus an oracle capture through the protocol library alone.
struct FieldsDevice : PlayedScenario {
  using PlayedScenario::PlayedScenario;
  // The oracle: a capture over its own connection, closed before the host connects.
  bool Oracle(bool values, FieldCapture* out, std::string* error) {
    auto peer = RawPeer::Connect(agent->port());
    if (!peer) return *error = "cannot connect", false;
    wire::Welcome welcome;
    if (!HandshakeFields(*peer, &welcome, error)) return false;
    if (!CaptureFields(*peer, welcome, values, 0, out, error)) return false;
    peer->DisconnectNow();
    // The agent retires the capture after its end left; a host asking before that is told
    // CAPTURE_BUSY, so wait for the outcome the agent logs then.
    if (WaitCaptureOutcome(log, std::to_string(++captures)).empty())
      return *error = "the agent never retired the oracle's capture", false;
    return true;
  }
  uint64_t captures = 0;
};

// The model's value as the wire's canonical bits (fields.h), for comparison.
uint64_t Bits(const FieldValue& v, xrpm::FieldKind kind) {
  switch (v.kind) {
    case FieldValue::Kind::kBool:
      return v.b;
    case FieldValue::Kind::kSigned:
    case FieldValue::Kind::kEnum:
      return static_cast<uint64_t>(v.i);
    case FieldValue::Kind::kUnsigned:
    case FieldValue::Kind::kChar:
      return v.u;
    case FieldValue::Kind::kFloat:
      if (kind == xrpm::FieldKind::kSingle) {
        const float f = static_cast<float>(v.d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
      } else {
        uint64_t b;
        std::memcpy(&b, &v.d, 8);
        return b;
      }
    default:
      return ~uint64_t{0};
  }
}

void ExpectSameContents(const FieldCapture& wire, const Snapshot& s, bool values) {
  ASSERT_EQ(CheckFields(s), "");
  ASSERT_EQ(s.object_count(), wire.object_id.size());
  ASSERT_EQ(s.fields.ref_slot.size(), wire.ref_slot.size());
  EXPECT_EQ(s.fields.has_values(), values);
  size_t checked_values = 0, checked_strings = 0;
  for (size_t i = 0; i < s.object_count(); ++i) {
    ASSERT_EQ(s.object_id[i], wire.object_id[i]);
    const protocol::RawLayout* wl = wire.Layout(i);
    const TypeLayout* ml = LayoutOf(s, i);
    ASSERT_EQ(wl != nullptr, ml != nullptr && ml->shape != TypeShape::kUnknown) << i;
    if (!wl) continue;
    ASSERT_EQ(ml->fields.size(), wl->fields.size()) << wire.TypeName(i);
    for (size_t k = 0; k < wl->fields.size(); ++k) {
      EXPECT_EQ(ml->fields[k].name, wl->fields[k].name);
      EXPECT_EQ(ml->fields[k].offset, wl->fields[k].offset);
      uint64_t bits = 0;
      if (!values || wl->fields[k].kind == protocol::FieldKind::kReference ||
          !wire.Value(i, wl->fields[k].name, &bits))
        continue;
      const xrpm::FieldKind kind = ml->fields[k].kind == xrpm::FieldKind::kEnum
                                       ? ml->fields[k].underlying
                                       : ml->fields[k].kind;
      EXPECT_EQ(Bits(ReadField(s, i, static_cast<uint32_t>(k)), kind), bits)
          << wire.TypeName(i) << "." << wl->fields[k].name;
      ++checked_values;
    }
    if (values && wl->shape == protocol::TypeShape::kString) {
      uint64_t length = 0;
      const std::string text = wire.Text(i, &length);
      const auto mine = StringOf(s, i);
      ASSERT_TRUE(mine) << i;
      EXPECT_EQ(mine->text, text);
      EXPECT_EQ(mine->full_length, length);
      ++checked_strings;
    }
  }
  for (size_t r = 0; r < wire.ref_slot.size(); ++r)
    ASSERT_EQ(s.fields.ref_slot[r], wire.ref_slot[r]);
  if (values) {
    EXPECT_GT(checked_values, 50u);
    EXPECT_GT(checked_strings, 5u);
  }
}

TEST(HostFieldsCapture, TheModelHoldsWhatTheWireCarried) {
  FieldsDevice d({"bubbles", 7}, 120);
  ASSERT_TRUE(d.agent);
  FieldCapture wire;
  std::string error;
  ASSERT_TRUE(d.Oracle(true, &wire, &error)) << error;
  const std::optional<Snapshot> s = d.HostCapture(true, &error);
  ASSERT_TRUE(s) << error;
  ExpectSameContents(wire, *s, true);
  EXPECT_TRUE(s->fields.values_captured);
  // Root labels: the static event by its field, frames by method and thread.
  bool event = false, frame = false;
  for (size_t r = 0; r < s->root_count(); ++r) {
    const std::string_view l = s->fields.label_of_root(r);
    event |= s->root_kind_of(r) == RootKind::kStatic && l == "Bubbles.GameEvents.BubblePopped";
    frame |= s->root_kind_of(r) == RootKind::kLocal && l.starts_with("in Bubbles.") &&
             l.find(", thread ") != std::string_view::npos;
  }
  EXPECT_TRUE(event);
  EXPECT_TRUE(frame);
  // Lossless through .xrpm.
  const formats::XrpmContents back = formats::ReadXrpm(formats::WriteXrpm(*s), "capture.xrpm");
  EXPECT_TRUE(back.snapshot == *s);
}

TEST(HostFieldsCapture, NoValuesKeepsSlotsAndLabelsWithoutValues) {
  FieldsDevice d({"bubbles", 7}, 120);
  ASSERT_TRUE(d.agent);
  FieldCapture wire;
  std::string error;
  ASSERT_TRUE(d.Oracle(false, &wire, &error)) << error;
  const std::optional<Snapshot> s = d.HostCapture(false, &error);
  ASSERT_TRUE(s) << error;
  ExpectSameContents(wire, *s, false);
  EXPECT_FALSE(s->fields.values_captured);
  EXPECT_TRUE(s->fields.has_layouts());
  EXPECT_FALSE(s->fields.root_labels.empty());
}

}  // namespace
}  // namespace xrpm::testing

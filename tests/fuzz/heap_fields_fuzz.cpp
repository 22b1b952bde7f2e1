// Fuzz target `heap_fields`: the host side of a fields / values capture's heap batches
// (protocol/heap_batch.h DecodeHeapBatch and field_checker.h FieldChecker), batch after batch
// as a capture delivers them.
//
// Input: tests/fuzz/message_stream.h. config bit 0: CaptureBegin.fields, bit 1: .values, bit 2:
// 8-byte pointers (else 4), bits 3-7: string_cap = 64 * value (0: 1024). Every packet is one
// serialized HeapBatch (not an Envelope); actions are ignored. The first batch that fails to
// decode or check ends the capture, as the host refuses it.
//
// Checks per batch, beyond no crash/leak/UB: a decoded batch's optional columns are either
// empty or one entry per root / reference / object, and the value counts add up to the words;
// a checked batch has a layout for every object with values or a known slot, each known slot
// names a reference field of its object's class and each class value word fits its field's
// kind (read from the layouts, not from the checker's own tables); and a checked
// batch encodes (EncodeRawBatch) to a batch that decodes to the same content (same checksum,
// same slots, values and layouts).
//
// Thread-safety: libFuzzer calls it from one thread.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_check.h"
#include "message_stream.h"
#include "xrpm/protocol/field_checker.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm::fuzz {
namespace {

void CheckShape(const protocol::RawBatch& b) {
  XRPM_FUZZ_CHECK(b.root_slot.empty() || b.root_slot.size() == b.root_object.size(),
                  "root slots differ in length from the roots");
  XRPM_FUZZ_CHECK(b.ref_slot.empty() || b.ref_slot.size() == b.refs.size(),
                  "reference slots differ in length from the references");
  XRPM_FUZZ_CHECK(b.object_value_count.empty() || b.object_value_count.size() == b.object_id.size(),
                  "value counts differ in length from the objects");
  uint64_t total = 0;
  for (uint32_t n : b.object_value_count) total += n;
  XRPM_FUZZ_CHECK(total == b.values.size(), "value counts do not add up to the words");
}

// Independently of the checker's per-layout tables, from the layouts themselves: every known
// slot it accepted names a reference field of its object's class (none on a string or on an
// object without a layout), and every value word of a class fits its field's kind.
void CheckAgainstLayouts(const protocol::RawBatch& b, const protocol::FieldChecker& check,
                         uint32_t pointer_bytes) {
  using protocol::TypeShape;
  size_t r = std::min<size_t>(b.cont_refs, b.ref_slot.size());  // the previous batch's object
  size_t w = 0;
  for (size_t i = 0; i < b.object_id.size(); ++i) {
    const protocol::RawLayout* l = check.Layout(b.object_type[i]);
    const bool is_class = l && l->shape != TypeShape::kString && l->shape != TypeShape::kArray;
    const uint32_t nv = b.object_value_count.empty() ? 0 : b.object_value_count[i];
    if (is_class && nv != 0) {
      size_t k = 0;
      for (const protocol::RawField& f : l->fields) {
        if (!protocol::IsValueKind(f.kind)) continue;
        uint64_t bits;
        XRPM_FUZZ_CHECK(
            k < nv && protocol::WordToValue(f.kind, b.values[w + k], pointer_bytes, &bits),
            "a value word accepted that does not fit its field");
        ++k;
      }
    }
    w += nv;
    const size_t end = std::min<size_t>(b.ref_slot.size(), r + b.object_ref_count[i]);
    for (; r < end; ++r) {
      const uint32_t s = b.ref_slot[r];
      if (s == protocol::kNoSlot) continue;
      XRPM_FUZZ_CHECK(l != nullptr && l->shape != TypeShape::kString,
                      "a slot accepted on a string or an object without a layout");
      if (is_class)
        XRPM_FUZZ_CHECK(
            s < l->fields.size() && l->fields[s].kind == protocol::FieldKind::kReference,
            "a slot accepted that names no reference field of its object");
    }
  }
}

void CheckChecked(const protocol::RawBatch& b, const protocol::FieldChecker& check,
                  uint32_t pointer_bytes) {
  for (size_t i = 0; i < b.object_value_count.size(); ++i)
    XRPM_FUZZ_CHECK(b.object_value_count[i] == 0 || check.Layout(b.object_type[i]) != nullptr,
                    "values accepted for an object without a layout");
  CheckAgainstLayouts(b, check, pointer_bytes);
  // Round trip: what the host accepted encodes to the same content.
  protocol::RawBatch copy = b;
  const uint64_t sum = protocol::ChecksumBatch(b, 0);
  wire::HeapBatch again;
  protocol::EncodeScratch scratch;
  protocol::EncodeRawBatch(copy, 1, 0, &again, &scratch);
  protocol::RawBatch back;
  std::string error;
  XRPM_FUZZ_CHECK(protocol::DecodeHeapBatch(again, &back, &error), "a re-encoded batch fails");
  XRPM_FUZZ_CHECK(protocol::ChecksumBatch(back, 0) == sum && back.ref_slot == b.ref_slot &&
                      back.root_slot == b.root_slot && back.values == b.values &&
                      back.object_value_count == b.object_value_count &&
                      back.layouts.size() == b.layouts.size() &&
                      back.enums.size() == b.enums.size(),
                  "a re-encoded batch decodes differently");
}

}  // namespace
}  // namespace xrpm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  fuzz::MessageStream in(data, size);
  const uint8_t c = in.config();
  const uint32_t cap = (c >> 3) ? 64u * (c >> 3) : 1024u;
  protocol::FieldChecker check((c & 1) != 0, (c & 2) != 0, cap, (c & 4) ? 8 : 4);
  static const bool trace = std::getenv("XRPM_FUZZ_TRACE") != nullptr;  // seed debugging
  fuzz::StreamOp op;
  uint32_t seq = 0;
  while (in.Next(&op)) {
    if (op.action) continue;
    wire::HeapBatch batch;
    if (!batch.ParseFromArray(op.data, static_cast<int>(op.size))) continue;
    protocol::RawBatch b;
    std::string error;
    const bool ok = protocol::DecodeHeapBatch(batch, &b, &error) &&
                    (fuzz::CheckShape(b), check.Check(b, seq, &error));
    if (trace)
      std::fprintf(stderr, "batch %u: %zu objects, %zu values: %s\n", seq, b.object_id.size(),
                   b.values.size(), ok ? "ok" : error.c_str());
    ++seq;
    if (!ok) {
      XRPM_FUZZ_CHECK(!error.empty(), "a refused batch without a reason");
      break;
    }
    fuzz::CheckChecked(b, check, (c & 4) ? 8 : 4);
  }
  return 0;
}

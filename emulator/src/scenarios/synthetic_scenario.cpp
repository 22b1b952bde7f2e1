#include "synthetic_scenario.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "xrpm/emulator/deterministic_random.h"
#include "xrpm/emulator/method_frame_scope.h"

namespace xrpm::emulator {
namespace {
constexpr const char* kAreas[] = {"Entities", "Physics", "AI", "Rendering",
                                  "Audio",    "Net",     "UI", "Data"};
constexpr const char* kStems[] = {"Node",  "Body",   "Agent",  "Mesh",
                                  "Voice", "Packet", "Widget", "Record"};
constexpr uint32_t kChurnPerFrame = 24;
constexpr uint64_t kNeighbourhood = 2048;  // objects either side a "near" reference lands in

uint32_t IntFields(uint32_t t) {
  return t % 4;
}
}  // namespace

SyntheticScenario::SyntheticScenario(const ScenarioParams& p) : p_(p) {
  if (p_.types == 0) p_.types = 1;
  for (uint32_t t = 0; t < p_.types; ++t)
    type_sizes_.push_back(kHeaderBytes + 4 * (p_.refs_per_object + IntFields(t)));
}

uint32_t SyntheticScenario::TypeOfObject(uint64_t i) const {
  return static_cast<uint32_t>(Mix(p_.seed, i, 0x7479706573ull) % p_.types);
}

uint64_t SyntheticScenario::RefTarget(uint64_t i, uint32_t k) const {
  const uint64_t n = p_.objects;
  if (k == 0 && i + 1 < n) return i + 1;
  const uint64_t h = Mix(p_.seed, i, k + 1);
  if (h % 4 == 0 || n <= 2 * kNeighbourhood) return (h >> 2) % n;  // anywhere in the heap
  // Near its referrer, as objects allocated together reference each other.
  const uint64_t lo = i < kNeighbourhood ? 0 : std::min(i - kNeighbourhood, n - 2 * kNeighbourhood);
  return lo + (h >> 2) % (2 * kNeighbourhood);
}

uint64_t SyntheticScenario::PlannedHeapBytes() const {
  // The expected size, exact up to the type distribution: used to fail early and clearly.
  uint64_t sum = 0;
  for (uint32_t s : type_sizes_) sum += s;
  return p_.objects * sum / p_.types + p_.objects / 16;
}

void SyntheticScenario::DefineTypes(Runtime& rt) {
  for (uint32_t t = 0; t < p_.types; ++t) {
    std::vector<std::string> names;
    std::vector<FieldSpec> fields;
    for (uint32_t k = 0; k < p_.refs_per_object; ++k) names.push_back("ref" + std::to_string(k));
    for (uint32_t k = 0; k < IntFields(t); ++k) names.push_back("value" + std::to_string(k));
    for (uint32_t k = 0; k < names.size(); ++k)
      fields.push_back(
          {names[k].c_str(), k < p_.refs_per_object ? FieldType::kRef : FieldType::kInt32});
    std::string name =
        std::string("Synthetic.") + kAreas[t % 8] + "." + kStems[(t / 8) % 8] + std::to_string(t);
    types_.push_back(rt.types().DefineClass(name, "synthetic", 0, fields));
  }
}

void SyntheticScenario::Setup(Runtime& rt) {
  if (PlannedHeapBytes() > rt.heap().reserved_bytes() - (16u << 20))
    throw std::runtime_error("synthetic heap of " + std::to_string(p_.objects) +
                             " objects needs about " + std::to_string(PlannedHeapBytes() >> 20) +
                             " MiB; the emulated GC heap has " +
                             std::to_string(rt.heap().reserved_bytes() >> 20) + " MiB");
  rt.LoadAssembly("synthetic");
  DefineTypes(rt);
  TypeIndex heap_class = rt.types().DefineClass("Synthetic.Heap", "synthetic", 0, {});
  StaticId head = rt.statics().Define(heap_class, "s_head");
  rt.statics().Set(rt.statics().Define(heap_class, "s_name"), rt.Intern("synthetic heap"));

  const uint64_t n = p_.objects;
  std::vector<Addr> addr(n);
  {
    NoGcScope no_gc(rt);
    for (uint64_t i = 0; i < n; ++i) addr[i] = rt.New(types_[TypeOfObject(i)]);
  }
  for (uint64_t i = 0; i < n; ++i) {
    const TypeDesc& t = rt.types()[types_[TypeOfObject(i)]];
    for (uint32_t k = 0; k < p_.refs_per_object; ++k) {
      rt.SetRef(addr[i], t.ref_offsets[k], addr[RefTarget(i, k)]);
    }
    // Small signed values, a function of the object and the field (captures with values, and
    // the big-endian check that reads them back, compare them).
    for (size_t k = p_.refs_per_object; k < t.fields.size(); ++k)
      rt.SetI32(addr[i], t.fields[k].offset, static_cast<int32_t>((i * 7 + k * 13) % 1000) - 500);
  }
  if (n > 0) {
    rt.statics().Set(head, addr[0]);
    ManagedThread& main = rt.main_thread();
    size_t d = rt.PushFrame(main, rt.methods().Intern("Synthetic.Program.Main"), 1);
    main.frames[d].locals[0].obj = addr[n / 2];
    rt.handles().Alloc(addr[n / 3], HandleType::kPinned);
    rt.handles().Alloc(addr[n - 1], HandleType::kWeak);
  }
}

void SyntheticScenario::Frame(Runtime& rt, uint64_t frame, double) {
  // Short-lived garbage: a small linked cluster of random types, dropped at the end of the frame.
  DeterministicRandom rng(Mix(p_.seed, frame, 0x6672616d65ull));
  MethodFrameScope f(rt, rt.main_thread(), "Synthetic.Program.Step", 2);
  for (uint32_t i = 0; i < kChurnPerFrame; ++i) {
    Addr o = rt.New(types_[rng.Below(p_.types)]);
    if (p_.refs_per_object > 0) rt.SetRef(o, rt.types()[rt.TypeOf(o)].ref_offsets[0], f.get(0));
    f.set(0, o);
  }
  garbage_.fetch_add(kChurnPerFrame, std::memory_order_relaxed);
}

std::string SyntheticScenario::Status() const {
  return std::to_string(p_.objects) + " objects, " + std::to_string(garbage_.load()) + " garbage";
}

}  // namespace xrpm::emulator

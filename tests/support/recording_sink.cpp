#include "recording_sink.h"

namespace xrpm::testing {

void RecordingSink::OnFrame(const agent::FrameRecord& f) noexcept {
  rec.frames.push_back({f.frame, f.end_us, f.duration_us, f.work_us, f.alloc_bytes, f.alloc_objects,
                        f.gcs, f.gc_pause_us, f.gc_budget_left, f.gc_kinds});
}

void RecordingSink::OnAllocationSample(const agent::AllocationSample& s) noexcept {
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < s.depth; ++i) {
    auto [it, fresh] = methods_.emplace(s.method_keys[i], uint32_t(rec.methods.size() + 1));
    if (fresh) rec.methods.push_back(s.method_names[i]);
    stack.push_back(it->second);
  }
  auto [st, fresh_stack] = stacks_.emplace(stack, uint32_t(rec.stacks.size() + 1));
  if (fresh_stack) rec.stacks.push_back(stack);
  auto [ty, fresh_type] = types_.emplace(s.type_key, uint32_t(rec.types.size() + 1));
  if (fresh_type) rec.types.push_back(s.type_name);
  rec.samples.push_back({s.frame, st->second, ty->second, s.size});
}

}  // namespace xrpm::testing

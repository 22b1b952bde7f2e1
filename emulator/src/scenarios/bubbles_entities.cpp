// BubblesScenario entities: bubbles (spawn, move, pop), the BubblePopped event, particles.
#include <cstring>

#include "bubbles_scenario.h"
#include "xrpm/emulator/bcl_delegate.h"
#include "xrpm/emulator/bcl_string.h"

namespace xrpm::emulator {
namespace {
constexpr float kScreenWidth = 1280, kScreenHeight = 720;
constexpr float kHitsPerSecond = 0.3f;  // chance per bubble per second that the player pops it
constexpr uint32_t kTrailLength = 16;
constexpr int kParticlesPerBurst = 12;
}  // namespace

void BubblesScenario::SpawnBubble(Runtime& rt) {
  MethodFrameScope s(rt, rt.main_thread(), t_.spawn, 2);
  s.set(0, rt.New(t_.bubble));
  const float radius = rng_.Range(16, 48);
  Addr b = s.get(0);
  rt.SetF32(b, t_.bubble_f.position, rng_.Range(radius, kScreenWidth - radius));
  rt.SetF32(b, t_.bubble_f.position + 4, kScreenHeight + radius);
  rt.SetF32(b, t_.bubble_f.velocity, rng_.Range(-20, 20));
  rt.SetF32(b, t_.bubble_f.velocity + 4, -rng_.Range(60, 140));
  rt.SetF32(b, t_.bubble_f.radius, radius);
  rt.SetI32(b, t_.bubble_f.color, static_cast<int32_t>(0xFF000000u | rng_.Below(0xFFFFFF)));
  rt.SetI32(b, t_.bubble_f.points, static_cast<int32_t>(64 - radius));
  OnSpawn(rt, s.slot(0));

  s.set(1, field(rt, t_.game1_f.bubbles));
  ListAdd(rt, t_.bubble_list, s.slot(1), s.slot(0));
}

void BubblesScenario::OnSpawn(Runtime& rt, Addr* bubble) {
  // Bubble.OnSpawn: the name, the label, the trail and the BubblePopped subscription, so
  // everything the leak scenario leaks per bubble besides the Bubble itself has this method as
  // its site.
  MethodFrameScope o(rt, rt.main_thread(), t_.on_spawn, 3);
  o.set(0, *bubble);
  // Name = "Bubble " + (++spawned);  IsAlive = true;
  o.set(1, rt.Intern("Bubble "));
  o.set(2, Int32ToString(rt, ++bubbles_spawned_));
  Addr name = StringConcat(rt, o.slot(1), o.slot(2));
  rt.SetRef(o.get(0), t_.bubble_f.name, name);
  rt.SetI32(o.get(0), t_.bubble_f.is_alive, 1);
  o.set(2, kNull);
  o.set(1, rt.Intern("+{0}"));
  Addr label = StringFormatInt(rt, o.slot(1), rt.I32(o.get(0), t_.bubble_f.points));
  rt.SetRef(o.get(0), t_.bubble_f.label, label);
  Addr trail = rt.NewArray(t_.vector2_array, kTrailLength);
  rt.SetRef(o.get(0), t_.bubble_f.trail, trail);

  // GameEvents.BubblePopped += this.OnPopped;
  o.set(1, DelegateNew(rt, t_.popped_handler, o.slot(0), t_.on_popped));
  rt.SetRef(o.get(0), t_.bubble_f.handler, o.get(1));
  rt.counters().Add(Counter::kUncontestedMonitorEnter, 1);  // event accessors lock
  Addr combined = DelegateCombine(rt, rt.statics().Slot(t_.events_popped), o.slot(1));
  rt.statics().Set(t_.events_popped, combined);
}

void BubblesScenario::MoveBubbles(Runtime& rt, MethodFrameScope& update, uint64_t frame,
                                  double dt) {
  // foreach (Bubble b in (IEnumerable<Bubble>)bubbles): the enumerator struct is boxed into
  // Update's local 2.
  update.set(2, rt.New(t_.bubble_enumerator));
  rt.SetRef(update.get(2), t_.enumerator_f.list, field(rt, t_.game1_f.bubbles));

  const auto fdt = static_cast<float>(dt);
  for (uint32_t i = ListCount(rt, field(rt, t_.game1_f.bubbles)); i-- > 0;) {
    Addr b = ListGet(rt, field(rt, t_.game1_f.bubbles), i);
    rt.SetRef(update.get(2), t_.enumerator_f.current, b);
    const uint16_t p = t_.bubble_f.position, v = t_.bubble_f.velocity;
    float x = rt.F32(b, p) + rt.F32(b, v) * fdt;
    float y = rt.F32(b, p + 4) + rt.F32(b, v + 4) * fdt;
    rt.SetF32(b, p, x);
    rt.SetF32(b, p + 4, y);
    rt.SetF32(b, t_.bubble_f.age, rt.F32(b, t_.bubble_f.age) + fdt);
    if (frame % 4 == 0) {
      Addr trail = rt.Ref(b, t_.bubble_f.trail);
      uint8_t* slot = rt.ArrayData(trail) + 8 * ((frame / 4) % kTrailLength);
      std::memcpy(slot, &x, 4);
      std::memcpy(slot + 4, &y, 4);
    }
    const bool escaped = y + rt.F32(b, t_.bubble_f.radius) < 0;
    const bool hit = rng_.Unit() < kHitsPerSecond * dt;
    if (escaped || hit) RemoveBubble(rt, i, hit);
  }
  rt.SetRef(update.get(2), t_.enumerator_f.current, kNull);
}

void BubblesScenario::RemoveBubble(Runtime& rt, uint32_t index, bool hit) {
  MethodFrameScope p(rt, rt.main_thread(), t_.pop, 2);
  p.set(0, ListGet(rt, field(rt, t_.game1_f.bubbles), index));
  ListRemoveAt(rt, field(rt, t_.game1_f.bubbles), index);
  rt.SetI32(p.get(0), t_.bubble_f.is_alive, 0);
  if (hit) {
    const int32_t points = rt.I32(p.get(0), t_.bubble_f.points);
    Addr board = field(rt, t_.game1_f.score_board);
    const int32_t score = rt.I32(board, t_.score_board_f.score) + points;
    rt.SetI32(board, t_.score_board_f.score, score);
    if (score > rt.I32(board, t_.score_board_f.best))
      rt.SetI32(board, t_.score_board_f.best, score);
    p.set(1, rt.Ref(board, t_.score_board_f.history));
    ListAddInt(rt, t_.int_list, p.slot(1), points);

    // GameEvents.BubblePopped(this, new PoppedEventArgs(bubble, points))
    p.set(1, rt.New(t_.popped_args));
    rt.SetRef(p.get(1), t_.popped_args_f.bubble, p.get(0));
    rt.SetI32(p.get(1), t_.popped_args_f.points, points);
    RaisePopped(rt, p.slot(1));

    // popSound.Play(): a fire-and-forget SoundEffectInstance, finalized later.
    Addr instance = rt.New(t_.sound_effect_instance);
    rt.SetRef(instance, t_.sound_instance_f.effect, field(rt, t_.game1_f.pop_sound));
    rt.SetF32(instance, t_.sound_instance_f.volume, 0.8f);
    rt.counters().Add(Counter::kPlatformInvokeCalls, 1);
  }
  if (!leak_) {
    // GameEvents.BubblePopped -= bubble.OnPopped;   (the leak scenario forgets this line)
    rt.counters().Add(Counter::kUncontestedMonitorEnter, 1);
    Addr rest = DelegateRemoveTarget(rt, rt.statics().Slot(t_.events_popped), p.get(0));
    rt.statics().Set(t_.events_popped, rest);
  }
}

void BubblesScenario::RaisePopped(Runtime& rt, Addr* args) {
  rt.counters().Add(Counter::kUncontestedMonitorEnter, 1);
  if (rt.statics().Get(t_.events_popped) == kNull) return;
  const uint32_t n = DelegateInvocationCount(rt, rt.statics().Get(t_.events_popped));
  for (uint32_t k = 0; k < n; ++k) {
    // Handlers allocate, so the event's delegate is re-read from its static each time.
    Addr handler = DelegateInvocationAt(rt, rt.statics().Get(t_.events_popped), k);
    Addr target = DelegateTarget(rt, handler);
    Addr popped = rt.Ref(*args, t_.popped_args_f.bubble);
    if (target != popped) continue;  // Bubble.OnPopped: "if (e.Bubble != this) return;"
    MethodFrameScope o(rt, rt.main_thread(), t_.on_popped, 1);
    o.set(0, target);
    Burst(rt, rt.F32(popped, t_.bubble_f.position), rt.F32(popped, t_.bubble_f.position + 4),
          rt.I32(popped, t_.bubble_f.color));
  }
}

void BubblesScenario::Burst(Runtime& rt, float x, float y, int32_t color) {
  MethodFrameScope f(rt, rt.main_thread(), t_.spawn_particles, 2);
  for (int k = 0; k < kParticlesPerBurst; ++k) {
    f.set(0, rt.New(t_.particle));
    Addr pt = f.get(0);
    rt.SetF32(pt, t_.particle_f.position, x);
    rt.SetF32(pt, t_.particle_f.position + 4, y);
    rt.SetF32(pt, t_.particle_f.velocity, rng_.Range(-150, 150));
    rt.SetF32(pt, t_.particle_f.velocity + 4, rng_.Range(-150, 150));
    rt.SetF32(pt, t_.particle_f.life, rng_.Range(0.5f, 1.2f));
    rt.SetI32(pt, t_.particle_f.color, color);
    f.set(1, rt.Ref(field(rt, t_.game1_f.particles), t_.particle_system_f.particles));
    ListAdd(rt, t_.particle_list, f.slot(1), f.slot(0));
  }
}

void BubblesScenario::CheckCollisions(Runtime& rt) {
  // foreach over bubbles.ToArray(), so bubbles may pop while iterating: a Bubble[] per frame.
  MethodFrameScope f(rt, rt.main_thread(), t_.check_collisions, 1);
  uint32_t n = ListCount(rt, field(rt, t_.game1_f.bubbles));
  f.set(0, rt.NewArray(t_.bubble_array, n));
  Addr items = rt.Ref(field(rt, t_.game1_f.bubbles), kListItems);
  std::memcpy(rt.ArrayData(f.get(0)), rt.ArrayData(items), 4 * n);
  // Overlapping bubbles bounce apart.
  Addr arr = f.get(0);
  const uint16_t p = t_.bubble_f.position, v = t_.bubble_f.velocity;
  for (uint32_t i = 0; i < n; ++i) {
    Addr a = rt.Elem(arr, i);
    for (uint32_t j = i + 1; j < n; ++j) {
      Addr b = rt.Elem(arr, j);
      float dx = rt.F32(a, p) - rt.F32(b, p), dy = rt.F32(a, p + 4) - rt.F32(b, p + 4);
      float r = rt.F32(a, t_.bubble_f.radius) + rt.F32(b, t_.bubble_f.radius);
      if (dx * dx + dy * dy < r * r) {
        float va = rt.F32(a, v);
        rt.SetF32(a, v, rt.F32(b, v));
        rt.SetF32(b, v, va);
      }
    }
  }
}

void BubblesScenario::EmitSmoke(Runtime& rt) {
  // A puff of smoke behind a few bubbles every frame.
  MethodFrameScope f(rt, rt.main_thread(), t_.emit_smoke, 2);
  uint32_t n = ListCount(rt, field(rt, t_.game1_f.bubbles));
  for (int k = 0; k < 3 && n > 0; ++k) {
    Addr b = ListGet(rt, field(rt, t_.game1_f.bubbles), rng_.Below(n));
    const float x = rt.F32(b, t_.bubble_f.position);
    const float y = rt.F32(b, t_.bubble_f.position + 4) + rt.F32(b, t_.bubble_f.radius);
    f.set(0, rt.New(t_.particle));
    Addr pt = f.get(0);
    rt.SetF32(pt, t_.particle_f.position, x);
    rt.SetF32(pt, t_.particle_f.position + 4, y);
    rt.SetF32(pt, t_.particle_f.velocity, rng_.Range(-10, 10));
    rt.SetF32(pt, t_.particle_f.velocity + 4, rng_.Range(-220, -180));  // rises, gravity brakes it
    rt.SetF32(pt, t_.particle_f.life, rng_.Range(0.3f, 0.8f));
    rt.SetI32(pt, t_.particle_f.color, static_cast<int32_t>(0x80C0C0C0u));
    f.set(1, rt.Ref(field(rt, t_.game1_f.particles), t_.particle_system_f.particles));
    ListAdd(rt, t_.particle_list, f.slot(1), f.slot(0));
  }
}

void BubblesScenario::UpdateParticles(Runtime& rt, double dt) {
  MethodFrameScope f(rt, rt.main_thread(), t_.update_particles, 1);
  const auto fdt = static_cast<float>(dt);
  Addr list = rt.Ref(field(rt, t_.game1_f.particles), t_.particle_system_f.particles);
  for (uint32_t i = ListCount(rt, list); i-- > 0;) {
    Addr pt = ListGet(rt, list, i);
    float life = rt.F32(pt, t_.particle_f.life) - fdt;
    if (life <= 0) {
      ListRemoveAt(rt, list, i);
      continue;
    }
    rt.SetF32(pt, t_.particle_f.life, life);
    const uint16_t p = t_.particle_f.position, v = t_.particle_f.velocity;
    rt.SetF32(pt, p, rt.F32(pt, p) + rt.F32(pt, v) * fdt);
    rt.SetF32(pt, p + 4, rt.F32(pt, p + 4) + rt.F32(pt, v + 4) * fdt);
    rt.SetF32(pt, v + 4, rt.F32(pt, v + 4) + 200 * fdt);  // gravity
  }
  // The list shrinks back when a burst is over.
  if (ListCapacity(rt, list) > 64 && ListCount(rt, list) * 4 < ListCapacity(rt, list)) {
    f.set(0, list);
    ListTrimExcess(rt, t_.particle_list, f.slot(0));
  }
}

}  // namespace xrpm::emulator

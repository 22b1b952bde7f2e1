#include "mistakes_scenario.h"

#include "xrpm/emulator/bcl_delegate.h"
#include "xrpm/emulator/bcl_list.h"
#include "xrpm/emulator/bcl_string.h"
#include "xrpm/emulator/method_frame_scope.h"

namespace xrpm::emulator {

void MistakesScenario::Setup(Runtime& rt) {
  using F = FieldType;
  TypeTable& t = rt.types();
  rt.LoadAssembly("Mistakes");
  const TypeIndex enemy = t.DefineClass(
      "Mistakes.Enemy", "Mistakes", 0, {{"name", F::kRef, "System.String"}, {"health", F::kInt32}});
  const TypeIndex enemy_array = t.DefineRefArray(enemy, "Mistakes");
  const ListType enemy_list = DefineListType(t, "Mistakes.Enemy", enemy_array, true);
  const TypeIndex texture = t.DefineClass(
      "Microsoft.Xna.Framework.Graphics.Texture2D", "Microsoft.Xna.Framework", 0,
      {{"name", F::kRef, "System.String"}, {"width", F::kInt32}, {"isDisposed", F::kBool}});
  const TypeIndex texture_array = t.DefineRefArray(texture, "Mistakes");
  const TypeIndex sound = t.DefineClass("Mistakes.SoundHandle", "Mistakes", 0,
                                        {{"handle", F::kInt32}}, ClassOptions{.finalizable = true});
  const TypeIndex sound_array = t.DefineRefArray(sound, "Mistakes");
  // A struct of the game that no field declares: only the runtime's traits tell it is one.
  const TypeIndex hit =
      t.DefineClass("Mistakes.Hit", "Mistakes", 0, {{"damage", F::kInt32}, {"x", F::kFloat}},
                    ClassOptions{.value_type = true});
  const ListType int_list = DefineListType(t, "System.Int32", rt.core().int32_array, false);
  const TypeIndex handler = t.DefineClass("System.EventHandler`1[Mistakes.KilledEventArgs]",
                                          "mscorlib", rt.core().multicast_delegate, {});
  const TypeIndex game =
      t.DefineClass("Mistakes.Game", "Mistakes", 0,
                    {{"enemies", F::kRef, "System.Collections.Generic.List`1<Mistakes.Enemy>"},
                     {"spawnQueue", F::kRef, "System.Collections.Generic.List`1<Mistakes.Enemy>"},
                     {"textures", F::kRef, "Microsoft.Xna.Framework.Graphics.Texture2D[]"},
                     {"scores", F::kRef, "System.Object[]"},
                     {"sounds", F::kRef, "Mistakes.SoundHandle[]"},
                     {"boss", F::kRef, "Mistakes.Enemy"},
                     {"hits", F::kRef, "System.Object[]"},
                     {"reserve", F::kRef, "System.Collections.Generic.List`1<Mistakes.Enemy>"},
                     {"histories", F::kRef, "System.Object[]"},
                     {"background", F::kRef, "Microsoft.Xna.Framework.Graphics.Texture2D"}});
  const TypeIndex events = t.DefineClass("Mistakes.GameEvents", "Mistakes", 0, {});
  const StaticId instance = rt.statics().Define(game, "Instance", "Mistakes.Game");
  const StaticId killed =
      rt.statics().Define(events, "EnemyKilled", "System.EventHandler`1[Mistakes.KilledEventArgs]");
  const MethodId on_killed = rt.methods().Intern("Mistakes.Enemy.OnEnemyKilled");
  auto off = [&](TypeIndex type, const char* f) { return t.Offset(type, f); };

  NoGcScope no_gc(rt);  // addresses stay put while the heap is planted
  Addr g = rt.New(game);
  rt.statics().Set(instance, g);
  auto new_enemy = [&](std::string_view name) {
    Addr e = rt.New(enemy);
    rt.SetRef(e, off(enemy, "name"), rt.NewString(name));
    rt.SetI32(e, off(enemy, "health"), 100);
    return e;
  };
  auto subscribe = [&](Addr target) {
    Addr d = DelegateNew(rt, handler, &target, on_killed);
    Addr cur = rt.statics().Get(killed);
    rt.statics().Set(killed, DelegateCombine(rt, &cur, &d));
  };
  // The enemies list: 5 of 16; its first enemy also listens to EnemyKilled (near-miss).
  Addr enemies = ListNew(rt, enemy_list, 16);
  rt.SetRef(g, off(game, "enemies"), enemies);
  for (int i = 0; i < 5; ++i) {
    Addr e = new_enemy("Grunt");
    ListAdd(rt, enemy_list, &enemies, &e);
    if (i == 0) subscribe(e);
  }
  // Four enemies only the event holds: removed from the game, never unsubscribed.
  for (int i = 0; i < 4; ++i) subscribe(new_enemy("Ghost " + std::to_string(i + 1)));
  rt.SetRef(g, off(game, "boss"), new_enemy("Boss"));
  // The spawn queue: capacity 32, one queued.
  Addr queue = ListNew(rt, enemy_list, 32);
  rt.SetRef(g, off(game, "spawnQueue"), queue);
  Addr queued = new_enemy("Runner");
  ListAdd(rt, enemy_list, &queue, &queued);
  // The reserve: 12 of 20 (60 %, near-miss).
  Addr reserve = ListNew(rt, enemy_list, 20);
  rt.SetRef(g, off(game, "reserve"), reserve);
  for (int i = 0; i < 12; ++i) {
    Addr e = new_enemy("Reserve " + std::to_string(i + 1));
    ListAdd(rt, enemy_list, &reserve, &e);
  }
  // Score histories: 9 empty List<int>(4096); near-miss: a tenth holding 2000.
  Addr histories = rt.NewArray(rt.core().object_array, 10);
  rt.SetRef(g, off(game, "histories"), histories);
  for (uint32_t i = 0; i < 10; ++i) {
    Addr h = ListNew(rt, int_list, 4096);
    rt.SetElem(histories, i, h);
    if (i == 9)
      for (int32_t k = 0; k < 2000; ++k) ListAddInt(rt, int_list, &h, k);
  }
  // 40 boxed Hit structs in an Object[]; near-miss: one more box dropped.
  Addr hits = rt.NewArray(rt.core().object_array, 40);
  rt.SetRef(g, off(game, "hits"), hits);
  auto new_hit = [&](int32_t damage) {
    Addr h = rt.New(hit);
    rt.SetI32(h, off(hit, "damage"), damage);
    return h;
  };
  for (uint32_t i = 0; i < 40; ++i) rt.SetElem(hits, i, new_hit(int32_t(i)));
  new_hit(-1);
  // Textures: two disposed and still held, one in use; a disposed one dropped.
  Addr textures = rt.NewArray(texture_array, 2);
  rt.SetRef(g, off(game, "textures"), textures);
  auto new_texture = [&](std::string_view name, bool disposed) {
    Addr x = rt.New(texture);
    rt.SetRef(x, off(texture, "name"), rt.NewString(name));
    rt.SetI32(x, off(texture, "width"), 256);
    rt.heap().At(x)[off(texture, "isDisposed")] = disposed ? 1 : 0;
    return x;
  };
  rt.SetElem(textures, 0, new_texture("level1", true));
  rt.SetElem(textures, 1, new_texture("level2", true));
  rt.SetRef(g, off(game, "background"), new_texture("sky", false));
  new_texture("old", true);
  // Scores boxed into an Object[]; one more box dropped.
  Addr scores = rt.NewArray(rt.core().object_array, 3);
  rt.SetRef(g, off(game, "scores"), scores);
  for (uint32_t i = 0; i < 3; ++i) rt.SetElem(scores, i, BoxInt32(rt, 100 * int32_t(i + 1)));
  BoxInt32(rt, 7);
  // Objects with a finalizer: two held by the game, two dropped without Dispose (the next
  // full collection, the capture's, queues them for their finalizer).
  Addr sounds = rt.NewArray(sound_array, 2);
  rt.SetRef(g, off(game, "sounds"), sounds);
  for (uint32_t i = 0; i < 4; ++i) {
    Addr s = rt.New(sound);
    rt.SetI32(s, off(sound, "handle"), int32_t(i + 1));
    if (i < 2) rt.SetElem(sounds, i, s);
  }
}

void MistakesScenario::Frame(Runtime& rt, uint64_t, double) {
  MethodFrameScope f(rt, rt.main_thread(), "Mistakes.Game.Update", 0);
  frames_.fetch_add(1, std::memory_order_relaxed);
}

std::string MistakesScenario::Status() const {
  return std::to_string(frames_.load()) + " frames";
}

}  // namespace xrpm::emulator

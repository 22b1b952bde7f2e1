// BubblesScenario setup: Program.Main, Game1's constructor and LoadContent.
#include <cstring>

#include "bubbles_scenario.h"
#include "xrpm/emulator/bcl_delegate.h"

namespace xrpm::emulator {

void BubblesScenario::SetLocal(Runtime& rt, size_t depth, uint32_t i, Addr a, uint8_t flags) {
  Local& l = rt.main_thread().frames[depth].locals[i];
  l.obj = a;
  l.flags = flags;
}

void BubblesScenario::Setup(Runtime& rt) {
  rt.LoadAssembly("Microsoft.Xna.Framework");
  rt.LoadAssembly("Microsoft.Xna.Framework.Game");
  rt.LoadAssembly("bubbles");
  t_ = DefineBubblesTypes(rt);
  CreateGame(rt);
  LoadContent(rt);
  CreateGameState(rt);
  StartAudio(rt);
  rt.counters().Set(Counter::kThreadsInThreadPool, 1);
  rt.counters().Set(Counter::kPendingTimers, 1);
  EnterPresent(rt);
}

void BubblesScenario::CreateGame(Runtime& rt) {
  ManagedThread& main = rt.main_thread();
  // static void Main(string[] args) { using (var game = new Game1()) game.Run(); }
  size_t main_depth = rt.PushFrame(main, t_.program_main, 2);
  SetLocal(rt, main_depth, 0, rt.NewArray(rt.core().string_array, 0));
  rt.statics().Set(t_.game1_instance, rt.New(t_.game1));
  SetLocal(rt, main_depth, 1, game(rt));
  rt.SetI64(game(rt), rt.types().Offset(t_.game, "targetElapsedTime"), 166667);

  Addr box = rt.New(t_.vector2);
  rt.statics().Set(t_.vector2_zero, box);
  box = rt.New(t_.vector2);
  rt.SetF32(box, t_.vec2.x, 1);
  rt.SetF32(box, t_.vec2.y, 1);
  rt.statics().Set(t_.vector2_one, box);

  Addr gdm = rt.New(t_.graphics_device_manager);
  rt.SetRef(game(rt), t_.game1_f.graphics, gdm);
  rt.SetRef(gdm, t_.graphics_f.game, game(rt));
  Addr device = rt.New(t_.graphics_device);
  rt.SetRef(field(rt, t_.game1_f.graphics), t_.graphics_f.device, device);
  Addr time = rt.New(t_.game_time);
  rt.SetRef(game(rt), t_.game1_f.game_time, time);

  size_t run_depth = rt.PushFrame(main, t_.game_run, 1);
  SetLocal(rt, run_depth, 0, game(rt));
  // Game.Tick keeps `this`, its GameTime and a byref into the GameTime (an interior pointer).
  tick_depth_ = rt.PushFrame(main, t_.game_tick, 3);
  SetLocal(rt, tick_depth_, 0, game(rt));
  SetLocal(rt, tick_depth_, 1, field(rt, t_.game1_f.game_time));
  SetLocal(rt, tick_depth_, 2, field(rt, t_.game1_f.game_time), kRootFlagInterior);
}

Addr BubblesScenario::LoadTexture(Runtime& rt, const char* asset, int32_t width, int32_t height) {
  // ContentManager.Load<Texture2D>(asset)
  MethodFrameScope f(rt, rt.main_thread(), t_.content_load, 2);
  rt.TypeObject(t_.texture2d);
  f.set(0, rt.New(t_.texture2d));
  Addr name = rt.Intern(asset);
  rt.SetRef(f.get(0), t_.texture_f.name, name);
  rt.SetRef(f.get(0), t_.texture_f.device,
            rt.Ref(field(rt, t_.game1_f.graphics), t_.graphics_f.device));
  rt.SetI32(f.get(0), t_.texture_f.width, width);
  rt.SetI32(f.get(0), t_.texture_f.height, height);
  f.set(1, rt.Ref(field(rt, t_.game1_f.content), t_.content_f.loaded_assets));
  ListAdd(rt, t_.object_list, f.slot(1), f.slot(0));
  rt.counters().Add(Counter::kPlatformInvokeCalls, 1);  // the texture upload
  return f.get(0);
}

void BubblesScenario::LoadContent(Runtime& rt) {
  Addr content = rt.New(t_.content_manager);
  rt.SetRef(game(rt), t_.game1_f.content, content);
  Addr root_dir = rt.Intern("Content");
  rt.SetRef(field(rt, t_.game1_f.content), t_.content_f.root_directory, root_dir);
  Addr assets = ListNew(rt, t_.object_list, 8);
  rt.SetRef(field(rt, t_.game1_f.content), t_.content_f.loaded_assets, assets);

  Addr batch = rt.New(t_.sprite_batch);
  rt.SetRef(game(rt), t_.game1_f.sprite_batch, batch);
  Addr queue = rt.NewArray(t_.sprite_info_array, 256);
  rt.SetRef(field(rt, t_.game1_f.sprite_batch), t_.sprite_batch_f.queue, queue);
  rt.SetRef(field(rt, t_.game1_f.sprite_batch), t_.sprite_batch_f.device,
            rt.Ref(field(rt, t_.game1_f.graphics), t_.graphics_f.device));

  Addr tex = LoadTexture(rt, "Textures\\bubble", 64, 64);
  rt.SetRef(game(rt), t_.game1_f.bubble_texture, tex);

  // SpriteFont: its glyph texture, glyph rectangles and character map.
  rt.TypeObject(t_.sprite_font);
  Addr font = rt.New(t_.sprite_font);
  rt.SetRef(game(rt), t_.game1_f.font, font);
  tex = LoadTexture(rt, "Fonts\\Score_0", 256, 128);
  rt.SetRef(field(rt, t_.game1_f.font), t_.font_f.texture, tex);
  Addr glyphs = rt.NewArray(t_.rectangle_array, 96);
  rt.SetRef(field(rt, t_.game1_f.font), t_.font_f.glyphs, glyphs);
  Addr chars = rt.NewArray(rt.core().char_array, 96);
  rt.SetRef(field(rt, t_.game1_f.font), t_.font_f.characters, chars);

  rt.TypeObject(t_.sound_effect);
  Addr sound = rt.New(t_.sound_effect);
  rt.SetRef(game(rt), t_.game1_f.pop_sound, sound);
  Addr sound_name = rt.Intern("Sounds\\pop");
  rt.SetRef(field(rt, t_.game1_f.pop_sound), t_.sound_effect_f.name, sound_name);
  Addr pcm = rt.NewArray(rt.core().byte_array, 22050);
  rt.SetRef(field(rt, t_.game1_f.pop_sound), t_.sound_effect_f.data, pcm);
}

void BubblesScenario::CreateGameState(Runtime& rt) {
  Addr list = ListNew(rt, t_.bubble_list, 16);
  rt.SetRef(game(rt), t_.game1_f.bubbles, list);

  Addr ps = rt.New(t_.particle_system);
  rt.SetRef(game(rt), t_.game1_f.particles, ps);
  list = ListNew(rt, t_.particle_list, 64);
  rt.SetRef(field(rt, t_.game1_f.particles), t_.particle_system_f.particles, list);
  Addr vertices = rt.NewArray(t_.vertex_array, 256);
  rt.SetRef(field(rt, t_.game1_f.particles), t_.particle_system_f.vertices, vertices);
  Addr tex = LoadTexture(rt, "Textures\\spark", 16, 16);
  rt.SetRef(field(rt, t_.game1_f.particles), t_.particle_system_f.texture, tex);

  Addr board = rt.New(t_.score_board);
  rt.SetRef(game(rt), t_.game1_f.score_board, board);
  rt.statics().Set(t_.score_prefix, rt.Intern("Score: "));
  Addr text = rt.NewString("Score: 0");
  rt.SetRef(field(rt, t_.game1_f.score_board), t_.score_board_f.text, text);
  list = ListNew(rt, t_.int_list, 16);
  rt.SetRef(field(rt, t_.game1_f.score_board), t_.score_board_f.history, list);

  Addr random = rt.New(rt.core().random);
  rt.SetRef(game(rt), t_.game1_f.random, random);
  Addr seeds = rt.NewArray(rt.core().int32_array, 56);
  rt.SetRef(field(rt, t_.game1_f.random), rt.core().random_seed_array, seeds);

  list = ListNew(rt, t_.weak_list, 4);
  rt.SetRef(game(rt), t_.game1_f.banner_cache, list);
  Addr status = rt.statics().Get(rt.core().string_empty);
  rt.SetRef(game(rt), t_.game1_f.status_text, status);
  rt.Intern("{0} bubbles");
  rt.Intern("+{0}");

  // High scores, read at startup (the storage stays reachable from a static).
  rt.statics().Set(t_.storage_instance, rt.New(t_.high_score_storage));
  Addr path = rt.Intern("\\Storage\\bubbles\\highscores.txt");
  rt.SetRef(rt.statics().Get(t_.storage_instance), rt.types().Offset(t_.high_score_storage, "path"),
            path);
  Addr entries = rt.NewArray(rt.core().string_array, 10);
  rt.SetRef(rt.statics().Get(t_.storage_instance),
            rt.types().Offset(t_.high_score_storage, "entries"), entries);
  for (uint32_t i = 0; i < 10; ++i) {
    Addr e = rt.NewString("AAA " + std::to_string(10000 - 900 * i));
    Addr arr = rt.Ref(rt.statics().Get(t_.storage_instance),
                      rt.types().Offset(t_.high_score_storage, "entries"));
    rt.SetElem(arr, i, e);
  }
}

void BubblesScenario::StartAudio(Runtime& rt) {
  Addr audio = rt.New(t_.audio_streamer);
  rt.SetRef(game(rt), t_.game1_f.audio, audio);
  Addr buffer = rt.NewArray(rt.core().byte_array, 16384);
  rt.SetRef(field(rt, t_.game1_f.audio), t_.audio_f.buffer, buffer);
  // The XMA decoder reads the buffer from native code: a pinned handle for the audio's lifetime.
  uint32_t pin = rt.handles().Alloc(buffer, HandleType::kPinned);
  rt.SetI32(field(rt, t_.game1_f.audio), t_.audio_f.handle, static_cast<int32_t>(pin));

  ManagedThread& audio_thread = rt.CreateThread("AudioStreamer");
  size_t run = rt.PushFrame(audio_thread, t_.audio_run, 1);
  audio_thread.frames[run].locals[0].obj = field(rt, t_.game1_f.audio);
  Addr callback =
      DelegateNew(rt, t_.timer_callback, &audio_thread.frames[run].locals[0].obj, t_.audio_run);
  rt.SetRef(field(rt, t_.game1_f.audio), t_.audio_f.callback, callback);
  // The native audio engine calls back into managed code: a normal handle keeps the delegate.
  rt.handles().Alloc(callback, HandleType::kNormal);
  // The thread is blocked in the native submit call, which pins the buffer it was given.
  size_t submit =
      rt.PushFrame(audio_thread, t_.audio_submit, 1, agent::ContainerType::kNativeFrame);
  audio_thread.frames[submit].locals[0] =
      Local{rt.Ref(field(rt, t_.game1_f.audio), t_.audio_f.buffer), kRootFlagPinned};
}

void BubblesScenario::EnterPresent(Runtime& rt) {
  // The game waits for the vertical blank in native code; the particle vertices it submitted
  // stay pinned until the GPU has read them.
  ManagedThread& main = rt.main_thread();
  size_t d = rt.PushFrame(main, t_.present, 1, agent::ContainerType::kNativeFrame);
  main.frames[d].locals[0] = Local{
      rt.Ref(field(rt, t_.game1_f.particles), t_.particle_system_f.vertices), kRootFlagPinned};
  rt.counters().Add(Counter::kPlatformInvokeCalls, 1);
}

}  // namespace xrpm::emulator

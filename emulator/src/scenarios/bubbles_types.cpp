#include "bubbles_types.h"

namespace xrpm::emulator {
namespace {
constexpr const char* kXna = "Microsoft.Xna.Framework";
constexpr const char* kXnaGame = "Microsoft.Xna.Framework.Game";
constexpr const char* kGame = "bubbles";
}  // namespace

BubblesTypes DefineBubblesTypes(Runtime& rt) {
  using F = FieldType;
  TypeTable& t = rt.types();
  const CoreTypes& c = rt.core();
  BubblesTypes b{};

  // ---- Microsoft.Xna.Framework ----
  b.vector2 = t.DefineClass("Microsoft.Xna.Framework.Vector2", kXna, 0,
                            {{"X", F::kFloat}, {"Y", F::kFloat}}, {.value_type = true});
  b.vec2 = {t.Offset(b.vector2, "X"), t.Offset(b.vector2, "Y")};
  b.vector2_array = t.DefineArray("Microsoft.Xna.Framework.Vector2[]", kXna, 8, false);
  b.vertex_array =
      t.DefineArray("Microsoft.Xna.Framework.Graphics.VertexPositionColor[]", kXna, 16, false);
  b.rectangle_array = t.DefineArray("Microsoft.Xna.Framework.Rectangle[]", kXna, 16, false);
  b.sprite_info_array =
      t.DefineArray("Microsoft.Xna.Framework.Graphics.SpriteBatch+SpriteInfo[]", kXna, 64, false);
  b.game_time = t.DefineClass("Microsoft.Xna.Framework.GameTime", kXnaGame, 0,
                              {{"elapsedGameTime", F::kInt64},
                               {"totalGameTime", F::kInt64},
                               {"elapsedRealTime", F::kInt64},
                               {"totalRealTime", F::kInt64},
                               {"isRunningSlowly", F::kBool}});
  b.game_time_f = {t.Offset(b.game_time, "elapsedGameTime"), t.Offset(b.game_time, "totalGameTime"),
                   t.Offset(b.game_time, "elapsedRealTime"),
                   t.Offset(b.game_time, "totalRealTime")};
  b.graphics_device = t.DefineClass(
      "Microsoft.Xna.Framework.Graphics.GraphicsDevice", kXna, 0,
      {{"presentationParameters", F::kRef}, {"pComPtr", F::kInt32}, {"isDisposed", F::kBool}});
  b.graphics_device_manager =
      t.DefineClass("Microsoft.Xna.Framework.GraphicsDeviceManager", kXnaGame, 0,
                    {{"game", F::kRef},
                     {"device", F::kRef},
                     {"backBufferWidth", F::kInt32},
                     {"backBufferHeight", F::kInt32}});
  b.graphics_f = {t.Offset(b.graphics_device_manager, "game"),
                  t.Offset(b.graphics_device_manager, "device")};
  b.sprite_batch = t.DefineClass("Microsoft.Xna.Framework.Graphics.SpriteBatch", kXna, 0,
                                 {{"graphicsDevice", F::kRef},
                                  {"spriteQueue", F::kRef},
                                  {"spriteQueueCount", F::kInt32},
                                  {"inBeginEndPair", F::kBool}});
  b.sprite_batch_f = {t.Offset(b.sprite_batch, "graphicsDevice"),
                      t.Offset(b.sprite_batch, "spriteQueue")};
  // GraphicsResource has a finalizer: textures are finalizable.
  b.texture2d = t.DefineClass("Microsoft.Xna.Framework.Graphics.Texture2D", kXna, 0,
                              {{"graphicsDevice", F::kRef},
                               {"name", F::kRef},
                               {"width", F::kInt32},
                               {"height", F::kInt32},
                               {"pComPtr", F::kInt32}},
                              {.finalizable = true});
  b.texture_f = {t.Offset(b.texture2d, "graphicsDevice"), t.Offset(b.texture2d, "name"),
                 t.Offset(b.texture2d, "width"), t.Offset(b.texture2d, "height")};
  b.sprite_font = t.DefineClass("Microsoft.Xna.Framework.Graphics.SpriteFont", kXna, 0,
                                {{"textureValue", F::kRef},
                                 {"glyphData", F::kRef},
                                 {"characterMap", F::kRef},
                                 {"lineSpacing", F::kInt32},
                                 {"spacing", F::kFloat}});
  b.font_f = {t.Offset(b.sprite_font, "textureValue"), t.Offset(b.sprite_font, "glyphData"),
              t.Offset(b.sprite_font, "characterMap")};
  b.object_list = DefineListType(t, "System.Object", c.object_array, true);
  b.content_manager = t.DefineClass(
      "Microsoft.Xna.Framework.Content.ContentManager", kXna, 0,
      {{"rootDirectory", F::kRef}, {"loadedAssets", F::kRef}, {"serviceProvider", F::kRef}});
  b.content_f = {t.Offset(b.content_manager, "rootDirectory"),
                 t.Offset(b.content_manager, "loadedAssets")};
  b.sound_effect = t.DefineClass("Microsoft.Xna.Framework.Audio.SoundEffect", kXna, 0,
                                 {{"name", F::kRef}, {"data", F::kRef}, {"duration", F::kInt64}},
                                 {.finalizable = true});
  b.sound_effect_f = {t.Offset(b.sound_effect, "name"), t.Offset(b.sound_effect, "data")};
  b.sound_effect_instance =
      t.DefineClass("Microsoft.Xna.Framework.Audio.SoundEffectInstance", kXna, 0,
                    {{"effect", F::kRef},
                     {"volume", F::kFloat},
                     {"pitch", F::kFloat},
                     {"pan", F::kFloat},
                     {"state", F::kInt32},
                     {"voiceHandle", F::kInt32}},
                    {.finalizable = true});
  b.sound_instance_f = {t.Offset(b.sound_effect_instance, "effect"),
                        t.Offset(b.sound_effect_instance, "volume")};
  b.game = t.DefineClass("Microsoft.Xna.Framework.Game", kXnaGame, 0,
                         {{"content", F::kRef},
                          {"gameTime", F::kRef},
                          {"targetElapsedTime", F::kInt64},
                          {"isActive", F::kBool}});

  // ---- bubbles ----
  b.bubble = t.DefineClass("Bubbles.Bubble", kGame, 0,
                           {{"Position", F::kVector2},
                            {"Velocity", F::kVector2},
                            {"Radius", F::kFloat},
                            {"Color", F::kInt32},
                            {"Points", F::kInt32},
                            {"Age", F::kFloat},
                            {"Label", F::kRef, "System.String"},
                            {"Trail", F::kRef, "Microsoft.Xna.Framework.Vector2[]"},
                            {"Handler", F::kRef, "System.EventHandler`1[Bubbles.PoppedEventArgs]"},
                            {"Name", F::kRef, "System.String"},
                            {"IsAlive", F::kBool}});
  b.bubble_f = {
      t.Offset(b.bubble, "Position"), t.Offset(b.bubble, "Velocity"), t.Offset(b.bubble, "Radius"),
      t.Offset(b.bubble, "Color"),    t.Offset(b.bubble, "Points"),   t.Offset(b.bubble, "Age"),
      t.Offset(b.bubble, "Label"),    t.Offset(b.bubble, "Trail"),    t.Offset(b.bubble, "Handler"),
      t.Offset(b.bubble, "Name"),     t.Offset(b.bubble, "IsAlive")};
  b.bubble_array = t.DefineRefArray(b.bubble, kGame);
  b.bubble_list = DefineListType(t, "Bubbles.Bubble", b.bubble_array, true);
  b.bubble_enumerator = t.DefineClass(
      "System.Collections.Generic.List`1+Enumerator[Bubbles.Bubble]", "mscorlib", 0,
      {{"list", F::kRef}, {"index", F::kInt32}, {"version", F::kInt32}, {"current", F::kRef}},
      {.value_type = true});
  b.enumerator_f = {t.Offset(b.bubble_enumerator, "list"), t.Offset(b.bubble_enumerator, "index"),
                    t.Offset(b.bubble_enumerator, "version"),
                    t.Offset(b.bubble_enumerator, "current")};
  b.particle = t.DefineClass("Bubbles.Particle", kGame, 0,
                             {{"Position", F::kVector2},
                              {"Velocity", F::kVector2},
                              {"Life", F::kFloat},
                              {"Color", F::kInt32}});
  b.particle_f = {t.Offset(b.particle, "Position"), t.Offset(b.particle, "Velocity"),
                  t.Offset(b.particle, "Life"), t.Offset(b.particle, "Color")};
  b.particle_list =
      DefineListType(t, "Bubbles.Particle", t.DefineRefArray(b.particle, kGame), true);
  b.particle_system = t.DefineClass("Bubbles.ParticleSystem", kGame, 0,
                                    {{"particles", F::kRef},
                                     {"texture", F::kRef},
                                     {"vertices", F::kRef},
                                     {"spawned", F::kInt32}});
  b.particle_system_f = {t.Offset(b.particle_system, "particles"),
                         t.Offset(b.particle_system, "texture"),
                         t.Offset(b.particle_system, "vertices")};
  b.int_list = DefineListType(t, "System.Int32", c.int32_array, false);
  b.score_board = t.DefineClass("Bubbles.ScoreBoard", kGame, 0,
                                {{"Score", F::kInt32},
                                 {"Text", F::kRef},
                                 {"History", F::kRef},
                                 {"Banner", F::kRef},
                                 {"Best", F::kInt32}});
  b.score_board_f = {t.Offset(b.score_board, "Score"), t.Offset(b.score_board, "Text"),
                     t.Offset(b.score_board, "History"), t.Offset(b.score_board, "Banner"),
                     t.Offset(b.score_board, "Best")};
  b.popped_args = t.DefineClass("Bubbles.PoppedEventArgs", kGame, c.event_args,
                                {{"Bubble", F::kRef}, {"Points", F::kInt32}});
  b.popped_args_f = {t.Offset(b.popped_args, "Bubble"), t.Offset(b.popped_args, "Points")};
  b.popped_handler = t.DefineClass("System.EventHandler`1[Bubbles.PoppedEventArgs]", "mscorlib",
                                   c.multicast_delegate, {});
  b.timer_callback =
      t.DefineClass("System.Threading.TimerCallback", "mscorlib", c.multicast_delegate, {});
  b.game_events = t.DefineClass("Bubbles.GameEvents", kGame, 0, {});
  b.audio_streamer = t.DefineClass(
      "Bubbles.AudioStreamer", kGame, 0,
      {{"buffer", F::kRef}, {"callback", F::kRef}, {"handle", F::kInt32}, {"position", F::kInt32}});
  b.audio_f = {t.Offset(b.audio_streamer, "buffer"), t.Offset(b.audio_streamer, "callback"),
               t.Offset(b.audio_streamer, "handle")};
  b.high_score_storage = t.DefineClass("Bubbles.HighScoreStorage", kGame, 0,
                                       {{"path", F::kRef}, {"entries", F::kRef}});
  b.weak_list = DefineListType(t, "System.WeakReference",
                               t.DefineRefArray(c.weak_reference, "mscorlib"), true);
  b.game1 = t.DefineClass("Bubbles.Game1", kGame, b.game,
                          {{"graphics", F::kRef},
                           {"spriteBatch", F::kRef},
                           {"bubbles", F::kRef},
                           {"particles", F::kRef},
                           {"scoreBoard", F::kRef},
                           {"random", F::kRef},
                           {"font", F::kRef},
                           {"bubbleTexture", F::kRef},
                           {"popSound", F::kRef},
                           {"statusText", F::kRef},
                           {"debugArgs", F::kRef},
                           {"bannerCache", F::kRef},
                           {"audio", F::kRef},
                           {"cursor", F::kVector2},
                           {"frameCount", F::kInt32},
                           {"spawnTimer", F::kFloat}});
  auto g = [&](const char* f) { return t.Offset(b.game1, f); };
  b.game1_f = {g("content"),    g("gameTime"),      g("graphics"),   g("spriteBatch"),
               g("bubbles"),    g("particles"),     g("scoreBoard"), g("random"),
               g("font"),       g("bubbleTexture"), g("popSound"),   g("statusText"),
               g("debugArgs"),  g("bannerCache"),   g("audio"),      g("cursor"),
               g("frameCount"), g("spawnTimer")};

  // ---- statics ----
  Statics& s = rt.statics();
  b.vector2_zero = s.Define(b.vector2, "zeroVector");
  b.vector2_one = s.Define(b.vector2, "unitVector");
  b.game1_instance = s.Define(b.game1, "Instance", "Bubbles.Game1");
  b.events_popped =
      s.Define(b.game_events, "BubblePopped", "System.EventHandler`1[Bubbles.PoppedEventArgs]");
  b.score_prefix = s.Define(b.score_board, "Prefix");
  b.storage_instance = s.Define(b.high_score_storage, "s_instance");

  // ---- methods ----
  MethodTable& m = rt.methods();
  b.program_main = m.Intern("Bubbles.Program.Main");
  b.game_run = m.Intern("Microsoft.Xna.Framework.Game.Run");
  b.game_tick = m.Intern("Microsoft.Xna.Framework.Game.Tick");
  b.present = m.Intern("Microsoft.Xna.Framework.Graphics.GraphicsDevice.Present");
  b.update = m.Intern("Bubbles.Game1.Update");
  b.draw = m.Intern("Bubbles.Game1.Draw");
  b.spawn = m.Intern("Bubbles.BubbleField.Spawn");
  b.pop = m.Intern("Bubbles.Game1.PopBubble");
  b.on_popped = m.Intern("Bubbles.Bubble.OnPopped");
  b.update_particles = m.Intern("Bubbles.ParticleSystem.Update");
  b.spawn_particles = m.Intern("Bubbles.ParticleSystem.Burst");
  b.emit_smoke = m.Intern("Bubbles.ParticleSystem.EmitSmoke");
  b.check_collisions = m.Intern("Bubbles.Game1.CheckCollisions");
  b.draw_particles = m.Intern("Bubbles.ParticleSystem.Draw");
  b.draw_bubbles = m.Intern("Bubbles.Game1.DrawBubbles");
  b.draw_user_primitives =
      m.Intern("Microsoft.Xna.Framework.Graphics.GraphicsDevice.DrawUserPrimitives");
  b.rebuild_text = m.Intern("Bubbles.ScoreBoard.RebuildText");
  b.make_banner = m.Intern("Bubbles.ScoreBoard.RenderBanner");
  b.parse_scores = m.Intern("Bubbles.HighScoreStorage.Parse");
  b.audio_run = m.Intern("Bubbles.AudioStreamer.Run");
  b.audio_submit = m.Intern("Bubbles.NativeMethods.XAudioSubmitBuffer");
  b.content_load = m.Intern("Microsoft.Xna.Framework.Content.ContentManager.Load");
  b.on_spawn = m.Intern("Bubbles.Bubble.OnSpawn");  // last: the other methods keep their ids
  return b;
}

}  // namespace xrpm::emulator

// The classes of the `bubbles` game and the XNA Framework classes it uses, with NETCF layouts,
// the field offsets the game code uses, its static fields and its methods.
//
// Thread-safety: a value, filled once by DefineBubblesTypes during Setup.
#pragma once

#include <cstdint>

#include "xrpm/emulator/bcl_list.h"
#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

struct BubblesTypes {
  // Microsoft.Xna.Framework
  TypeIndex vector2, vector2_array, game_time, game, graphics_device_manager, graphics_device,
      sprite_batch, sprite_info_array, texture2d, sprite_font, rectangle_array, content_manager,
      sound_effect, sound_effect_instance, vertex_array;
  // bubbles
  TypeIndex game1, bubble, bubble_array, particle, particle_system, score_board, popped_args,
      popped_handler, game_events, audio_streamer, timer_callback, bubble_enumerator,
      high_score_storage;
  ListType bubble_list, particle_list, int_list, weak_list, object_list;

  struct {
    uint16_t x, y;
  } vec2;
  struct {
    uint16_t elapsed, total, elapsed_real, total_real;
  } game_time_f;
  struct {
    uint16_t content, game_time, graphics, sprite_batch, bubbles, particles, score_board, random,
        font, bubble_texture, pop_sound, status_text, debug_args, banner_cache, audio, cursor,
        frame_count, spawn_timer;
  } game1_f;
  struct {
    uint16_t position, velocity, radius, color, points, age, label, trail, handler, name, is_alive;
  } bubble_f;
  struct {
    uint16_t position, velocity, life, color;
  } particle_f;
  struct {
    uint16_t particles, texture, vertices;
  } particle_system_f;
  struct {
    uint16_t score, text, history, banner, best;
  } score_board_f;
  struct {
    uint16_t bubble, points;
  } popped_args_f;
  struct {
    uint16_t device, name, width, height;
  } texture_f;
  struct {
    uint16_t effect, volume;
  } sound_instance_f;
  struct {
    uint16_t buffer, callback, handle;
  } audio_f;
  struct {
    uint16_t list, index, version, current;
  } enumerator_f;
  struct {
    uint16_t game, device;
  } graphics_f;
  struct {
    uint16_t device, queue;
  } sprite_batch_f;
  struct {
    uint16_t texture, glyphs, characters;
  } font_f;
  struct {
    uint16_t root_directory, loaded_assets;
  } content_f;
  struct {
    uint16_t name, data;
  } sound_effect_f;

  // statics
  StaticId game1_instance, events_popped, vector2_zero, vector2_one, score_prefix, storage_instance;

  // methods
  MethodId program_main, game_run, game_tick, present, update, draw, spawn, pop, on_popped,
      update_particles, spawn_particles, emit_smoke, check_collisions, draw_particles, draw_bubbles,
      draw_user_primitives, rebuild_text, make_banner, parse_scores, audio_run, audio_submit,
      content_load, on_spawn;
};

BubblesTypes DefineBubblesTypes(Runtime& rt);

}  // namespace xrpm::emulator

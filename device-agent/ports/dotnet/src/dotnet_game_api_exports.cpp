// The profiler library's exports for Xrpm.dll (dotnet_game_api.h says what each does and how
// Xrpm.dll finds them). In the library's own sources, not the port's static library: the library is
// linked with --exclude-libs, which hides every symbol of a static library.
//
// Thread-safety: any thread (dotnet_game_api.h).
#include <cstdint>

#include "dotnet_game_api.h"

#define XRPM_GAME_API_EXPORT extern "C" __attribute__((visibility("default")))

XRPM_GAME_API_EXPORT int32_t xrpm_game_api_version() {
  return xrpm::dotnet::GameApiVersion();
}

XRPM_GAME_API_EXPORT void xrpm_game_post(int32_t kind, const char16_t* text, int32_t length) {
  xrpm::dotnet::GameApiPost(kind, text, length);
}

XRPM_GAME_API_EXPORT void xrpm_game_enter_scope(const char16_t* tag, int32_t length) {
  xrpm::dotnet::GameApiEnterScope(tag, length);
}

XRPM_GAME_API_EXPORT void xrpm_game_leave_scope() {
  xrpm::dotnet::GameApiLeaveScope();
}

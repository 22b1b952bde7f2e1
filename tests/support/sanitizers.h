// Whether this test binary runs under AddressSanitizer, for the few checks whose figure ASan
// changes by design: its quarantine keeps freed memory resident (up to 256 MiB), so a "memory
// stays flat" check measures the quarantine, not the code. Such tests still check descriptors
// and results under ASan; the release stage checks the memory. Likewise under
// ThreadSanitizer, whose instrumented writes also write its shadow memory (page faults
// counted there are then partly its own).
//
// Thread-safety: a constant.
#pragma once

namespace xrpm::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif
#else
inline constexpr bool kUnderAsan = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kUnderTsan = true;
#else
inline constexpr bool kUnderTsan = false;
#endif
#else
inline constexpr bool kUnderTsan = false;
#endif

}  // namespace xrpm::testing

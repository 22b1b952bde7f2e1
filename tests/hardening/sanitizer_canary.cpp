// Sanitizer canary: commits one deliberate bug of the kind named by argv[1], so that ctest can
// prove the sanitizer of this build is really active and really fails the run. If a preset
// loses its -fsanitize flags, the bug goes unnoticed, the expected report is missing and the
// canary test fails. Built only in the asan and tsan presets (tests/hardening/CMakeLists.txt).
//
//   heap-overflow  one int past a heap array (ASan)
//   leak           a heap block nobody frees (LeakSanitizer, at exit)
//   int-overflow   signed int overflow (UBSan; the build makes it fatal)
//   data-race      two threads write one int without synchronisation (TSan)
//
// Thread-safety: data-race is racy on purpose; nothing else uses threads.
#include <climits>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

volatile int g_index = 4;  // volatile: the compiler cannot prove the bugs away
int g_shared = 0;
void* volatile g_leaked = nullptr;

}  // namespace

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  if (!std::strcmp(what, "heap-overflow")) {
    int* a = new int[4];
    a[g_index] = 1;
    std::printf("%d\n", a[g_index]);
    delete[] a;
  } else if (!std::strcmp(what, "leak")) {
    g_leaked = new int[64];
    g_leaked = nullptr;
  } else if (!std::strcmp(what, "int-overflow")) {
    volatile int x = INT_MAX;
    volatile int y = x + g_index;
    std::printf("%d\n", y);
  } else if (!std::strcmp(what, "data-race")) {
    std::thread t([] { g_shared += g_index; });
    g_shared += g_index;
    t.join();
    std::printf("%d\n", g_shared);
  } else {
    std::fprintf(stderr, "usage: sanitizer_canary heap-overflow|leak|int-overflow|data-race\n");
    return 2;
  }
  std::printf("canary: no sanitizer report\n");
  return 0;
}

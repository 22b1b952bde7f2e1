// libFuzzer target: the reader of Mono's log profiler files (tests/mono/mlpd_heapshots.h), which
// the real-program suite uses as its independent reading of a heap, on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. a rejected file comes with an error naming the byte offset ("byte N: ...");
//   2. an accepted one has no object of size 0 in a heapshot (repeats are folded), and no more
//      heapshot objects than the input has bytes (memory bounded by the input).
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "mlpd_heapshots.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  xrpm::testing::MlpdFile f;
  std::string error;
  if (!xrpm::testing::ReadMlpd(bytes, &f, &error)) {
    XRPM_FUZZ_CHECK(error.rfind("byte ", 0) == 0, error);
    return 0;
  }
  size_t objects = 0;
  for (const auto& h : f.heapshots)
    for (const auto& o : h) {
      XRPM_FUZZ_CHECK(o.size != 0, "a heapshot object of size 0");
      ++objects;
    }
  XRPM_FUZZ_CHECK(objects <= size, "more objects than input bytes");
  return 0;
}

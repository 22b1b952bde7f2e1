// libFuzzer target: the Mono profiler module's option parser (ParseProfilerOptions, the string
// Mono passes to mono_profiler_init_xrpm) and ParseFrameMethod, on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. a rejected description comes with a non-empty error naming what was expected;
//   2. an accepted one formats (FormatProfilerOptions) to a description that parses back to the
//      same options, and whose frame method parses;
//   3. ParseFrameMethod on the raw input: accepted names have a class and a method.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "profiler_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm::mono;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const std::string& desc : {text, "xrpm:" + text}) {
    ProfilerOptions o;
    std::string error;
    if (!ParseProfilerOptions(desc, &o, &error)) {
      XRPM_FUZZ_CHECK(!error.empty(), desc);
      XRPM_FUZZ_CHECK(error.find("expected") != std::string::npos, error);
      continue;
    }
    const std::string again = FormatProfilerOptions(o);
    ProfilerOptions back;
    XRPM_FUZZ_CHECK(ParseProfilerOptions(again, &back, &error), again + ": " + error);
    XRPM_FUZZ_CHECK(back.address == o.address && back.port == o.port && back.frame == o.frame &&
                        back.quiet == o.quiet && back.allocations == o.allocations &&
                        back.allocations_exact == o.allocations_exact &&
                        back.announce == o.announce && back.sample_bytes == o.sample_bytes &&
                        back.frame_window_ms == o.frame_window_ms && back.walk == o.walk &&
                        back.no_origins == o.no_origins && back.no_frame == o.no_frame,
                    again);
    FrameMethod m;
    XRPM_FUZZ_CHECK(ParseFrameMethod(o.frame, &m, &error), o.frame);
  }
  FrameMethod m;
  std::string error;
  if (ParseFrameMethod(text, &m, &error))
    XRPM_FUZZ_CHECK(!m.class_name.empty() && !m.method.empty(), text);
  else
    XRPM_FUZZ_CHECK(!error.empty(), text);
  return 0;
}

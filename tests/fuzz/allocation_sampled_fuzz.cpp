// libFuzzer target: the AllocationSampled payload parser (ParseAllocationSampled, what the .NET
// profiler reads from the runtime's EventPipe events), on arbitrary bytes with 4- and 8-byte
// pointers.
//
// Per input, beyond "no crash, hang, leak or sanitizer report": an accepted payload has a
// sampled offset below a non-zero object size and exactly the fixed fields after the name; a
// rejected one comes with an error naming the byte and what was expected.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <string>

#include "allocation_sampled_event.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm::dotnet;
  for (size_t pointer : {size_t{4}, size_t{8}}) {
    AllocationSampledEvent e;
    std::string error;
    if (!ParseAllocationSampled(data, size, pointer, &e, &error)) {
      XRPM_FUZZ_CHECK(error.rfind("byte ", 0) == 0 && error.find("expected") != std::string::npos,
                      error);
      continue;
    }
    XRPM_FUZZ_CHECK(e.object_size > 0 && e.sampled_offset < e.object_size, "accepted bad sizes");
    const size_t name_end = 4 + 2 + pointer + 2 * e.type_name_units + 2;
    XRPM_FUZZ_CHECK(size == name_end + pointer + 16 || size == name_end + pointer + 20,
                    "accepted a payload of the wrong length");
  }
  return 0;
}

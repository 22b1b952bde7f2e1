// libFuzzer target: CIL method bodies (ParseIlMethodBody) and the frame method's rewrite
// (WrapInNativeCalls, device-agent/ports/dotnet/src/il_method_body.h), on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report": a rejected body or rewrite comes
// with an error naming the byte and what was expected; an accepted body encodes to bytes that
// parse back to the same body; a rewrite starts with the entry call, keeps every clause inside
// the new code, and its own rewrite is accepted too (it decodes as valid code).
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "il_method_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm::dotnet;
  IlMethodBody body;
  std::string error;
  if (!ParseIlMethodBody(data, size, &body, &error)) {
    XRPM_FUZZ_CHECK(error.rfind("byte ", 0) == 0 && error.find("expected") != std::string::npos,
                    error);
    return 0;
  }
  const std::vector<uint8_t> encoded = EncodeIlMethodBody(body);
  IlMethodBody again;
  XRPM_FUZZ_CHECK(ParseIlMethodBody(encoded.data(), encoded.size(), &again, &error), error);
  XRPM_FUZZ_CHECK(again.code == body.code && again.clauses.size() == body.clauses.size() &&
                      again.local_signature == body.local_signature,
                  "the encoded body parsed to another");

  const NativeCalls calls{0x1111111111111111ull, 0x2222222222222222ull, 0x11000001};
  IlMethodBody wrapped;
  if (!WrapInNativeCalls(body, calls, &wrapped, &error)) {
    XRPM_FUZZ_CHECK((error.rfind("code byte ", 0) == 0 || error.rfind("clause ", 0) == 0) &&
                        error.find("expected") != std::string::npos,
                    error);
    return 0;
  }
  XRPM_FUZZ_CHECK(wrapped.code.size() >= 15 && wrapped.code[0] == 0x21 && wrapped.code[9] == 0xd3,
                  "no entry call");
  for (const IlClause& k : wrapped.clauses)
    XRPM_FUZZ_CHECK(uint64_t{k.try_offset} + k.try_length <= wrapped.code.size() &&
                        uint64_t{k.handler_offset} + k.handler_length <= wrapped.code.size(),
                    "a clause outside the code");
  IlMethodBody twice;
  XRPM_FUZZ_CHECK(WrapInNativeCalls(wrapped, calls, &twice, &error), "rewritten code: " + error);
  return 0;
}

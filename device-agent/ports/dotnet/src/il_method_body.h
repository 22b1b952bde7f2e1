// IlMethodBody: a CIL method body (ECMA-335 II.25.4: the tiny or fat header, the code, the
// exception-handling sections) as the .NET port reads it from the runtime and writes it back,
// and the one rewrite the port makes: the frame method's calls (frame_hook.h).
//
// The rewrite (WrapInNativeCalls) puts a call to a native function at the method's entry and
// another before each `ret`, each as `ldc.i8 <address>; conv.i; calli <unmanaged cdecl void()>`.
// The JIT compiles such a call as an inline P/Invoke: the thread leaves cooperative mode for the
// call (a collection does not wait for it). The rets of valid IL are never inside a protected
// region, so both calls stay outside every try block (where the JIT would not inline the
// transition). An exception escaping the method skips the exit call, as the runtime's own leave
// hook does. Every short branch becomes its long form (the code grows), a branch to a `ret`
// lands on the exit call before it, `tail.` prefixes go (a tail call cannot precede a call), and
// the exception clauses' offsets follow their instructions. Methods with `jmp` or `localloc`
// are refused. Algorithm: one decoding pass that checks every operand, branch target and clause
// boundary against the instruction starts, one layout pass, one emitting pass: O(code + clauses).
//
// Thread-safety: pure functions. Bounds: every read is checked against the input's size; the
// output's code is at most 16x the input's (a 1-byte ret becomes 16 bytes) plus the 15-byte
// entry call, and 24 bytes per clause. An exception section's size is taken as its clauses'
// (any remainder ignored, as the runtime does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace xrpm {
namespace dotnet {

// An exception clause (II.25.4.6), offsets and lengths in bytes of code.
struct IlClause {
  uint32_t flags = 0;  // kIlClause*
  uint32_t try_offset = 0;
  uint32_t try_length = 0;
  uint32_t handler_offset = 0;
  uint32_t handler_length = 0;
  uint32_t class_or_filter = 0;  // the caught type's token, or the filter's offset
};
constexpr uint32_t kIlClauseException = 0x0;
constexpr uint32_t kIlClauseFilter = 0x1;
constexpr uint32_t kIlClauseFinally = 0x2;
constexpr uint32_t kIlClauseFault = 0x4;

struct IlMethodBody {
  uint32_t max_stack = 8;
  bool init_locals = false;
  uint32_t local_signature = 0;  // a StandAloneSig token, 0 without locals
  std::vector<uint8_t> code;
  std::vector<IlClause> clauses;
};

// Parses the method body at `bytes` (header, code, sections). False with *error ("byte N:
// expected ..., found ...") when it is truncated or malformed.
bool ParseIlMethodBody(const uint8_t* bytes, size_t size, IlMethodBody* out, std::string* error);

// The body as a fat header, its code and (with clauses) one fat exception section.
std::vector<uint8_t> EncodeIlMethodBody(const IlMethodBody& body);

// What WrapInNativeCalls inserts: two native functions `void f(void)` (C calling convention) and
// the StandAloneSig token of the signature `unmanaged cdecl void()` in the method's module.
struct NativeCalls {
  uint64_t enter = 0;
  uint64_t exit = 0;
  uint32_t signature = 0;
};

// The signature blob NativeCalls::signature stands for (IMAGE_CEE_CS_CALLCONV_C, no parameter,
// returning void).
inline const std::vector<uint8_t>& NativeCallSignature() {
  static const std::vector<uint8_t> blob = {0x01, 0x00, 0x01};
  return blob;
}

// `in` with the calls above (see the header comment). False with *error ("code byte N: ...")
// when the code cannot be decoded or uses what the rewrite refuses.
bool WrapInNativeCalls(const IlMethodBody& in, const NativeCalls& calls, IlMethodBody* out,
                       std::string* error);

}  // namespace dotnet
}  // namespace xrpm

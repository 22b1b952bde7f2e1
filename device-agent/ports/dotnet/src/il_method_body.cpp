// IlMethodBody: parsing, encoding and the native calls' rewrite (il_method_body.h).
#include "il_method_body.h"

#include <algorithm>

#include "wire_bytes.h"

namespace xrpm {
namespace dotnet {
namespace {

constexpr uint8_t kTinyFormat = 0x2;
constexpr uint8_t kFatFormat = 0x3;
constexpr uint16_t kMoreSections = 0x8;
constexpr uint16_t kInitLocals = 0x10;
constexpr uint8_t kSectionEhTable = 0x1;
constexpr uint8_t kSectionFat = 0x40;
constexpr uint8_t kSectionMore = 0x80;

bool Fail(std::string* error, const std::string& where, size_t at, const std::string& expected,
          const std::string& found) {
  if (error) *error = where + std::to_string(at) + ": expected " + expected + ", found " + found;
  return false;
}

// Operand kinds (ECMA-335 III.1.2 / the opcode table).
enum class Operand : uint8_t {
  kNone,
  kByte,     // ShortInlineI, ShortInlineVar
  kShortBr,  // ShortInlineBrTarget
  kWord,     // InlineVar (2 bytes)
  kDword,    // InlineI, tokens, ShortInlineR
  kBr,       // InlineBrTarget
  kQword,    // InlineI8, InlineR
  kSwitch,   // InlineSwitch
  kInvalid,
};

// One-byte opcodes 0x00..0xe0.
Operand OneByteOperand(uint8_t op) {
  if (op <= 0x0d) return Operand::kNone;
  if (op <= 0x13) return Operand::kByte;  // ldarg.s .. stloc.s
  if (op <= 0x1e) return Operand::kNone;  // ldnull, ldc.i4.m1 .. ldc.i4.8
  switch (op) {
    case 0x1f:
      return Operand::kByte;  // ldc.i4.s
    case 0x20:
      return Operand::kDword;  // ldc.i4
    case 0x21:
      return Operand::kQword;  // ldc.i8
    case 0x22:
      return Operand::kDword;  // ldc.r4
    case 0x23:
      return Operand::kQword;  // ldc.r8
    case 0x25:
    case 0x26:
      return Operand::kNone;  // dup, pop
    case 0x27:                // jmp
    case 0x28:                // call
    case 0x29:
      return Operand::kDword;  // calli
    case 0x2a:
      return Operand::kNone;  // ret
    case 0x45:
      return Operand::kSwitch;
    case 0xdd:
      return Operand::kBr;  // leave
    case 0xde:
      return Operand::kShortBr;  // leave.s
    default:
      break;
  }
  if (op >= 0x2b && op <= 0x37) return Operand::kShortBr;
  if (op >= 0x38 && op <= 0x44) return Operand::kBr;
  if (op >= 0x46 && op <= 0x6e) return Operand::kNone;
  if (op >= 0x6f && op <= 0x75) return Operand::kDword;                // callvirt .. isinst
  if (op == 0x76 || op == 0x7a) return Operand::kNone;                 // conv.r.un, throw
  if (op == 0x79) return Operand::kDword;                              // unbox
  if (op >= 0x7b && op <= 0x81) return Operand::kDword;                // ldfld .. stobj
  if (op >= 0x82 && op <= 0x8b) return Operand::kNone;                 // conv.ovf.*.un
  if (op == 0x8c || op == 0x8d || op == 0x8f) return Operand::kDword;  // box, newarr, ldelema
  if (op == 0x8e || (op >= 0x90 && op <= 0xa2)) return Operand::kNone;
  if (op >= 0xa3 && op <= 0xa5) return Operand::kDword;                // ldelem, stelem, unbox.any
  if (op >= 0xb3 && op <= 0xba) return Operand::kNone;                 // conv.ovf.*
  if (op == 0xc2 || op == 0xc6 || op == 0xd0) return Operand::kDword;  // refanyval, mkrefany..
  if (op == 0xc3) return Operand::kNone;                               // ckfinite
  if (op >= 0xd1 && op <= 0xdc) return Operand::kNone;                 // conv.u2 .. endfinally
  if (op == 0xdf || op == 0xe0) return Operand::kNone;                 // stind.i, conv.u
  return Operand::kInvalid;
}

// Two-byte opcodes 0xfe 0x00..0x1e.
Operand TwoByteOperand(uint8_t op) {
  if (op <= 0x05) return Operand::kNone;                 // arglist, ceq .. clt.un
  if (op == 0x06 || op == 0x07) return Operand::kDword;  // ldftn, ldvirtftn
  if (op >= 0x09 && op <= 0x0e) return Operand::kWord;   // ldarg .. stloc
  if (op == 0x0f || op == 0x11 || op == 0x13 || op == 0x14) return Operand::kNone;
  if (op == 0x12 || op == 0x19) return Operand::kByte;                 // unaligned., no.
  if (op == 0x15 || op == 0x16 || op == 0x1c) return Operand::kDword;  // initobj, constrained.
  if (op == 0x17 || op == 0x18 || op == 0x1a || op == 0x1d || op == 0x1e) return Operand::kNone;
  return Operand::kInvalid;
}

constexpr uint32_t kOpJmp = 0x27;
constexpr uint32_t kOpCall = 0x28;
constexpr uint32_t kOpCalli = 0x29;
constexpr uint32_t kOpCallvirt = 0x6f;
constexpr uint32_t kOpRet = 0x2a;
constexpr uint32_t kOpSwitch = 0x45;
constexpr uint32_t kOpLeave = 0xdd;
constexpr uint32_t kOpLeaveShort = 0xde;
constexpr uint32_t kOpLocalloc = 0xfe0f;
constexpr uint32_t kOpTail = 0xfe14;

struct Insn {
  uint32_t offset = 0;
  uint32_t size = 0;    // opcode and operand
  uint32_t opcode = 0;  // 0x00..0xff, or 0xfe00 | second byte
  Operand operand = Operand::kNone;
  uint32_t targets = 0;  // branch: 1; switch: its count
};

// Decodes `code` into instructions, checking every branch target. `starts[i]` marks offset i
// as an instruction's start (size + 1 entries: the end counts for regions).
bool Decode(const std::vector<uint8_t>& code, std::vector<Insn>* insns, std::vector<bool>* starts,
            std::string* error) {
  const size_t n = code.size();
  starts->assign(n + 1, false);
  (*starts)[n] = true;
  size_t i = 0;
  while (i < n) {
    Insn in;
    in.offset = static_cast<uint32_t>(i);
    (*starts)[i] = true;
    const uint8_t first = code[i];
    size_t operand_at = i + 1;
    if (first == 0xfe) {
      if (i + 1 >= n) return Fail(error, "code byte ", i + 1, "a two-byte opcode", "the end");
      in.opcode = 0xfe00 | code[i + 1];
      in.operand = TwoByteOperand(code[i + 1]);
      operand_at = i + 2;
    } else {
      in.opcode = first;
      in.operand = OneByteOperand(first);
    }
    size_t operand_bytes = 0;
    switch (in.operand) {
      case Operand::kNone:
        break;
      case Operand::kByte:
      case Operand::kShortBr:
        operand_bytes = 1;
        break;
      case Operand::kWord:
        operand_bytes = 2;
        break;
      case Operand::kDword:
      case Operand::kBr:
        operand_bytes = 4;
        break;
      case Operand::kQword:
        operand_bytes = 8;
        break;
      case Operand::kSwitch: {
        if (operand_at + 4 > n)
          return Fail(error, "code byte ", operand_at, "a switch's count", "the end");
        const uint64_t count = GetLe32(&code[operand_at]);
        if (count > (n - operand_at - 4) / 4)
          return Fail(error, "code byte ", operand_at, "a switch's targets",
                      "a count of " + std::to_string(count) + " past the end");
        in.targets = static_cast<uint32_t>(count);
        operand_bytes = 4 + 4 * count;
        break;
      }
      case Operand::kInvalid:
        return Fail(error, "code byte ", i, "an opcode",
                    Hex(in.opcode >= 0xfe00 ? in.opcode : first));
    }
    if (operand_at + operand_bytes > n)
      return Fail(error, "code byte ", operand_at, "an operand", "the end");
    in.size = static_cast<uint32_t>(operand_at + operand_bytes - i);
    if (in.operand == Operand::kShortBr || in.operand == Operand::kBr) in.targets = 1;
    insns->push_back(in);
    i += in.size;
  }
  // Branch targets: instruction starts inside the code.
  for (const Insn& in : *insns) {
    const int64_t end = int64_t{in.offset} + in.size;
    auto check = [&](int64_t target, size_t at) {
      if (target < 0 || target >= static_cast<int64_t>(n) || !(*starts)[target])
        return Fail(error, "code byte ", at, "a branch to an instruction",
                    "a target at " + std::to_string(target));
      return true;
    };
    const uint32_t op_len = in.opcode >= 0xfe00 ? 2 : 1;
    const uint32_t at = in.offset + op_len;
    if (in.operand == Operand::kShortBr) {
      if (!check(end + static_cast<int8_t>(code[at]), at)) return false;
    } else if (in.operand == Operand::kBr) {
      if (!check(end + static_cast<int32_t>(GetLe32(&code[at])), at)) return false;
    } else if (in.operand == Operand::kSwitch) {
      for (uint32_t k = 0; k < in.targets; ++k) {
        const size_t p = at + 4 + 4 * size_t{k};
        if (!check(end + static_cast<int32_t>(GetLe32(&code[p])), p)) return false;
      }
    }
  }
  return true;
}

// The long form of a short branch opcode (br.s .. blt.un.s, leave.s).
uint8_t LongForm(uint32_t op) {
  return op == kOpLeaveShort ? static_cast<uint8_t>(kOpLeave) : static_cast<uint8_t>(op + 13);
}

void PutNativeCall(std::vector<uint8_t>* out, uint64_t function, uint32_t signature) {
  out->push_back(0x21);  // ldc.i8
  PutLe64(out, function);
  out->push_back(0xd3);  // conv.i
  out->push_back(0x29);  // calli
  PutLe32(out, signature);
}
constexpr uint32_t kNativeCallBytes = 1 + 8 + 1 + 1 + 4;

}  // namespace

bool ParseIlMethodBody(const uint8_t* bytes, size_t size, IlMethodBody* out, std::string* error) {
  *out = IlMethodBody();
  if (size < 1) return Fail(error, "byte ", 0, "a method header", "the end");
  size_t code_at = 0;
  size_t code_size = 0;
  bool more = false;
  if ((bytes[0] & 0x3) == kTinyFormat) {
    code_at = 1;
    code_size = bytes[0] >> 2;
  } else if ((bytes[0] & 0x3) == kFatFormat) {
    if (size < 12) return Fail(error, "byte ", size, "a 12-byte fat header", "the end");
    const uint32_t flags = GetLe16(bytes);
    const uint32_t header_dwords = flags >> 12;
    if (header_dwords != 3)
      return Fail(error, "byte ", 1, "a fat header of 3 dwords", std::to_string(header_dwords));
    more = (flags & kMoreSections) != 0;
    out->init_locals = (flags & kInitLocals) != 0;
    out->max_stack = GetLe16(bytes + 2);
    code_size = GetLe32(bytes + 4);
    out->local_signature = GetLe32(bytes + 8);
    code_at = 12;
  } else {
    return Fail(error, "byte ", 0, "a tiny (..10) or fat (..11) header", Hex(bytes[0]));
  }
  if (code_size > size - code_at)
    return Fail(error, "byte ", code_at, std::to_string(code_size) + " bytes of code",
                std::to_string(size - code_at));
  out->code.assign(bytes + code_at, bytes + code_at + code_size);
  size_t at = code_at + code_size;
  while (more) {
    at = (at + 3) & ~size_t{3};
    if (at + 4 > size) return Fail(error, "byte ", at, "a section header", "the end");
    const uint8_t kind = bytes[at];
    if ((kind & 0x3f) != kSectionEhTable)
      return Fail(error, "byte ", at, "an exception section", "section kind " + Hex(kind));
    const bool fat = (kind & kSectionFat) != 0;
    more = (kind & kSectionMore) != 0;
    const size_t data_size = fat ? GetLe24(bytes + at + 1) : bytes[at + 1];
    const size_t clause_bytes = fat ? 24 : 12;
    if (data_size < 4)
      return Fail(error, "byte ", at + 1, "a section of at least 4 bytes",
                  std::to_string(data_size));
    if (data_size > size - at)
      return Fail(error, "byte ", at, std::to_string(data_size) + " bytes of clauses",
                  std::to_string(size - at));
    const size_t clauses = (data_size - 4) / clause_bytes;  // a remainder is ignored
    for (size_t c = at + 4; c < at + 4 + clauses * clause_bytes; c += clause_bytes) {
      IlClause k;
      const uint8_t* p = bytes + c;
      if (fat) {
        k = {GetLe32(p),      GetLe32(p + 4),  GetLe32(p + 8),
             GetLe32(p + 12), GetLe32(p + 16), GetLe32(p + 20)};
      } else {
        k = {GetLe16(p), GetLe16(p + 2), p[4], GetLe16(p + 5), p[7], GetLe32(p + 8)};
      }
      out->clauses.push_back(k);
    }
    at += data_size;
  }
  return true;
}

std::vector<uint8_t> EncodeIlMethodBody(const IlMethodBody& body) {
  std::vector<uint8_t> out;
  const bool sections = !body.clauses.empty();
  PutLe16(&out, kFatFormat | (sections ? kMoreSections : 0) | (body.init_locals ? kInitLocals : 0) |
                    3u << 12);
  PutLe16(&out, std::min<uint32_t>(body.max_stack, 0xffff));
  PutLe32(&out, static_cast<uint32_t>(body.code.size()));
  PutLe32(&out, body.local_signature);
  out.insert(out.end(), body.code.begin(), body.code.end());
  if (!sections) return out;
  while (out.size() % 4) out.push_back(0);
  const uint32_t data_size = static_cast<uint32_t>(4 + 24 * body.clauses.size());
  out.push_back(kSectionEhTable | kSectionFat);
  out.push_back(static_cast<uint8_t>(data_size));
  PutLe16(&out, data_size >> 8);
  for (const IlClause& k : body.clauses) {
    for (uint32_t v : {k.flags, k.try_offset, k.try_length, k.handler_offset, k.handler_length,
                       k.class_or_filter})
      PutLe32(&out, v);
  }
  return out;
}

bool WrapInNativeCalls(const IlMethodBody& in, const NativeCalls& calls, IlMethodBody* out,
                       std::string* error) {
  std::vector<Insn> insns;
  std::vector<bool> starts;
  if (!Decode(in.code, &insns, &starts, error)) return false;
  for (size_t k = 0; k < insns.size(); ++k) {
    const Insn& i = insns[k];
    // A tail. prefix goes: the call it prefixes takes its place (also as a branch target).
    if (i.opcode == kOpTail && (k + 1 == insns.size() || (insns[k + 1].opcode != kOpCall &&
                                                          insns[k + 1].opcode != kOpCalli &&
                                                          insns[k + 1].opcode != kOpCallvirt)))
      return Fail(error, "code byte ", i.offset + 2, "a call after tail.",
                  k + 1 == insns.size() ? "the end" : Hex(insns[k + 1].opcode));
    if (i.opcode == kOpJmp)
      return Fail(error, "code byte ", i.offset, "no jmp (it would skip the exit call)", "jmp");
    if (i.opcode == kOpLocalloc)
      return Fail(error, "code byte ", i.offset, "no localloc", "localloc");
  }
  // Clause boundaries: instruction starts (or the code's end for a region's end).
  const size_t n = in.code.size();
  auto boundary = [&](uint64_t offset) { return offset <= n && starts[offset]; };
  for (size_t c = 0; c < in.clauses.size(); ++c) {
    const IlClause& k = in.clauses[c];
    if (!boundary(k.try_offset) || !boundary(uint64_t{k.try_offset} + k.try_length) ||
        !boundary(k.handler_offset) || !boundary(uint64_t{k.handler_offset} + k.handler_length) ||
        (k.flags == kIlClauseFilter && !boundary(k.class_or_filter)))
      return Fail(error, "clause ", c, "regions on instruction boundaries",
                  "try " + std::to_string(k.try_offset) + "+" + std::to_string(k.try_length) +
                      ", handler " + std::to_string(k.handler_offset) + "+" +
                      std::to_string(k.handler_length));
  }

  // Layout: each instruction's new offset (for a ret, where the exit call before it starts).
  std::vector<uint32_t> moved(n + 1, 0);
  uint32_t at = kNativeCallBytes;  // the entry call
  for (const Insn& i : insns) {
    moved[i.offset] = at;
    if (i.opcode == kOpTail) continue;  // dropped
    if (i.opcode == kOpRet) at += kNativeCallBytes;
    at += i.operand == Operand::kShortBr ? 5 : i.size;
  }
  moved[n] = at;

  IlMethodBody& o = *out;
  o = IlMethodBody();
  o.max_stack = in.max_stack + 1;  // the function's address above whatever the method had
  o.init_locals = in.init_locals;
  o.local_signature = in.local_signature;
  o.code.reserve(at);
  PutNativeCall(&o.code, calls.enter, calls.signature);
  for (const Insn& i : insns) {
    const uint8_t* src = &in.code[i.offset];
    const int64_t old_end = int64_t{i.offset} + i.size;
    switch (i.operand) {
      case Operand::kShortBr:
      case Operand::kBr: {
        const int64_t target =
            old_end + (i.operand == Operand::kShortBr ? static_cast<int8_t>(src[1])
                                                      : static_cast<int32_t>(GetLe32(src + 1)));
        o.code.push_back(i.operand == Operand::kShortBr ? LongForm(i.opcode) : src[0]);
        const int64_t new_end = int64_t{moved[i.offset]} + 5;
        PutLe32(&o.code, static_cast<uint32_t>(static_cast<int32_t>(moved[target] - new_end)));
        break;
      }
      case Operand::kSwitch: {
        o.code.insert(o.code.end(), src, src + 5);  // opcode and count
        const int64_t new_end = int64_t{moved[i.offset]} + i.size;
        for (uint32_t k = 0; k < i.targets; ++k) {
          const int64_t target = old_end + static_cast<int32_t>(GetLe32(src + 5 + 4 * size_t{k}));
          PutLe32(&o.code, static_cast<uint32_t>(static_cast<int32_t>(moved[target] - new_end)));
        }
        break;
      }
      default:
        if (i.opcode == kOpTail) break;
        if (i.opcode == kOpRet) PutNativeCall(&o.code, calls.exit, calls.signature);
        o.code.insert(o.code.end(), src, src + i.size);
        break;
    }
  }
  for (const IlClause& k : in.clauses) {
    IlClause m = k;
    m.try_offset = moved[k.try_offset];
    m.try_length = moved[k.try_offset + k.try_length] - m.try_offset;
    m.handler_offset = moved[k.handler_offset];
    m.handler_length = moved[k.handler_offset + k.handler_length] - m.handler_offset;
    if (k.flags == kIlClauseFilter) m.class_or_filter = moved[k.class_or_filter];
    o.clauses.push_back(m);
  }
  return true;
}

}  // namespace dotnet
}  // namespace xrpm

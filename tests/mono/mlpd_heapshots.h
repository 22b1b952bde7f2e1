// MlpdHeapshots: the heapshots in a file of Mono's own log profiler (`mono --profile=log:
// heapshot,output=FILE`, libmono-profiler; data format 17, Mono 6.8), read independently of
// Mono's mprof-report (which can hang on files of programs that unload images): for each heapshot
// the objects Mono's heap walk reported (address, vtable, size) and, for the whole file, each
// vtable's class and each class's name, so a test can compare an xrpm capture with Mono's own
// reading of the same collection.
//
// Format (mono/profiler/log.h, "version 17"): a header (magic 0x4D505A01, versions, pointer size,
// times, pid, port and three length-prefixed strings), then buffers (magic 0x4D504C01, length,
// time/pointer/object/method bases, thread id) of events: a byte (type in the low 4 bits, extended
// info in the high 4), a uleb128 time delta and the event's fields (uleb128, sleb128 deltas from
// the buffer's bases, object addresses in units of 8 bytes, bytes, NUL-terminated strings). Every
// event kind of the format is decoded (most only to be skipped); objects between a thread's
// HEAP_START and HEAP_END events form one heapshot, in the order the heapshots started; an object
// repeated with size 0 (more references) is counted once.
//
// Bad input (truncated, an unknown event, a count beyond the data) is an error naming the byte
// offset and what was expected; memory is bounded by the file's size. O(file bytes).
//
// Thread-safety: plain function on values.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace xrpm::testing {

struct MlpdObject {
  uint64_t address = 0, vtable = 0, size = 0;
};

struct MlpdFile {
  std::vector<std::vector<MlpdObject>> heapshots;
  std::unordered_map<uint64_t, uint64_t> vtable_class;   // MonoVTable* -> MonoClass*
  std::unordered_map<uint64_t, std::string> class_name;  // MonoClass* -> name
  // The class name of a vtable, "" when the file never named it.
  std::string ClassOf(uint64_t vtable) const;
};

// False with *error ("byte 1234: ...") when `bytes` is not a readable format-17 file.
bool ReadMlpd(const std::string& bytes, MlpdFile* out, std::string* error);

}  // namespace xrpm::testing

// libFuzzer target: the .NET port's record stream as a snapshot walk's child sends it through
// its pipe (RecordStream::Receive, device-agent/ports/dotnet/src/record_stream.h), on arbitrary
// bytes, whole and in steps (ReceiveHead, ReceiveMore: the port's walk reads it as it comes).
//
// Per input, beyond "no crash, hang, leak or sanitizer report": a refused stream comes with an
// error naming the byte and what was expected, and leaves the stream empty; an accepted one
// reads back (whole and in slices) without reading past its bytes, and takes another object
// appended after it; in steps it is accepted exactly when whole and read as it arrives (a
// window the next bytes reuse) without reading past what arrived, twice, with an object
// appended between.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "record_stream.h"
#include "xrpm/agent/walk_recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm;
  using dotnet::RecordStream;
  RecordStream s;
  agent::MemoryByteSource in(data, size);
  std::string error;
  if (!s.Receive(in, &error)) {
    XRPM_FUZZ_CHECK(
        error.rfind("the record at byte ", 0) == 0 && error.find("expected") != std::string::npos,
        error);
    XRPM_FUZZ_CHECK(s.object_count() == 0 && s.bytes() == 0, "a refused stream kept objects");
    return 0;
  }
  // The counts in the header are not checked against the bytes (that would take a pass over
  // them): what is asked is that reading never goes past them.
  {
    RecordStream::Reader reader(s);
    dotnet::StreamObject o;
    while (reader.Next(&o, 64)) {
      while (reader.Part(&o)) {
      }
    }
  }
  for (size_t part = 0; part < 2; ++part) {
    RecordStream::Reader reader(s, part, 2);
    uint64_t id = 0;
    while (reader.NextRefs(&id, [](const uint64_t*, size_t) {})) {
    }
  }
  const size_t before = s.object_count();
  const uint64_t ref = 0x1000;
  s.Append(0x7000, 0x9000, 24, false, &ref, nullptr, 1, nullptr, 0, nullptr, 0);
  XRPM_FUZZ_CHECK(s.object_count() == before + 1, "the appended object was not counted");

  // In steps, twice, as the .NET port's walk reads a snapshot process's record: its bytes
  // read a window at a time, an object appended after the first pass, the bytes again.
  RecordStream steps;
  agent::MemoryByteSource again(data, size);
  uint64_t offset = 0;
  XRPM_FUZZ_CHECK(steps.ReceiveHead(again, &error, &offset), "the head refused in steps: " + error);
  const size_t head = static_cast<size_t>(offset);
  const size_t step = 1 + size % 4096;
  agent::MemoryByteSource second(data + head, size - head);
  for (int pass = 0; pass < 2; ++pass) {
    agent::MemoryByteSource& in = pass == 0 ? again : second;
    if (pass == 1) {
      steps.Append(0x7000, 0x9000, 24, false, &ref, nullptr, 1, nullptr, 0, nullptr, 0);
      steps.Rewind();
      offset = head;
    }
    RecordStream::Reader reader(steps);
    dotnet::StreamObject o;
    for (;;) {
      while (reader.Next(&o, 64)) {
        while (reader.Part(&o)) {
        }
        steps.Forget(reader.Consumed());
      }
      if (!steps.arriving()) break;
      XRPM_FUZZ_CHECK(steps.ReceiveMore(in, step, &offset, &error),
                      "a step refused what was accepted whole: " + error);
    }
  }
  return 0;
}

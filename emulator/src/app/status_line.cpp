#include "status_line.h"

#include <cstdio>
#include <vector>

namespace xrpm::emulator {

std::string StatusLine::Next() {
  std::vector<agent::CounterValue> v(rt_.CounterCount());
  rt_.SampleCounters(v.data(), v.size());
  auto total = [&](Counter c) { return v[static_cast<size_t>(c)].total; };
  const double mib = 1.0 / (1 << 20);
  ++seconds_;
  const uint64_t frames = loop_.frames();
  char line[512];
  std::snprintf(line, sizeof line,
                "%s %llus  frame %llu (%llu fps)  GC heap %.1f MiB, live %.1f MiB  gc %lld "
                "(last %lld ms)  allocated %.1f MiB  %s",
                rt_.config().app_name.c_str(), static_cast<unsigned long long>(seconds_),
                static_cast<unsigned long long>(frames),
                static_cast<unsigned long long>(frames - last_frames_),
                static_cast<double>(total(Counter::kGcHeap)) * mib,
                static_cast<double>(total(Counter::kManagedBytesInUseAfterGc)) * mib,
                static_cast<long long>(total(Counter::kGarbageCollections)),
                static_cast<long long>(v[static_cast<size_t>(Counter::kGcLatencyTime)].last),
                static_cast<double>(total(Counter::kManagedBytesAllocated)) * mib,
                scenario_.Status().c_str());
  last_frames_ = frames;
  return line;
}

}  // namespace xrpm::emulator

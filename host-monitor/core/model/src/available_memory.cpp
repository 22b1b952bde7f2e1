#include "xrpm/model/available_memory.h"

#include <fstream>
#include <string>

namespace xrpm {

uint64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return UINT64_MAX;
}

}  // namespace xrpm

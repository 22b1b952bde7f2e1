#include "xrpm/agent/heap_walker.h"

namespace xrpm {
namespace agent {

int RootDescriptorFor(ContainerType c) {
  switch (c) {
    case ContainerType::kJitFrame:
    case ContainerType::kNativeFrame:
    case ContainerType::kNativeGcFrame:
    case ContainerType::kComFrame:
    case ContainerType::kInterpretedFrame:
    case ContainerType::kFastInterpretedFrame:
    case ContainerType::kInternalFrame:
      return 1;
    case ContainerType::kFinalized:
      return 2;
    case ContainerType::kStrongPtr:
      return 3;
    case ContainerType::kClass:
      return 4;
    case ContainerType::kInternalVm:
      return 0;
    case ContainerType::kRootTable:
      return 5;
    case ContainerType::kBegin:
    case ContainerType::kThread:
    case ContainerType::kHeap:
    case ContainerType::kEnd:
      return -1;
  }
  return -1;
}

const char* ContainerTypeName(ContainerType c) {
  switch (c) {
    case ContainerType::kBegin:
      return "C_BEGIN";
    case ContainerType::kThread:
      return "C_RT_THREAD";
    case ContainerType::kJitFrame:
      return "C_RT_JIT";
    case ContainerType::kNativeFrame:
      return "C_RT_NATIVE";
    case ContainerType::kNativeGcFrame:
      return "C_RT_NATIVEGC";
    case ContainerType::kComFrame:
      return "C_RT_COM";
    case ContainerType::kInterpretedFrame:
      return "C_RT_INTERPRETED";
    case ContainerType::kFastInterpretedFrame:
      return "C_RT_FASTINTERPRETED";
    case ContainerType::kInternalFrame:
      return "C_RT_INTERNALFRAME";
    case ContainerType::kInternalVm:
      return "C_RT_INTERNALVM";
    case ContainerType::kClass:
      return "C_RT_CLASS";
    case ContainerType::kRootTable:
      return "C_RT_ROOTTABLE";
    case ContainerType::kStrongPtr:
      return "C_RT_STRONGPTR";
    case ContainerType::kFinalized:
      return "C_RT_FINALIZED";
    case ContainerType::kHeap:
      return "C_HEAP";
    case ContainerType::kEnd:
      return "C_END";
  }
  return "C_UNKNOWN";
}

}  // namespace agent
}  // namespace xrpm

#include "xrpm/app/snapshot_doc.h"

namespace xrpm::app {

const char* DocOriginName(DocOrigin o) {
  switch (o) {
    case DocOrigin::kOpened:
      return "opened";
    case DocOrigin::kCaptured:
      return "captured";
    case DocOrigin::kGenerated:
      return "generated";
  }
  return "?";
}

const char* DocStateName(DocState s) {
  switch (s) {
    case DocState::kLoading:
      return "loading";
    case DocState::kAnalysing:
      return "analysing";
    case DocState::kReady:
      return "ready";
    case DocState::kFailed:
      return "failed";
  }
  return "?";
}

}  // namespace xrpm::app

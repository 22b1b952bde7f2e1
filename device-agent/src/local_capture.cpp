// CaptureLocally (local_capture.h): a CaptureJob without a network thread. Its queue has no
// bound, so the capture never waits for a consumer; the messages are drained once RunCapture
// returned. O(capture's wire size) memory, O(objects + references) time, as a capture.
#include "xrpm/agent/local_capture.h"

#include <cstdint>
#include <utility>

#include "capture_job.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace agent {

std::string CaptureLocally(RuntimePort& runtime, const LocalCaptureOptions& options,
                           const std::function<void(const std::string& envelope)>& deliver) {
  if (options.detail.values && !options.detail.fields)
    return "a capture with values needs fields too";
  if (options.detail.string_cap > protocol::kMaxStringCap)
    return "string cap " + std::to_string(options.detail.string_cap) + " over the limit of " +
           std::to_string(protocol::kMaxStringCap);
  CaptureJob job(/*capture_id=*/1, /*request=*/0, /*memory_limit=*/SIZE_MAX);
  job.detail = options.detail;
  if (job.detail.string_cap == 0) job.detail.string_cap = protocol::kDefaultStringCap;
  job.walk = options.walk;
  RunCapture(runtime, job, options.stop_timeout_ms);
  std::string message;
  while (job.queue.Pop(&message)) {
    deliver(message);
    job.memory.Release(message.capacity());
  }
  if (job.completed) return "";
  return job.failure.empty() ? std::string("the capture did not complete") : job.failure;
}

}  // namespace agent
}  // namespace xrpm

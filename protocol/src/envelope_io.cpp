#include "xrpm/protocol/envelope_io.h"

#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace protocol {

ParseStatus ParseEnvelope(const uint8_t* data, size_t len, size_t max_bytes, wire::Envelope* out) {
  if (len > max_bytes) return ParseStatus::kTooLarge;
  out->Clear();
  if (!out->ParseFromArray(data, static_cast<int>(len))) return ParseStatus::kMalformed;
  if (out->body_case() == wire::Envelope::BODY_NOT_SET) return ParseStatus::kEmpty;
  return ParseStatus::kOk;
}

bool SerializeEnvelope(const wire::Envelope& env, size_t max_bytes, std::string* out) {
  const size_t n = env.ByteSizeLong();
  if (n > max_bytes) return false;
  out->clear();
  return env.SerializeToString(out);
}

const char* BodyName(const wire::Envelope& env) {
  switch (env.body_case()) {
    case wire::Envelope::kHello:
      return "hello";
    case wire::Envelope::kSubscribeCounters:
      return "subscribe_counters";
    case wire::Envelope::kCaptureRequest:
      return "capture_request";
    case wire::Envelope::kCancelCapture:
      return "cancel_capture";
    case wire::Envelope::kAuthResponse:
      return "auth_response";
    case wire::Envelope::kWelcome:
      return "welcome";
    case wire::Envelope::kAuthChallenge:
      return "auth_challenge";
    case wire::Envelope::kCounterDescriptors:
      return "counter_descriptors";
    case wire::Envelope::kError:
      return "error";
    case wire::Envelope::kCounterSample:
      return "counter_sample";
    case wire::Envelope::kCaptureBegin:
      return "capture_begin";
    case wire::Envelope::kHeapBatch:
      return "heap_batch";
    case wire::Envelope::kCaptureEnd:
      return "capture_end";
    case wire::Envelope::kCaptureAbort:
      return "capture_abort";
    case wire::Envelope::kSubscribeFrames:
      return "subscribe_frames";
    case wire::Envelope::kFramesStarted:
      return "frames_started";
    case wire::Envelope::kFrameBatch:
      return "frame_batch";
    case wire::Envelope::kGameCaptureRequest:
      return "game_capture_request";
    case wire::Envelope::BODY_NOT_SET:
      return "empty";
  }
  return "unknown";
}

const char* ErrorCodeName(wire::ErrorCode code) {
  switch (code) {
    case wire::VERSION_MISMATCH:
      return "version mismatch";
    case wire::BAD_TOKEN:
      return "bad token";
    case wire::BUSY:
      return "busy";
    case wire::NOT_AUTHENTICATED:
      return "not authenticated";
    case wire::MALFORMED:
      return "malformed message";
    case wire::TOO_LARGE:
      return "message too large";
    case wire::CAPTURE_BUSY:
      return "capture busy";
    case wire::CAPTURE_FAILED:
      return "capture failed";
    case wire::BAD_REQUEST:
      return "bad request";
    case wire::TIMEOUT:
      return "timeout";
    case wire::SHUTTING_DOWN:
      return "shutting down";
    default:
      return "error";
  }
}

wire::Envelope MakeError(wire::ErrorCode code, const std::string& message, bool fatal) {
  wire::Envelope env;
  wire::Error* e = env.mutable_error();
  e->set_code(code);
  e->set_message(message.size() > kMaxErrorMessage ? message.substr(0, kMaxErrorMessage) : message);
  e->set_fatal(fatal);
  return env;
}

}  // namespace protocol
}  // namespace xrpm

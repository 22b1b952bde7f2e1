// Envelope framing: one Envelope per ENet packet. Parsing checks the packet length against the
// receiver's limit before protobuf sees a byte, so an oversized message costs no allocation.
//
// Thread-safety: stateless functions, reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
namespace protocol {

enum class ParseStatus { kOk, kTooLarge, kMalformed, kEmpty };

// kEmpty: the bytes parse but carry no body (an unknown message from a newer peer, or junk).
ParseStatus ParseEnvelope(const uint8_t* data, size_t len, size_t max_bytes, wire::Envelope* out);

// Serializes into *out (replacing it). Returns false if the message is over max_bytes.
bool SerializeEnvelope(const wire::Envelope& env, size_t max_bytes, std::string* out);

// "hello", "heap_batch", ... for logs and errors.
const char* BodyName(const wire::Envelope& env);
const char* ErrorCodeName(wire::ErrorCode code);

// Builds an Error envelope.
wire::Envelope MakeError(wire::ErrorCode code, const std::string& message, bool fatal);

}  // namespace protocol
}  // namespace xrpm

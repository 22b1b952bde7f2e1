// MessageStream: the input format of the protocol fuzz targets (agent_messages, client_messages):
// a configuration byte, then operations, each either one ENet packet on a channel or a harness
// action (answer the auth challenge correctly, start a capture, ...):
//
//   input  = config:u8 op*
//   op     = tag:u8 [len:u16le bytes[len]]   tag & 3 < 3: a packet on channel (tag & 3), with
//                                             len clamped to what remains of the input
//                                             tag & 3 == 3: action (tag >> 2), no payload
//
// The seed generator (tests/hardening/protocol_seeds_main.cpp) writes the same format from real
// sessions. Parsing: O(input), no allocation. Thread-safety: none needed (values only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace xrpm::fuzz {

struct StreamOp {
  bool action = false;
  uint8_t code = 0;  // the channel of a packet, or the action number
  const uint8_t* data = nullptr;
  size_t size = 0;
};

class MessageStream {
 public:
  MessageStream(const uint8_t* data, size_t size) : p_(data), end_(data + size) {
    if (p_ < end_) config_ = *p_++;
  }
  uint8_t config() const { return config_; }

  bool Next(StreamOp* op) {
    if (p_ >= end_) return false;
    const uint8_t tag = *p_++;
    *op = StreamOp{};
    if ((tag & 3) == 3) {
      op->action = true;
      op->code = static_cast<uint8_t>(tag >> 2);
      return true;
    }
    op->code = tag & 3;
    size_t len = 0;
    if (p_ < end_) len = *p_++;
    if (p_ < end_) len |= size_t{*p_++} << 8;
    len = len < static_cast<size_t>(end_ - p_) ? len : static_cast<size_t>(end_ - p_);
    op->data = p_;
    op->size = len;
    p_ += len;
    return true;
  }

  // Writers, for the seed generator.
  static void AppendPacket(std::string* out, uint8_t channel, const std::string& bytes) {
    out->push_back(static_cast<char>(channel & 3));
    out->push_back(static_cast<char>(bytes.size() & 0xff));
    out->push_back(static_cast<char>((bytes.size() >> 8) & 0xff));
    out->append(bytes);
  }
  static void AppendAction(std::string* out, uint8_t action) {
    out->push_back(static_cast<char>((action << 2) | 3));
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  uint8_t config_ = 0;
};

}  // namespace xrpm::fuzz

// Fuzz target `client_messages`: the host client's handling of everything an agent can send
// (HostClient::Impl::OnReceive / Dispatch: channel rules, handshake and auth challenge, counter
// descriptors and samples, capture messages into the CaptureAssembler), driven without sockets.
//
// Input: tests/fuzz/message_stream.h. config bit 0: the host has a token. Actions: 0 = start a
// capture (as HostClient::StartCapture does, when connected), 1 = cancel it, 2 = publish
// progress, 3 = subscribe to frames (as HostClient::SubscribeFrames(1024), subscription 1),
// 4 = the next packet arrives on the frames channel (3). Packets on channels 0-2 are agent
// messages. Frame batches are decoded by the FrameBatchReader into the frames delta.
//
// Checks per operation, beyond no crash/leak/UB: a capture reported complete carries a
// structurally valid Snapshot (tests/fuzz/fuzz_check.h; allocation origins, when present, one per
// object with every site and method index in range) whose object/ref/root counts equal the
// reported statistics; a failed capture carries no snapshot; the client is connected exactly
// when the handshake completed; after a protocol error the connection is failed with a reason
// (and, as with a real socket, nothing more is read).
//
// Thread-safety: libFuzzer calls it from one thread; the client's thread is never started and
// it has no socket (its sends are dropped).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../../host-monitor/core/client/src/host_client_impl.h"
#include "fuzz_check.h"
#include "message_stream.h"

namespace xrpm::client {

// Allocation origins of an assembled capture: absent with empty columns, or one frame and site
// per object with every site and method index in range.
void CheckOrigins(const Snapshot& s) {
  if (!s.has_origins()) {
    XRPM_FUZZ_CHECK(s.object_alloc_site.empty() && s.object_alloc_frame.empty(),
                    "origin columns without origins");
    return;
  }
  XRPM_FUZZ_CHECK(s.object_alloc_site.size() == s.object_count() &&
                      s.object_alloc_frame.size() == s.object_count(),
                  "origin columns differ in length from the objects");
  for (uint32_t site : s.object_alloc_site)
    XRPM_FUZZ_CHECK(site == kUnknownSite || site < s.origins->sites.size(), "site out of range");
  for (const AllocationSite& site : s.origins->sites)
    for (uint32_t m : site.methods)
      XRPM_FUZZ_CHECK(m < s.origins->methods.size(), "site method out of range");
}

class ClientHarness {
 public:
  static void Run(const uint8_t* data, size_t size) {
    fuzz::MessageStream in(data, size);
    ClientOptions o;
    o.endpoint = "127.0.0.1:9";
    if (in.config() & 1) o.token = "fuzz-token-0123456789abcdef";
    o.counter_history = 16;
    o.max_capture_objects = 200000;
    HostClient::Impl m(o);
    m.state = ConnectionState::kConnecting;
    m.client_nonce.assign(32, 'n');
    m.connected_at = m.connect_started = Clock::now();

    fuzz::StreamOp op;
    bool frames_channel = false;
    while (m.state != ConnectionState::kFailed && in.Next(&op)) {
      if (!op.action) {
        const uint8_t channel = frames_channel ? uint8_t{3} : op.code;
        frames_channel = false;
        m.OnReceive(enet_packet_create(op.data, op.size, ENET_PACKET_FLAG_RELIABLE), channel);
      } else if (op.code == 0) {
        if (m.state == ConnectionState::kConnected && !m.capture_active) {
          m.capture_active = true;
          m.result.reset();
          m.commands.push_back(CmdCapture{});
          m.ExecuteCommands();
        }
      } else if (op.code == 1) {
        if (m.capture_active) m.commands.push_back(CmdCancel{});
        m.ExecuteCommands();
      } else if (op.code == 2) {
        m.PublishProgress();
      } else if (op.code == 3) {
        if (m.state == ConnectionState::kConnected && m.frame_subscription == 0) {
          m.frame_subscription = 1;
          m.frames.requested = true;
          m.commands.push_back(CmdFrames{1024, 1});
          m.ExecuteCommands();
        }
      } else if (op.code == 4) {
        frames_channel = true;
      }
      Check(m);
    }
  }

 private:
  static void Check(HostClient::Impl& m) {
    XRPM_FUZZ_CHECK(m.state != ConnectionState::kFailed || !m.last_error.empty(),
                    "failed without a reason");
    XRPM_FUZZ_CHECK(m.state == ConnectionState::kFailed ||
                        m.handshaken == (m.state == ConnectionState::kConnected),
                    "connected state and handshake disagree");
    XRPM_FUZZ_CHECK(m.capture_active || !m.assembler, "an assembler without a capture");
    // Every kept sample refers to a defined stack and type; every stack to defined methods.
    const FrameRecording& fr = m.frame_delta;
    for (const auto& st : fr.stacks)
      for (uint32_t id : st)
        XRPM_FUZZ_CHECK(id >= 1 && id <= fr.methods.size(), "a stack names an undefined method");
    for (const auto& sm : fr.samples)
      XRPM_FUZZ_CHECK(sm.stack <= fr.stacks.size() && sm.type <= fr.types.size(),
                      "a sample refers to an undefined stack or type");
    if (!m.result) return;
    const CaptureResult& r = *m.result;
    static const bool trace = std::getenv("XRPM_FUZZ_TRACE") != nullptr;  // seed debugging
    if (trace)
      std::fprintf(stderr, "capture %s: %llu objects%s%s\n", r.ok ? "complete" : "failed",
                   static_cast<unsigned long long>(r.stats.objects), r.ok ? "" : ": ",
                   r.error.c_str());
    XRPM_FUZZ_CHECK(!m.capture_active, "a result while the capture runs");
    if (r.ok) {
      XRPM_FUZZ_CHECK(r.snapshot != nullptr, "a complete capture without a snapshot");
      fuzz::CheckSnapshot(*r.snapshot);
      CheckOrigins(*r.snapshot);
      XRPM_FUZZ_CHECK(r.snapshot->object_count() == r.stats.objects &&
                          r.snapshot->ref_count() == r.stats.refs &&
                          r.snapshot->root_count() == r.stats.roots,
                      "snapshot and capture statistics disagree");
    } else {
      XRPM_FUZZ_CHECK(r.snapshot == nullptr, "a failed capture with a snapshot");
      XRPM_FUZZ_CHECK(!r.error.empty(), "a failed capture without a reason");
    }
    m.result.reset();
  }
};

}  // namespace xrpm::client

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xrpm::client::ClientHarness::Run(data, size);
  return 0;
}

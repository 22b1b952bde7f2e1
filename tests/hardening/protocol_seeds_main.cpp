// xrpm_make_protocol_seeds OUTDIR: writes the seed corpora of the protocol fuzz targets
// (tests/fuzz/corpus/agent_messages, .../client_messages) from real sessions: a real agent
// serving a small FakeRuntime heap over 127.0.0.1, spoken to by a hand-driven host (RawPeer)
// whose received messages are recorded, and hand-written host message sequences. Run it once
// after a protocol change and commit the files; the replay tests check them in every build.
//
// Thread-safety: single-threaded program (the agent runs its own threads).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fake_runtime.h"
#include "message_stream.h"
#include "raw_peer.h"
#include "xrpm/agent/agent.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm::testing {
namespace {

namespace fs = std::filesystem;
using fuzz::MessageStream;

constexpr char kToken[] = "fuzz-token-0123456789abcdef";  // = the fuzz targets' token

bool Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary);
  out << bytes;
  std::printf("%s (%zu bytes)\n", (dir / name).c_str(), bytes.size());
  return out.good();
}

void Packet(std::string* s, const wire::Envelope& env, uint8_t channel = 0) {
  MessageStream::AppendPacket(s, channel, env.SerializeAsString());
}

// A real agent's side of a session: handshake, counters, one capture (or a cancelled one).
bool RecordAgentSession(bool token, bool cancel, std::string* out, bool origins = false) {
  FakeRuntime rt(40, 6);
  rt.set_origins(origins);  // allocation-origin fields in the heap batches
  agent::AgentOptions opt;
  opt.port = 0;
  opt.token = token ? kToken : "";
  opt.log = [](const std::string&) {};
  agent::Agent a(rt, opt);
  std::string error;
  if (!a.Start(&error)) return false;
  auto p = RawPeer::Connect(a.port());
  if (!p) return false;
  out->assign(1, token ? '\1' : '\0');
  wire::Envelope m;
  wire::Envelope hello;
  hello.mutable_hello()->set_protocol_version(protocol::kProtocolVersion);
  hello.mutable_hello()->set_client_name("seed");
  const std::string nonce = protocol::AuthNonce();
  hello.mutable_hello()->set_client_nonce(nonce);
  if (!p->Send(hello) || !p->Receive(&m)) return false;
  if (m.has_auth_challenge()) {
    Packet(out, m);
    wire::Envelope ans;
    ans.mutable_auth_response()->set_answer(protocol::AuthAnswer(
        protocol::DeriveAuthKey(kToken), m.auth_challenge().agent_nonce(), nonce));
    if (!p->Send(ans) || !p->Receive(&m)) return false;
  }
  if (!m.has_welcome()) return false;
  Packet(out, m);
  wire::Envelope sub;
  sub.mutable_subscribe_counters()->set_interval_ms(10);
  if (!p->Send(sub) || !p->ReceiveBody(wire::Envelope::kCounterDescriptors, &m)) return false;
  Packet(out, m);
  if (!p->ReceiveBody(wire::Envelope::kCounterSample, &m)) return false;
  Packet(out, m, protocol::kChannelCounters);
  sub.mutable_subscribe_counters()->set_interval_ms(0);
  wire::Envelope req;
  req.mutable_capture_request()->set_request_id(1);
  if (!p->Send(sub) || !p->Send(req)) return false;
  MessageStream::AppendAction(out, 0);  // the harness host starts its capture
  for (;;) {
    uint8_t ch = 0;
    if (!p->Receive(&m, 5000, &ch)) return false;
    if (ch == protocol::kChannelCounters) continue;  // a late sample
    Packet(out, m, ch);
    if (m.has_capture_begin() && cancel) {
      wire::Envelope c;
      c.mutable_cancel_capture()->set_capture_id(0);
      p->Send(c);
      MessageStream::AppendAction(out, 1);
      return true;
    }
    if (m.has_capture_end() || m.has_capture_abort()) break;
  }
  MessageStream::AppendAction(out, 2);
  p->DisconnectNow();
  return true;
}

int Main(const fs::path& out) {
  const fs::path agent_dir = out / "agent_messages", client_dir = out / "client_messages";
  bool ok = true;
  // ---- client_messages: what agents send ----
  for (int token = 0; token < 2; ++token) {
    std::string s;
    ok &= RecordAgentSession(token, false, &s) &&
          Write(client_dir, token ? "session-token.bin" : "session.bin", s);
  }
  {
    std::string s;
    ok &= RecordAgentSession(false, true, &s) && Write(client_dir, "session-cancel.bin", s);
  }
  {
    std::string s;
    ok &= RecordAgentSession(false, false, &s, true) && Write(client_dir, "session-origins.bin", s);
  }
  {
    std::string s(1, '\0');
    Packet(&s, protocol::MakeError(wire::BUSY, "another host is connected", true));
    wire::Envelope w;
    w.mutable_welcome()->set_protocol_version(protocol::kProtocolVersion + 1);
    Packet(&s, w);
    ok &= Write(client_dir, "refused.bin", s);
  }
  {
    // A frames subscription: FramesStarted, then two batches on the frames channel (action 4
    // routes the next packet there), the second after the agent dropped records.
    std::string s(1, '\0');
    wire::Envelope w;
    w.mutable_welcome()->set_protocol_version(protocol::kProtocolVersion);
    w.mutable_welcome()->set_capabilities(wire::CAP_COUNTERS | wire::CAP_FRAMES |
                                          wire::CAP_MARKERS);
    Packet(&s, w);
    MessageStream::AppendAction(&s, 3);  // the harness host subscribes (subscription 1)
    wire::Envelope st;
    st.mutable_frames_started()->set_sample_bytes(1024);
    st.mutable_frames_started()->set_subscription(1);
    st.mutable_frames_started()->set_frame_totals_estimated(true);  // as .NET's sampled route
    Packet(&s, st);
    wire::Envelope b;
    wire::FrameBatch* fb = b.mutable_frame_batch();
    fb->set_seq(1);
    fb->set_subscription(1);
    fb->set_sample_bytes(1024);
    const char* methods[] = {"Bubbles.BubbleField.Spawn", "Bubbles.Game1.Update",
                             "Microsoft.Xna.Framework.Game.Tick", "System.String.Concat"};
    for (uint32_t i = 0; i < 4; ++i) {
      fb->add_methods()->set_id(i + 1);
      fb->mutable_methods(int(i))->set_name(methods[i]);
    }
    fb->add_types()->set_id(1);
    fb->mutable_types(0)->set_name("Bubbles.Bubble");
    fb->add_types()->set_id(2);
    fb->mutable_types(1)->set_name("System.String");
    wire::StackDef* st1 = fb->add_stacks();
    st1->set_id(1);
    for (uint32_t m : {1u, 2u, 3u}) st1->add_methods(m);
    wire::StackDef* st2 = fb->add_stacks();
    st2->set_id(2);
    for (uint32_t m : {4u, 2u, 3u}) st2->add_methods(m);
    fb->add_tags()->set_id(1);  // scope tags and markers
    fb->mutable_tags(0)->set_name("AI");
    wire::MarkerRow* mk = fb->add_markers();
    mk->set_text("Level 7 loaded");
    mk->set_frame(0);
    mk->set_time_us(1000);
    for (uint64_t f = 0; f < 3; ++f) {
      wire::FrameRow* r = fb->add_frames();
      r->set_frame(f);
      r->set_duration_us(16667);
      r->set_work_us(1200);
      r->set_alloc_bytes(2048);
      r->set_alloc_objects(30);
      r->set_gcs(f == 2);
      r->set_gc_pause_us(f == 2 ? 14000 : 0);
      r->set_gc_budget_left(4096);
      wire::AllocSampleRow* a = fb->add_samples();
      a->set_frame(f);
      a->set_stack(1 + f % 2);
      a->set_type(1 + f % 2);
      a->set_size(48);
      a->set_tag(f == 1 ? 1 : 0);
    }
    MessageStream::AppendAction(&s, 4);
    Packet(&s, b);  // on the frames channel (action 4)
    fb->clear_methods();
    fb->clear_types();
    fb->clear_stacks();
    fb->clear_tags();
    fb->mutable_markers(0)->set_kind(wire::CAPTURE_REQUEST);
    fb->mutable_markers(0)->set_text("Wave 1 ended");
    fb->set_dropped_markers(3);
    fb->set_seq(2);
    fb->set_dropped_records(7);
    MessageStream::AppendAction(&s, 4);
    Packet(&s, b);     // on the frames channel (action 4)
    wire::Envelope g;  // the game's capture request, on the control channel
    g.mutable_game_capture_request()->mutable_marker()->set_kind(wire::CAPTURE_REQUEST);
    g.mutable_game_capture_request()->mutable_marker()->set_text("Wave 1 ended");
    Packet(&s, g);
    ok &= Write(client_dir, "frames.bin", s);
  }
  // ---- agent_messages: what hosts send ----
  wire::Envelope hello;
  hello.mutable_hello()->set_protocol_version(protocol::kProtocolVersion);
  hello.mutable_hello()->set_client_name("xrpm 0.1.0");
  hello.mutable_hello()->set_client_nonce(std::string(protocol::kAuthNonceBytes, 'n'));
  wire::Envelope sub, req, cancel, answer;
  sub.mutable_subscribe_counters()->set_interval_ms(100);
  req.mutable_capture_request()->set_request_id(7);
  req.mutable_capture_request()->set_fields(true);  // a host that asks for fields and values
  req.mutable_capture_request()->set_values(true);
  req.mutable_capture_request()->set_string_cap(64);
  cancel.mutable_cancel_capture()->set_capture_id(0);
  answer.mutable_auth_response()->set_answer(std::string(protocol::kAuthAnswerBytes, 'a'));
  for (int token = 0; token < 2; ++token) {
    std::string s(1, static_cast<char>(token));
    Packet(&s, hello);
    if (token) MessageStream::AppendAction(&s, 0);
    Packet(&s, sub);
    MessageStream::AppendAction(&s, 1);
    Packet(&s, req);
    Packet(&s, req);
    Packet(&s, cancel);
    Packet(&s, protocol::MakeError(wire::MALFORMED, "host gives up", true));
    ok &= Write(agent_dir, token ? "session-token.bin" : "session.bin", s);
  }
  {
    std::string s(1, '\1');
    Packet(&s, hello);
    Packet(&s, answer);  // a wrong answer
    ok &= Write(agent_dir, "wrong-answer.bin", s);
  }
  {
    std::string s(1, '\0');
    wire::Envelope old = hello;
    old.mutable_hello()->set_protocol_version(1);
    Packet(&s, old);
    ok &= Write(agent_dir, "old-version.bin", s);
  }
  {
    // Frames: a zero interval (refused), a good one, a huge one (refused), stop.
    std::string s(1, '\0');
    Packet(&s, hello);
    wire::Envelope f;
    f.mutable_subscribe_frames()->set_enable(true);
    f.mutable_subscribe_frames()->set_subscription(1);
    for (uint32_t n : {0u, 16384u, 0x80000000u}) {
      f.mutable_subscribe_frames()->set_sample_bytes(n);
      Packet(&s, f);
    }
    f.mutable_subscribe_frames()->set_enable(false);
    Packet(&s, f);
    ok &= Write(agent_dir, "frames.bin", s);
  }
  {
    std::string s(1, '\1');
    Packet(&s, req);  // a command before the hello
    MessageStream::AppendAction(&s, 2);
    ok &= Write(agent_dir, "command-first.bin", s);
  }
  if (!ok) std::fprintf(stderr, "xrpm_make_protocol_seeds: a session failed\n");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace xrpm::testing

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: xrpm_make_protocol_seeds OUTDIR (tests/fuzz/corpus)\n");
    return 2;
  }
  return xrpm::testing::Main(argv[1]);
}

// HostClient's network thread: connect, handshake, dispatch, capture assembly, commands.
#include <algorithm>

#include "host_client_impl.h"
#include "xrpm/model/available_memory.h"
#include "xrpm/protocol/auth.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/enet_io.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm::client {
namespace {

double Seconds(Clock::time_point from) {
  return std::chrono::duration<double>(Clock::now() - from).count();
}

bool ShortString(const std::string& s) {
  return s.size() <= protocol::kMaxShortString;
}

}  // namespace

bool HostClient::Impl::Open(std::string* error) {
  if (!protocol::AuthInit()) {  // every Hello carries a nonce from libsodium's CSPRNG
    *error = "libsodium failed to initialise (no entropy source?): cannot make a hello nonce";
    return false;
  }
  protocol::Endpoint ep;
  if (!protocol::ParseEndpoint(opt.endpoint, protocol::kDefaultPort, &ep, error)) return false;
  ENetAddress addr;
  if (!protocol::ResolveEndpoint(ep, &addr, error)) return false;
  enet_connected = false;
  host = enet_host_create(nullptr, 1, protocol::kChannelCount, 0, 0);
  if (!host) {
    *error = "cannot create a UDP socket for ENet";
    return false;
  }
  protocol::ConfigureHost(host, protocol::IsLoopback(addr));
  peer = enet_host_connect(host, &addr, protocol::kChannelCount, 0);
  if (!peer) {
    *error = "ENet could not start a connection to " + protocol::FormatAddress(addr);
    return false;
  }
  std::lock_guard lock(mu);
  device.endpoint = protocol::FormatAddress(addr);
  return true;
}

void HostClient::Impl::Run() {
  connect_started = Clock::now();
  std::string error;
  if (!Open(&error)) {
    Close(ConnectionState::kFailed, error);
  } else {
    while (!stop.load(std::memory_order_acquire) && peer) {
      Service();
      if (!peer) break;
      ExecuteCommands();
      if (!handshaken && Seconds(connect_started) * 1000 > opt.connect_timeout_ms) {
        std::string ep;
        {
          std::lock_guard lock(mu);
          ep = device.endpoint;
        }
        enet_peer_reset(peer);
        peer = nullptr;
        Close(ConnectionState::kFailed, "no xrpm agent answered at " + ep + " within " +
                                            std::to_string(opt.connect_timeout_ms) + " ms");
      }
    }
    if (peer) {  // Disconnect(): close politely, briefly; the agent also notices a timeout
      enet_peer_disconnect(peer, 0);
      ENetEvent ev;
      const auto t0 = Clock::now();
      bool gone = false;
      while (!gone && Seconds(t0) < 0.25 && enet_host_service(host, &ev, 10) >= 0)
        if (ev.type == ENET_EVENT_TYPE_DISCONNECT)
          gone = true;
        else if (ev.type == ENET_EVENT_TYPE_RECEIVE)
          enet_packet_destroy(ev.packet);
      if (!gone) enet_peer_reset(peer);
      peer = nullptr;
      Close(ConnectionState::kClosed, "disconnected");
    }
  }
  if (host) enet_host_destroy(host);
  host = nullptr;
}

// A connecting ENet peer (no peer id from the agent yet) takes a DISCONNECT from anyone at the
// agent's address: the agent may still be retransmitting one to an earlier connection that had
// this same ephemeral port (a refused host it lingers on, agent_impl.h kRefusedLingerMs). The
// agent itself only disconnects connections it accepted, and ENet's own connect timeout (30 s)
// is past ours, so a DISCONNECT before the CONNECT is stray: start again from a new socket
// (a new port) while the connect timeout allows, a few times at most.
bool HostClient::Impl::ReopenAfterStrayDisconnect() {
  constexpr int kMaxStrayDisconnects = 4;
  if (enet_connected || stray_disconnects >= kMaxStrayDisconnects ||
      Seconds(connect_started) * 1000 > opt.connect_timeout_ms)
    return false;
  ++stray_disconnects;
  peer = nullptr;  // ENet reset it
  enet_host_destroy(host);
  host = nullptr;
  std::string error;
  if (Open(&error)) return true;
  Close(ConnectionState::kFailed, error);
  return true;
}

void HostClient::Impl::Service() {
  bool busy;
  {
    std::lock_guard lock(mu);
    busy = capture_active;
  }
  // Bounded per call, so that a capture streaming in without a pause still lets Run() execute
  // the user's commands (cancel, disconnect) and notice a stop in between.
  constexpr int kMaxEventsPerService = 256;
  ENetEvent ev;
  int r = enet_host_service(host, &ev, busy ? 1 : 5);
  for (int events = 1; r > 0 && peer; ++events) {
    switch (ev.type) {
      case ENET_EVENT_TYPE_CONNECT: {
        enet_connected = true;
        protocol::ConfigurePeer(peer, opt.peer_timeout_ms);
        wire::Envelope env;
        wire::Hello* h = env.mutable_hello();
        h->set_protocol_version(protocol::kProtocolVersion);
        h->set_client_name(opt.client_name.substr(0, protocol::kMaxShortString));
        client_nonce = protocol::AuthNonce();
        challenged = false;
        h->set_client_nonce(client_nonce);
        SendToAgent(env);
        break;
      }
      case ENET_EVENT_TYPE_RECEIVE:
        OnReceive(ev.packet, ev.channelID);
        break;
      case ENET_EVENT_TYPE_DISCONNECT: {
        if (ReopenAfterStrayDisconnect()) return;
        std::string ep;
        {
          std::lock_guard lock(mu);
          ep = device.endpoint;
        }
        peer = nullptr;
        const auto code = static_cast<wire::ErrorCode>(ev.data);
        std::string why;
        if (!handshaken && ev.data == 0)
          why = "could not connect to " + ep + ": no xrpm agent answered";
        else if (ev.data != 0)
          why = std::string("the agent closed the connection: ") + protocol::ErrorCodeName(code);
        else
          why = "the connection to " + ep + " was lost (agent stopped or unreachable)";
        Close(handshaken && ev.data == 0 ? ConnectionState::kClosed : ConnectionState::kFailed,
              why);
        break;
      }
      case ENET_EVENT_TYPE_NONE:
        break;
    }
    // Stop before taking another event: one taken would be lost.
    if (!peer || events >= kMaxEventsPerService) break;
    // Service again rather than only dispatching what is queued: a capture's batches take a
    // while each to decode, and the datagrams that arrived meanwhile are acknowledged only
    // when ENet receives them, so the agent's reliable window (64 KiB, about one batch) would
    // otherwise stay full until every queued batch was decoded.
    r = enet_host_service(host, &ev, 0);
  }
  PublishProgress();
}

void HostClient::Impl::OnReceive(ENetPacket* packet, uint8_t channel) {
  const size_t len = packet->dataLength;
  wire::Envelope env;
  const auto st = protocol::ParseEnvelope(packet->data, len, protocol::kMaxAgentMessageBytes, &env);
  enet_packet_destroy(packet);
  switch (st) {
    case protocol::ParseStatus::kTooLarge:
      return ProtocolError(wire::TOO_LARGE,
                           "a message of " + std::to_string(len) +
                               " bytes from the agent is over the host's limit of " +
                               std::to_string(protocol::kMaxAgentMessageBytes) + " bytes");
    case protocol::ParseStatus::kMalformed:
      return ProtocolError(wire::MALFORMED, "a " + std::to_string(len) +
                                                "-byte message from the agent is not an xrpm "
                                                "protocol Envelope");
    case protocol::ParseStatus::kEmpty:
      return ProtocolError(wire::MALFORMED, "an empty or unknown message from the agent");
    case protocol::ParseStatus::kOk:
      break;
  }
  const bool heap = env.has_capture_begin() || env.has_heap_batch() || env.has_capture_end() ||
                    env.has_capture_abort();
  if (heap != (channel == protocol::kChannelHeap) ||
      env.has_frame_batch() != (channel == protocol::kChannelFrames))
    return ProtocolError(wire::MALFORMED, std::string(protocol::BodyName(env)) +
                                              " on the wrong channel (" + std::to_string(channel) +
                                              ")");
  Dispatch(env, len);
}

void HostClient::Impl::Dispatch(const wire::Envelope& env, size_t bytes) {
  if (env.has_error()) {
    const wire::Error& e = env.error();
    std::string msg = e.message().substr(0, protocol::kMaxErrorMessage);
    std::string text = std::string(protocol::ErrorCodeName(e.code())) + ": " + msg;
    if (e.fatal()) {
      std::lock_guard lock(mu);
      last_error =
          (handshaken ? "the agent ended the session: " : "the agent refused the connection: ") +
          text;
      ++generation;
    } else if (e.refused_body() == wire::Envelope::kSubscribeFrames) {
      std::lock_guard lock(mu);
      frames.requested = false;
      frames.error = text;
      ++generation;
      cv.notify_all();
    } else if (e.code() == wire::CAPTURE_BUSY || e.code() == wire::BAD_REQUEST) {
      FinishCapture(CaptureResult{false, false, "the agent refused the capture: " + text, {}, {}});
    }
    return;
  }
  if (!handshaken) {
    if (env.has_auth_challenge() && !challenged) return OnChallenge(env.auth_challenge());
    if (!env.has_welcome())
      return ProtocolError(wire::MALFORMED,
                           std::string("expected welcome, got ") + protocol::BodyName(env));
    return OnWelcome(env.welcome());
  }
  switch (env.body_case()) {
    case wire::Envelope::kCounterDescriptors:
      return OnDescriptors(env.counter_descriptors());
    case wire::Envelope::kCounterSample:
      return OnSample(env.counter_sample());
    case wire::Envelope::kCaptureBegin:
    case wire::Envelope::kHeapBatch:
    case wire::Envelope::kCaptureEnd:
    case wire::Envelope::kCaptureAbort:
      return OnCaptureMessage(env, bytes);
    case wire::Envelope::kFramesStarted: {
      std::lock_guard lock(mu);
      // A late answer to a subscription since stopped or replaced.
      if (!frames.requested || env.frames_started().subscription() != frame_subscription) return;
      frames.started = true;
      frames.sample_bytes = env.frames_started().sample_bytes();
      frames.ring_records = env.frames_started().ring_records();
      frames.frame_totals = env.frames_started().frame_totals_estimated() ? FrameTotals::kEstimated
                                                                          : FrameTotals::kExact;
      frame_delta.frame_totals = frames.frame_totals;  // every recording of it says so
      ++generation;
      cv.notify_all();
      return;
    }
    case wire::Envelope::kFrameBatch:
      return OnFrameBatch(env.frame_batch(), bytes);
    case wire::Envelope::kGameCaptureRequest:
      return OnGameCaptureRequest(env.game_capture_request());
    default:
      return ProtocolError(wire::MALFORMED, std::string("unexpected ") + protocol::BodyName(env) +
                                                " from the agent");
  }
}

void HostClient::Impl::OnChallenge(const wire::AuthChallenge& c) {
  if (c.agent_nonce().size() != protocol::kAuthNonceBytes)
    return ProtocolError(wire::MALFORMED,
                         "auth challenge nonce of " + std::to_string(c.agent_nonce().size()) +
                             " bytes, expected " + std::to_string(protocol::kAuthNonceBytes));
  challenged = true;
  // Without a token the answer is empty: the agent refuses with BAD_TOKEN and says why.
  wire::Envelope env;
  if (!opt.token.empty())
    env.mutable_auth_response()->set_answer(
        protocol::AuthAnswer(protocol::DeriveAuthKey(opt.token), c.agent_nonce(), client_nonce));
  else
    env.mutable_auth_response();
  SendToAgent(env);
}

void HostClient::Impl::OnWelcome(const wire::Welcome& w) {
  const wire::RuntimeInfo& r = w.runtime();
  if (w.protocol_version() != protocol::kProtocolVersion)
    return ProtocolError(wire::VERSION_MISMATCH,
                         "the agent speaks xrpm protocol " + std::to_string(w.protocol_version()) +
                             ", this host speaks " + std::to_string(protocol::kProtocolVersion));
  if (!ShortString(w.agent_name()) || !ShortString(r.runtime_name()) ||
      !ShortString(r.runtime_version()) || !ShortString(r.app_name()) || !ShortString(r.platform()))
    return ProtocolError(wire::MALFORMED, "welcome strings over 256 bytes");
  handshaken = true;
  connected_at = Clock::now();
  agent_hint = w;
  std::lock_guard lock(mu);
  device.agent_name = w.agent_name();
  device.protocol_version = w.protocol_version();
  device.capabilities = w.capabilities();
  device.runtime_name = r.runtime_name();
  device.runtime_version = r.runtime_version();
  device.app_name = r.app_name();
  device.platform = r.platform();
  device.pointer_bytes = r.pointer_bytes();
  device.big_endian = r.big_endian();
  device.dump_version = r.dump_version();
  device.app_domain_count = r.app_domain_count();
  device.boot_ms = r.boot_ms();
  welcome_at = std::chrono::steady_clock::now();
  state = ConnectionState::kConnected;
  ++generation;
  cv.notify_all();
}

void HostClient::Impl::OnDescriptors(const wire::CounterDescriptors& d) {
  if (static_cast<size_t>(d.counters_size()) > protocol::kMaxCounters)
    return ProtocolError(wire::MALFORMED, "more than 1024 counter descriptors");
  std::vector<CounterDescriptor> out;
  out.reserve(d.counters_size());
  for (const auto& c : d.counters()) {
    if (!ShortString(c.category()) || !ShortString(c.name()) || !ShortString(c.unit()))
      return ProtocolError(wire::MALFORMED, "counter descriptor strings over 256 bytes");
    out.push_back({c.category(), c.name(), c.unit()});
  }
  history.SetDescriptors(std::move(out), d.interval_ms());
  std::lock_guard lock(mu);
  ++generation;
}

void HostClient::Impl::OnSample(const wire::CounterSample& s) {
  // A sample of another shape belongs to an older subscription (unreliable, reordered): skip.
  if (static_cast<size_t>(s.values_size()) != history.descriptors().size()) return;
  CounterSampleRow row;
  row.seq = s.seq();
  row.boot_ms = s.boot_ms();
  row.host_s = Seconds(connected_at);
  row.values.reserve(s.values_size());
  for (const auto& v : s.values())
    row.values.push_back({v.total(), v.last(), v.n(), v.mean(), v.min(), v.max()});
  history.Add(std::move(row));
  std::lock_guard lock(mu);
  ++generation;
  cv.notify_all();
}

void HostClient::Impl::OnCaptureMessage(const wire::Envelope& env, size_t bytes) {
  bool active;
  {
    std::lock_guard lock(mu);
    active = capture_active;
  }
  const uint32_t id = env.has_capture_begin() ? env.capture_begin().capture_id()
                      : env.has_heap_batch()  ? env.heap_batch().capture_id()
                      : env.has_capture_end() ? env.capture_end().capture_id()
                                              : env.capture_abort().capture_id();
  // Late messages of a capture this host cancelled (maybe before it learned the capture's id:
  // a capture cancelled before its CaptureBegin ends with a CaptureAbort alone, which may come
  // after the next capture was requested).
  const uint32_t late_request = env.has_capture_begin()   ? env.capture_begin().request_id()
                                : env.has_capture_abort() ? env.capture_abort().request_id()
                                                          : 0;
  if (ignored_request && late_request == ignored_request) cancelled_capture = id;
  if (cancelled_capture && id == cancelled_capture) return;
  if (!active || !assembler) return;

  std::string error;
  switch (env.body_case()) {
    case wire::Envelope::kCaptureBegin:
      if (!assembler->Begin(env.capture_begin(), bytes, &error)) {
        FinishCapture({false, false, error, {}, {}});
        return ProtocolError(wire::MALFORMED, error);
      }
      if ((!assembler->prepared() ||
           (last_capture_sizes.objects == 0 && agent_hint.last_capture_objects() == 0)) &&
          env.capture_begin().expected_objects() != 0) {
        // No figures of our own or of the agent's last capture (the first capture of this
        // process), or only its runtime's forecast: the agent knows what its walk will report,
        // bounded as a Welcome's hint is.
        const wire::CaptureBegin& b = env.capture_begin();
        assembler->Prepare(ExpectedSizes({}, b.expected_objects(), b.expected_refs(), b.fields()),
                           AvailableMemoryBytes());
      }
      {
        std::lock_guard lock(mu);
        progress.phase = CapturePhase::kReceiving;
        progress.capture_id = id;
        progress.expected_heap_bytes = assembler->expected_heap_bytes();
      }
      return;
    case wire::Envelope::kHeapBatch:
      if (!assembler->Batch(env.heap_batch(), bytes, &error)) {
        FinishCapture({false, false, "capture " + std::to_string(id) + ": " + error, {}, {}});
        return ProtocolError(wire::MALFORMED, error);
      }
      return;
    case wire::Envelope::kCaptureAbort:
      FinishCapture({false,
                     false,
                     "the agent aborted capture " + std::to_string(id) + ": " +
                         env.capture_abort().reason().substr(0, protocol::kMaxErrorMessage),
                     {},
                     {}});
      return;
    case wire::Envelope::kCaptureEnd: {
      const wire::CaptureEnd& e = env.capture_end();
      CaptureResult r;
      if (!assembler->End(e, &error)) {
        r.error = error;
        FinishCapture(std::move(r));
        return;
      }
      const CaptureTotalsSeen& seen = assembler->seen();
      r.stats = {id,           seen.objects,         seen.refs,
                 seen.roots,   seen.types,           seen.heap_bytes,
                 seen.batches, seen.wire_bytes,      e.pause_us(),
                 e.gc_us(),    e.walk_us(),          e.stop_wait_us(),
                 e.stall_us(), e.agent_peak_bytes(), Seconds(capture_started)};
      r.stats.origins_dropped = e.origins_dropped();
      r.stats.walk_after_pause_us = e.walk_after_pause_us();
      auto snap = std::make_shared<Snapshot>(assembler->Take());
      last_capture_sizes = SizesOf(*snap);
      {
        std::lock_guard lock(mu);
        snap->source = "capture of " + device.app_name + " from " + device.endpoint;
        snap->capture = MakeCaptureInfo(device, r.stats);
        snap->capture->last_marker = assembler->last_marker();
        snap->capture->marker_age_us = assembler->marker_age_us();
      }
      r.ok = true;
      r.snapshot = std::move(snap);
      FinishCapture(std::move(r));
      return;
    }
    default:
      return;
  }
}

void HostClient::Impl::OnFrameBatch(const wire::FrameBatch& b, size_t bytes) {
  std::unique_lock lock(mu);
  // Batches in flight when the host stopped or replaced the subscription.
  if (!frames.requested || b.subscription() != frame_subscription) return;
  const uint64_t room =
      opt.max_frame_rows > frame_rows_kept ? opt.max_frame_rows - frame_rows_kept : 0;
  auto kept = [&] {
    return frame_delta.frames.size() + frame_delta.samples.size() + frame_delta.markers.size();
  };
  const size_t before = kept();
  std::string error;
  if (!frame_reader.Read(b, bytes, room, &frame_delta, &error)) {
    lock.unlock();
    return ProtocolError(wire::MALFORMED, error);
  }
  frame_rows_kept += kept() - before;
  frames.frames_received = frame_reader.frames();
  ++generation;
  cv.notify_all();
}

void HostClient::Impl::OnGameCaptureRequest(const wire::GameCaptureRequest& g) {
  const wire::MarkerRow& m = g.marker();
  if (m.text().size() > protocol::kMaxMarkerBytes)
    return ProtocolError(wire::MALFORMED, "game capture request label of " +
                                              std::to_string(m.text().size()) +
                                              " bytes, over the limit of " +
                                              std::to_string(protocol::kMaxMarkerBytes));
  std::lock_guard lock(mu);
  if (capture_requests.size() == kMaxQueuedCaptureRequests) {
    capture_requests.pop_front();  // nobody takes them: keep the newest
    ++capture_requests_dropped;
  }
  capture_requests.push_back({MarkerKind::kCaptureRequest, m.text(), m.frame(), m.time_us()});
  ++capture_requests_received;
  ++generation;
  cv.notify_all();
}

void HostClient::Impl::ExecuteCommands() {
  std::deque<Command> todo;
  {
    std::lock_guard lock(mu);
    todo.swap(commands);
  }
  for (const Command& c : todo) {
    wire::Envelope env;
    if (auto* s = std::get_if<CmdSubscribe>(&c)) {
      env.mutable_subscribe_counters()->set_interval_ms(s->interval_ms);
    } else if (auto* f = std::get_if<CmdFrames>(&c)) {
      wire::SubscribeFrames* sf = env.mutable_subscribe_frames();
      sf->set_enable(f->sample_bytes != 0);
      sf->set_sample_bytes(f->sample_bytes);
      sf->set_subscription(f->subscription);
      if (f->sample_bytes == 0) {  // stop: what arrived stays to be taken
        SendToAgent(env);
        continue;
      }
      frame_reader.Reset();
      std::lock_guard lock(mu);
      frame_delta = FrameRecording{};
      frame_delta.subscription = f->subscription;
      frame_delta.app = device.app_name;
      frame_rows_kept = 0;
    } else if (std::holds_alternative<CmdCapture>(c)) {
      request_id = next_request_id++;
      assembler = std::make_unique<CaptureAssembler>(
          opt.max_capture_objects, device.pointer_bytes ? device.pointer_bytes : 4);
      capture_started = Clock::now();
      const CaptureOptions& co = std::get<CmdCapture>(c).opts;
      CaptureSizes expected = ExpectedSizes(last_capture_sizes, agent_hint);
      if (!co.values) expected.value_bytes = 0;
      assembler->Prepare(expected, AvailableMemoryBytes());
      wire::CaptureRequest* req = env.mutable_capture_request();
      req->set_request_id(request_id);
      req->set_fields(true);  // layouts, slots and labels: always, when the agent can
      req->set_values(co.values);
      req->set_string_cap(co.string_cap);
      req->set_join_induced_gc_ms(co.join_induced_gc_ms);
    } else {  // cancel
      if (!assembler) continue;
      cancelled_capture = assembler->capture_id();  // 0 if its begin has not arrived yet
      ignored_request = request_id;
      env.mutable_cancel_capture()->set_capture_id(cancelled_capture);
      FinishCapture({false, false, "capture cancelled", {}, {}});
    }
    SendToAgent(env);
  }
}

void HostClient::Impl::SendToAgent(const wire::Envelope& env) {
  if (peer)
    protocol::SendEnvelope(peer, protocol::kChannelControl, env, true,
                           protocol::kMaxHostMessageBytes, nullptr);
}

void HostClient::Impl::ProtocolError(wire::ErrorCode code, const std::string& why) {
  if (peer) {
    SendToAgent(protocol::MakeError(code, why, true));
    enet_host_flush(host);
    enet_peer_disconnect_later(peer, code);
    // Stop reading: the session is over as far as this host is concerned.
    ENetPeer* p = peer;
    peer = nullptr;
    ENetEvent ev;
    const auto t0 = Clock::now();
    while (Seconds(t0) < 0.25 && enet_host_service(host, &ev, 10) >= 0) {
      if (ev.type == ENET_EVENT_TYPE_DISCONNECT) break;
      if (ev.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev.packet);
    }
    enet_peer_reset(p);
  }
  // (Without a peer only in the fuzz harness, which has no socket: the session ends the same.)
  Close(ConnectionState::kFailed,
        std::string("protocol error (") + protocol::ErrorCodeName(code) + "): " + why);
}

void HostClient::Impl::Close(ConnectionState final_state, const std::string& why) {
  // The connection's state and error first: a thread woken by the capture's end below must
  // already see the connection closed (and why).
  bool had_capture;
  {
    std::lock_guard lock(mu);
    had_capture = capture_active;
    state = final_state;
    if (last_error.empty() && final_state == ConnectionState::kFailed) last_error = why;
    if (last_error.empty() && final_state == ConnectionState::kClosed && why != "disconnected")
      last_error = why;
    ++generation;
  }
  cv.notify_all();
  if (had_capture) {
    const uint64_t objects = assembler ? assembler->seen().objects : 0;
    FinishCapture({false,
                   true,
                   "incomplete capture: " + why + " (after " + std::to_string(objects) +
                       " objects); nothing was saved",
                   {},
                   {}});
  }
}

void HostClient::Impl::FinishCapture(CaptureResult r) {
  assembler.reset();
  std::lock_guard lock(mu);
  if (!capture_active) return;
  capture_active = false;
  progress.phase = r.ok ? CapturePhase::kDone : CapturePhase::kFailed;
  if (r.ok) {
    progress.objects = r.stats.objects;
    progress.refs = r.stats.refs;
    progress.roots = r.stats.roots;
    progress.heap_bytes = r.stats.heap_bytes;
    progress.wire_bytes = r.stats.wire_bytes;
  }
  result = std::move(r);
  ++generation;
  cv.notify_all();
}

void HostClient::Impl::PublishProgress() {
  if (!assembler) return;
  const CaptureTotalsSeen& s = assembler->seen();
  std::lock_guard lock(mu);
  if (!capture_active) return;
  if (progress.objects != s.objects || progress.roots != s.roots) ++generation;
  progress.objects = s.objects;
  progress.refs = s.refs;
  progress.roots = s.roots;
  progress.heap_bytes = s.heap_bytes;
  progress.wire_bytes = s.wire_bytes;
  progress.elapsed_s = Seconds(capture_started);
}

}  // namespace xrpm::client

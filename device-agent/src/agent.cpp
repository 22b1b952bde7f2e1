// Agent lifecycle: Start (bind, threads), the network loop, the capture worker, Stop.
#include "xrpm/agent/agent.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <random>
#include <thread>

#include "agent_impl.h"
#include "xrpm/protocol/beacon.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"

namespace xrpm {
namespace agent {

static_assert(kDefaultAgentPort == protocol::kDefaultPort, "one default port");

bool ParseListenAddress(const std::string& text, AgentOptions* options, std::string* error) {
  protocol::Endpoint ep;
  if (!protocol::ParseEndpoint(text, options->port, &ep, error)) return false;
  options->address = ep.host;
  options->port = ep.port;
  return true;
}

void Agent::Impl::Log(const std::string& line) {
  if (opt.log)
    opt.log(line);
  else
    std::fprintf(stderr, "xrpm-agent: %s\n", line.c_str());
}

bool Agent::Impl::Start(std::string* error) {
  if (!protocol::InitEnet()) {
    *error = "ENet failed to initialise";
    return false;
  }
  if (!opt.token.empty()) {
    if (!protocol::AuthInit()) {
      *error = "libsodium failed to initialise (no entropy source?): cannot check tokens";
      return false;
    }
    auth_key = protocol::DeriveAuthKey(opt.token);
  }
  ENetAddress addr;
  if (!protocol::ResolveEndpoint({opt.address, opt.port}, &addr, error)) return false;
  const bool loopback = protocol::IsLoopback(addr);
  if (!loopback && opt.token.empty()) {
    *error = "serving " + opt.address +
             " (not loopback) requires a token: pass --token, and give it to the host";
    return false;
  }
  // Room for peers beyond the one controller, so other hosts can be told why they are refused
  // (refused peers are dropped even if they never acknowledge: see CheckHandshakeTimeouts).
  host = enet_host_create(&addr, kMaxAgentPeers, protocol::kChannelCount, 0, 0);
  if (!host) {
    *error = "cannot listen on " + protocol::FormatAddress(addr) + " (address in use?)";
    return false;
  }
  protocol::ConfigureHost(host, loopback);
  ENetAddress bound;
  if (enet_socket_get_address(host->socket, &bound) == 0) port = bound.port;
  counter_values.resize(std::min(runtime.CounterCount(), protocol::kMaxCounters));
  if (opt.announce && !StartAnnouncing(error)) {
    enet_host_destroy(host);
    host = nullptr;
    return false;
  }
  StartMarkers();
  stopping = false;
  worker_exit = false;
  worker_thread = std::thread([this] { WorkerLoop(); });
  net_thread = std::thread([this] { NetLoop(); });
  Log("listening on " + opt.address + ":" + std::to_string(port.load()) +
      (opt.token.empty() ? "" : " (token required)") +
      (opt.announce ? " (announced on " + std::string(protocol::kBeaconGroup) + ":" +
                          std::to_string(protocol::kBeaconPort) + ")"
                    : ""));
  return true;
}

bool Agent::Impl::StartAnnouncing(std::string* error) {
  const RuntimeInfo info = runtime.Info();
  protocol::BeaconInfo b;
  b.protocol_version = protocol::kProtocolVersion;
  b.agent = protocol::kAgentName;
  b.app = info.app_name ? info.app_name : "";
  b.runtime = info.runtime_name ? info.runtime_name : "";
  b.platform = info.platform ? info.platform : "";
  b.port = port.load();
  b.token_required = !opt.token.empty();  // whether, never what
  b.instance = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  b.interval_ms = opt.announce_interval_ms;
  return beacon.Open(b, opt.address, error);
}

void Agent::Impl::WorkerLoop() {
  for (;;) {
    std::shared_ptr<CaptureJob> j;
    {
      std::unique_lock<std::mutex> lock(worker_mu);
      worker_cv.wait(lock, [&] { return worker_exit || worker_job; });
      if (!worker_job) return;  // exit requested and nothing to run
      j = std::move(worker_job);
    }
    RunCapture(runtime, *j, opt.stop_world_timeout_ms);
  }
}

void Agent::Impl::NetLoop() {
  try {
    while (!stopping.load(std::memory_order_acquire)) {
      // Short waits while bytes are flowing; otherwise wake for the next counter sample.
      uint32_t timeout_ms = 10;
      if (job) {
        timeout_ms = 1;
      } else if (counter_interval_ms && controller) {
        const int64_t wait_ns = next_sample_ns - NowNs();
        timeout_ms =
            wait_ns <= 0 ? 0 : std::min<uint32_t>(10, static_cast<uint32_t>(wait_ns / 1000000) + 1);
      }
      ENetEvent ev;
      int r = enet_host_service(host, &ev, timeout_ms);
      while (r > 0) {
        switch (ev.type) {
          case ENET_EVENT_TYPE_CONNECT:
            OnConnect(ev.peer);
            break;
          case ENET_EVENT_TYPE_RECEIVE:
            OnReceive(ev.peer, ev.packet, ev.channelID);
            break;
          case ENET_EVENT_TYPE_DISCONNECT:
            OnDisconnect(ev.peer);
            break;
          case ENET_EVENT_TYPE_NONE:
            break;
        }
        r = enet_host_check_events(host, &ev);
      }
      PumpCapture();
      PumpCounters();
      PumpMarkers();
      PumpFrames();
      beacon.MaybeSend(NowNs(), [this](const std::string& line) { Log(line); });
      CheckHandshakeTimeouts();
      RetireFreedJobs();
      capture_in_flight.store(job != nullptr || !retired.empty(), std::memory_order_release);
    }
  } catch (const std::exception& e) {
    Log(std::string("network thread stopped: ") + e.what());
  }
  Shutdown();
}

void Agent::Impl::Shutdown() {
  if (job) job->Cancel();
  StopFrames();
  for (size_t i = 0; i < host->peerCount; ++i) {
    ENetPeer* peer = &host->peers[i];
    auto* s = static_cast<Session*>(peer->data);
    if (!s) continue;
    if (peer->state == ENET_PEER_STATE_CONNECTED && s->state != Session::State::kClosing)
      SendControl(peer, protocol::MakeError(wire::SHUTTING_DOWN, "the agent is stopping", true));
    enet_host_flush(host);
    enet_peer_disconnect_now(peer, wire::SHUTTING_DOWN);
    delete s;
    peer->data = nullptr;
  }
  controller = nullptr;
}

void Agent::Impl::Stop() {
  stopping.store(true, std::memory_order_release);
  if (net_thread.joinable()) net_thread.join();
  StopMarkers();
  {
    std::lock_guard<std::mutex> lock(worker_mu);
    worker_exit = true;
    if (worker_job) worker_job->Cancel();
  }
  worker_cv.notify_all();
  if (worker_thread.joinable()) worker_thread.join();
  if (host) enet_host_destroy(host);  // frees packets still queued: jobs must outlive this
  host = nullptr;
  job.reset();
  retired.clear();
}

Agent::Agent(RuntimePort& runtime, AgentOptions options)
    : impl_(new Impl(runtime, std::move(options))) {}

Agent::~Agent() {
  Stop();
}

bool Agent::Start(std::string* error) noexcept {
  std::string local;
  if (!error) error = &local;
  if (impl_->host) {
    *error = "the agent is already running";
    return false;
  }
  try {
    return impl_->Start(error);
  } catch (const std::exception& e) {
    *error = std::string("agent failed to start: ") + e.what();
    return false;
  }
}

void Agent::Stop() noexcept {
  try {
    impl_->Stop();
  } catch (...) {
  }
}

void Agent::StopAfterCapture(uint32_t max_wait_ms) noexcept {
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(max_wait_ms);
  if (impl_->capture_in_flight.load(std::memory_order_acquire)) {
    impl_->Log("the program is ending: the capture under way finishes first (at most " +
               std::to_string(max_wait_ms / 1000) + " s)");
    // Bounded polling: the network thread owns the job; this thread only waits for it to clear.
    while (impl_->capture_in_flight.load(std::memory_order_acquire) &&
           SteadyClock::now() < deadline && impl_->net_thread.joinable())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Stop();
}

uint16_t Agent::port() const noexcept {
  return impl_->port.load();
}

AgentStats Agent::stats() const noexcept {
  std::lock_guard<std::mutex> lock(impl_->stats_mu);
  return impl_->stats;
}

}  // namespace agent
}  // namespace xrpm

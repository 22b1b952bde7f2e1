// DiagnosticsIpc: the client side of CoreCLR's diagnostics IPC that `xrpm-dotnet --attach PID`
// uses to load the profiler library into a running .NET process, and the attach's client data
// (what the launcher tells the profiler inside the process).
//
// The runtime (.NET Core 3.0 and later, unless started with DOTNET_EnableDiagnostics=0) listens
// on a Unix domain socket $TMPDIR/dotnet-diagnostic-PID-KEY-socket (TMPDIR of the process, /tmp
// without one; KEY tells apart processes that had the same PID). A client connects, sends one
// request and reads one response; the runtime then closes the connection. Every message starts
// with a 20-byte header, little-endian:
//   magic[14]  "DOTNET_IPC_V1" and a NUL
//   size u16   the whole message (header and payload) in bytes
//   set u8, id u8, reserved u16 (0)
// AttachProfiler is command set 0x03, command 0x01; its payload:
//   u32 attach timeout (ms; how long the runtime waits for a background collection to end when
//   the profiler asks for GC events), 16 bytes profiler CLSID (the GUID's in-memory layout),
//   the library path (u32 count of UTF-16 units including the terminating NUL, then the units),
//   u32 client-data length, the client data.
// The response: command set 0xFF, id 0x00 (OK) or 0xFF (error), payload a u32 HRESULT (the
// profiler's InitializeForAttach result when it failed there).
//
// The client data xrpm sends (AttachClientData) is text, one KEY=VALUE per line after a first
// line "xrpm-attach 1": options (the agent's options in the Mono module's syntax,
// profiler_options.h), token (the host token, when any), status (a FIFO the profiler writes its
// one status line to: "ok ADDR:PORT" or "error MESSAGE"). At most kMaxClientData bytes.
//
// Thread-safety: plain functions on values; AttachProfiler blocks its calling thread (bounded).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace xrpm {
namespace dotnet {
namespace ipc {

constexpr size_t kHeaderBytes = 20;
constexpr size_t kMaxMessageBytes = 0xFFFF;  // the header's u16 size
constexpr uint8_t kCommandSetProfiler = 0x03;
constexpr uint8_t kCommandAttachProfiler = 0x01;
constexpr uint8_t kCommandSetServer = 0xFF;
constexpr uint8_t kResponseOk = 0x00;
constexpr uint8_t kResponseError = 0xFF;
constexpr size_t kMaxClientData = 4096;

// HRESULTs an attach can answer with.
constexpr uint32_t kBadEncoding = 0x80131384u;
constexpr uint32_t kUnknownCommand = 0x80131385u;
constexpr uint32_t kUnknownMagic = 0x80131386u;
constexpr uint32_t kNotSupported = 0x80131515u;
constexpr uint32_t kNotYetAvailable = 0x8013135Bu;
constexpr uint32_t kRuntimeUninitialized = 0x80131371u;
constexpr uint32_t kProfilerNotAttachable = 0x80131368u;
constexpr uint32_t kProfilerAlreadyActive = 0x8013136Au;

// One AttachProfiler request's fields.
struct AttachRequest {
  uint32_t timeout_ms = 10000;
  uint8_t clsid[16] = {};    // the GUID as laid out in memory (little-endian fields)
  std::string library_path;  // UTF-8 (converted to UTF-16)
  std::string client_data;   // bytes, as is
};
// The request's bytes. False (with *error) when the path is not valid UTF-8 or the message
// would not fit the header's 16-bit size.
bool EncodeAttachRequest(const AttachRequest& request, std::vector<uint8_t>* out,
                         std::string* error);

struct Response {
  bool ok = false;  // id 0x00
  uint32_t hresult = 0;
};
enum class ParseStatus { kIncomplete, kComplete, kBad };
// A response from the start of `data`: kIncomplete while more bytes are needed (*need, when
// given, says how many in all), kComplete with *out filled, kBad with *error naming the byte
// offset and what was expected vs found.
ParseStatus ParseResponse(const uint8_t* data, size_t size, Response* out, std::string* error,
                          size_t* need = nullptr);

// What an HRESULT answered to an attach means, in one sentence ("" for S_OK).
std::string DescribeAttachResult(uint32_t hresult);

// The diagnostics sockets of `pid` in `dirs` (each a directory path), newest first; not those an
// earlier process with this PID left (xrpm/protocol/dotnet_diagnostic_socket.h).
std::vector<std::string> FindSockets(pid_t pid, const std::vector<std::string>& dirs);
// Where a process's runtime puts its socket: its TMPDIR (read from /proc/PID/environ when
// readable), this process's TMPDIR, and /tmp; without duplicates.
std::vector<std::string> SocketDirsOf(pid_t pid);
// Sends `request` on a new connection to `socket_path` and reads the response, within
// timeout_ms. False (with *error) when that could not be done (no connection, the runtime
// closed it, a malformed response, the time ran out); true with *response otherwise.
bool AttachProfiler(const std::string& socket_path, const AttachRequest& request, int timeout_ms,
                    Response* response, std::string* error);

// ---- the client data ----
struct AttachClientData {
  std::string options;  // "xrpm:port=N,..."
  std::string token;
  std::string status;  // the status FIFO's path
};
std::string FormatClientData(const AttachClientData& data);
// False (with *error) when `data` is not what FormatClientData writes: a first line other than
// "xrpm-attach 1", a line without '=', an unknown or repeated key, more than kMaxClientData
// bytes, a NUL, or no options.
bool ParseClientData(const uint8_t* data, size_t size, AttachClientData* out, std::string* error);

}  // namespace ipc
}  // namespace dotnet
}  // namespace xrpm

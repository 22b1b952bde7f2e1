// The diagnostics IPC client of xrpm-dotnet --attach (device-agent/ports/dotnet/src
// diagnostics_ipc.h) without a runtime: the AttachProfiler request's bytes, the response parser
// (complete, incomplete, malformed with the byte named), the client data's round trip and its
// refusals, finding a process's sockets by name, and one request/response over a Unix socket to
// a stand-in runtime (a thread of the test that answers as CoreCLR does).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <thread>

#include "diagnostics_ipc.h"
#include "temp_dir.h"
#include "xrpm/protocol/dotnet_diagnostic_socket.h"

namespace xrpm::testing {
namespace {

using namespace xrpm::dotnet::ipc;

std::vector<uint8_t> ResponseBytes(uint8_t id, uint32_t hr) {
  std::vector<uint8_t> r(kHeaderBytes + 4, 0);
  std::memcpy(r.data(), "DOTNET_IPC_V1", 14);
  r[14] = static_cast<uint8_t>(r.size());
  r[16] = kCommandSetServer;
  r[17] = id;
  for (int i = 0; i < 4; ++i) r[kHeaderBytes + i] = static_cast<uint8_t>(hr >> (8 * i));
  return r;
}

uint32_t U32At(const std::vector<uint8_t>& b, size_t at) {
  return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<uint32_t>(b[at + 3]) << 24;
}

TEST(DiagnosticsIpc, AttachRequestLayout) {
  AttachRequest req;
  req.timeout_ms = 5000;
  for (int i = 0; i < 16; ++i) req.clsid[i] = static_cast<uint8_t>(i + 1);
  req.library_path = "/a/é";  // a 2-byte UTF-8 sequence: one UTF-16 unit
  req.client_data = "xyz";
  std::vector<uint8_t> b;
  std::string error;
  ASSERT_TRUE(EncodeAttachRequest(req, &b, &error)) << error;
  const size_t path_units = 4 + 1;  // "/a/é" and the NUL
  ASSERT_EQ(b.size(), kHeaderBytes + 4 + 16 + 4 + 2 * path_units + 4 + 3);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data())), "DOTNET_IPC_V1");
  EXPECT_EQ(b[13], 0);
  EXPECT_EQ(b[14] | b[15] << 8, static_cast<int>(b.size()));
  EXPECT_EQ(b[16], kCommandSetProfiler);
  EXPECT_EQ(b[17], kCommandAttachProfiler);
  EXPECT_EQ(b[18] | b[19], 0);
  EXPECT_EQ(U32At(b, 20), 5000u);
  EXPECT_EQ(b[24], 1);
  EXPECT_EQ(b[39], 16);
  EXPECT_EQ(U32At(b, 40), path_units);
  EXPECT_EQ(b[44], '/');
  EXPECT_EQ(b[50] | b[51] << 8, 0xE9) << "é as one UTF-16 unit";
  EXPECT_EQ(b[52] | b[53] << 8, 0) << "the NUL";
  EXPECT_EQ(U32At(b, 54), 3u);
  EXPECT_EQ(std::string(b.end() - 3, b.end()), "xyz");

  req.library_path = "bad \xff utf-8";
  EXPECT_FALSE(EncodeAttachRequest(req, &b, &error));
  EXPECT_NE(error.find("UTF-8"), std::string::npos) << error;
  req.library_path = "/x";
  req.client_data.assign(70000, 'a');
  EXPECT_FALSE(EncodeAttachRequest(req, &b, &error));
  EXPECT_NE(error.find("at most 65535"), std::string::npos) << error;
}

TEST(DiagnosticsIpc, ResponsesCompleteIncompleteAndMalformed) {
  Response r;
  std::string error;
  const auto ok = ResponseBytes(kResponseOk, 0);
  ASSERT_EQ(ParseResponse(ok.data(), ok.size(), &r, &error), ParseStatus::kComplete) << error;
  EXPECT_TRUE(r.ok);
  const auto refused = ResponseBytes(kResponseError, kProfilerAlreadyActive);
  ASSERT_EQ(ParseResponse(refused.data(), refused.size(), &r, &error), ParseStatus::kComplete);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.hresult, kProfilerAlreadyActive);
  for (size_t n = 0; n < ok.size(); ++n)
    EXPECT_EQ(ParseResponse(ok.data(), n, &r, &error), ParseStatus::kIncomplete) << n;

  auto bad = ok;
  bad[3] = 'X';
  EXPECT_EQ(ParseResponse(bad.data(), 5, &r, &error), ParseStatus::kBad);
  EXPECT_EQ(error.find("byte 3: expected the magic"), 0u) << error;
  bad = ok;
  bad[16] = 0x02;
  EXPECT_EQ(ParseResponse(bad.data(), bad.size(), &r, &error), ParseStatus::kBad);
  EXPECT_NE(error.find("byte 16"), std::string::npos) << error;
  bad = ok;
  bad[17] = 0x07;
  EXPECT_EQ(ParseResponse(bad.data(), bad.size(), &r, &error), ParseStatus::kBad);
  EXPECT_NE(error.find("byte 17"), std::string::npos) << error;
  bad = ok;
  bad[14] = 21;
  EXPECT_EQ(ParseResponse(bad.data(), bad.size(), &r, &error), ParseStatus::kBad);
  EXPECT_NE(error.find("found 21"), std::string::npos) << error;

  EXPECT_EQ(DescribeAttachResult(0), "");
  EXPECT_NE(DescribeAttachResult(kUnknownCommand).find(".NET Core 3.0"), std::string::npos);
  EXPECT_NE(DescribeAttachResult(0x80004005u).find("0x80004005"), std::string::npos);
}

TEST(DiagnosticsIpc, ClientDataRoundTripAndRefusals) {
  AttachClientData d{"xrpm:listen=127.0.0.1:0,quiet", "s3cret", "/tmp/x/status"};
  const std::string text = FormatClientData(d);
  AttachClientData back;
  std::string error;
  ASSERT_TRUE(
      ParseClientData(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &back, &error))
      << error;
  EXPECT_EQ(back.options, d.options);
  EXPECT_EQ(back.token, d.token);
  EXPECT_EQ(back.status, d.status);
  auto refused = [&](const std::string& t, const std::string& why) {
    AttachClientData c;
    std::string e;
    EXPECT_FALSE(ParseClientData(reinterpret_cast<const uint8_t*>(t.data()), t.size(), &c, &e))
        << t;
    EXPECT_NE(e.find(why), std::string::npos) << t << ": " << e;
  };
  refused("", "expected \"xrpm-attach 1\"");
  refused("xrpm-attach 2\noptions=xrpm\n", "line 1: expected");
  refused("xrpm-attach 1\n", "expected an options= line");
  refused("xrpm-attach 1\noptions=a\noptions=b\n", "a second");
  refused("xrpm-attach 1\noptions=a\ncolour=blue\n", "line 3");
  refused("xrpm-attach 1\noptions=a\nno equals\n", "expected KEY=VALUE");
  refused(std::string("xrpm-attach 1\noptions=a\0b\n", 26), "found a NUL");
  refused("xrpm-attach 1\noptions=" + std::string(5000, 'a'), "at most 4096");
}

TEST(DiagnosticsIpc, SocketsAreFoundByPidNewestFirst) {
  TempDir dir, other;
  const pid_t me = getpid();
  // A runtime names its socket with its process's start time; another key is an earlier
  // process's with the same PID, left behind (it was killed): never tried.
  const std::string key = std::to_string(protocol::ProcessStartKey(me));
  ASSERT_NE(key, "0");
  const std::string mine = "dotnet-diagnostic-" + std::to_string(me) + "-";
  std::ofstream(dir.Path(mine + key + "-socket")).put('x');
  std::ofstream(other.Path(mine + key + "-socket")).put('x');
  std::ofstream(dir.Path(mine + "1" + key + "-socket")).put('x');  // stale
  std::ofstream(dir.Path("dotnet-diagnostic-" + std::to_string(me) + "1-5-socket")).put('x');
  std::ofstream(dir.Path("dotnet-diagnostic-x-5-socket")).put('x');
  std::ofstream(dir.Path(mine + "socket")).put('x');  // no key
  std::ofstream(dir.Path(mine + "300-sockets")).put('x');
  // The second directory's is the newest.
  struct timespec times[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, other.Path(mine + key + "-socket").c_str(), times, 0), 0);
  const auto found = FindSockets(me, {dir.path(), other.path(), dir.Path("missing")});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], other.Path(mine + key + "-socket"));
  EXPECT_EQ(found[1], dir.Path(mine + key + "-socket"));
  const auto dirs = SocketDirsOf(me);
  EXPECT_EQ(dirs.back(), "/tmp");
}

TEST(DiagnosticsIpc, OneRequestAndItsAnswerOverAUnixSocket) {
  TempDir dir;
  const std::string path = dir.Path("dotnet-diagnostic-1-1-socket");
  const int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(server, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(server, 1), 0);
  std::vector<uint8_t> received;
  std::thread runtime([&] {
    const int c = accept(server, nullptr, nullptr);
    if (c < 0) return;
    uint8_t buf[4096];
    size_t want = kHeaderBytes;
    while (received.size() < want) {
      const ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) break;
      received.insert(received.end(), buf, buf + n);
      if (received.size() >= 16) want = received[14] | received[15] << 8;
    }
    const auto answer = ResponseBytes(kResponseError, kProfilerAlreadyActive);
    // In two pieces: the client must put them together.
    (void)!write(c, answer.data(), 7);
    (void)!write(c, answer.data() + 7, answer.size() - 7);
    close(c);
  });
  AttachRequest req;
  req.library_path = "/lib/x.so";
  req.client_data = "hello";
  Response r;
  std::string error;
  ASSERT_TRUE(AttachProfiler(path, req, 10000, &r, &error)) << error;
  runtime.join();
  close(server);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.hresult, kProfilerAlreadyActive);
  std::vector<uint8_t> expected;
  ASSERT_TRUE(EncodeAttachRequest(req, &expected, &error));
  EXPECT_EQ(received, expected);

  // Nobody listening: a clear error, no hang.
  EXPECT_FALSE(AttachProfiler(path, req, 10000, &r, &error));
  EXPECT_NE(error.find("cannot connect"), std::string::npos) << error;
}

}  // namespace
}  // namespace xrpm::testing

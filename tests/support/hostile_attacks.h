// Hostile peers, one attack per kind, against any agent on 127.0.0.1 with a token: shared by the
// in-process hostile-peer test (emulator runtime) and the Mono port's tests (xrpm-mono), so both
// agents are held to the same answers.
//
// Thread-safety: each call uses its own ENet peer.
#pragma once

#include <cstdint>

#include "xrpm/protocol/wire.pb.h"

namespace xrpm::testing {

inline constexpr int kAttackKinds = 6;
// 0 wrong version, 1 guessed token answer, 2 garbage, 3 oversized, 4 command before the
// handshake, 5 flood of malformed packets.
inline constexpr wire::ErrorCode kAttackAnswers[kAttackKinds] = {
    wire::VERSION_MISMATCH, wire::BAD_TOKEN,         wire::MALFORMED,
    wire::TOO_LARGE,        wire::NOT_AUTHENTICATED, wire::MALFORMED};

// Runs attack `kind` against the agent on 127.0.0.1:port; returns the error code the agent
// answered with (sent as a message and as the disconnect data), ERROR_UNSPECIFIED otherwise.
wire::ErrorCode Attack(uint16_t port, int kind);

}  // namespace xrpm::testing

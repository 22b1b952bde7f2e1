// Token authentication: a challenge-response over the shared token, so the token never crosses
// the wire (docs/PROTOCOL.md, "Authentication").
//
//   host  -> agent  Hello{client_nonce}          32 random bytes
//   agent -> host   AuthChallenge{agent_nonce}   32 random bytes, fresh per connection
//   host  -> agent  AuthResponse{answer}         MAC(K, label || agent_nonce || client_nonce)
//
// K = BLAKE2b-256(token) keyed with a fixed protocol label (libsodium crypto_generichash); the
// MAC is HMAC-SHA-512-256 (libsodium crypto_auth) and is checked with crypto_auth_verify, which
// compares in constant time. A recorded answer is worthless in another connection: the agent's
// nonce is new each time. Both nonces have a fixed length, so the MAC input is unambiguous.
// What it does not do: authenticate the agent to the host, or encrypt the session; and an
// eavesdropper who records one exchange can test token guesses offline, so tokens must be long
// random strings (`openssl rand -hex 16`), not words.
//
// Plain C++17, no exceptions. Thread-safety: every function is reentrant (libsodium is
// initialised once, thread-safely, by the first call).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace xrpm {
namespace protocol {

constexpr size_t kAuthNonceBytes = 32;
constexpr size_t kAuthAnswerBytes = 32;

// The MAC key derived from a token (empty token: no authentication, never derived).
using AuthKey = std::array<uint8_t, 32>;

// False if libsodium cannot initialise (no entropy source); nothing else works then.
bool AuthInit();
AuthKey DeriveAuthKey(const std::string& token);
// kAuthNonceBytes random bytes (libsodium's CSPRNG).
std::string AuthNonce();
// The host's answer to a challenge.
std::string AuthAnswer(const AuthKey& key, const std::string& agent_nonce,
                       const std::string& client_nonce);
// True if `answer` is the right answer (constant-time compare; any wrong length is false).
bool AuthVerify(const AuthKey& key, const std::string& agent_nonce, const std::string& client_nonce,
                const std::string& answer);

}  // namespace protocol
}  // namespace xrpm

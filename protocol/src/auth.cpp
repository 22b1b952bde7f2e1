// Token challenge-response with libsodium (see auth.h).
#include "xrpm/protocol/auth.h"

#include <sodium.h>

namespace xrpm {
namespace protocol {
namespace {

static_assert(crypto_auth_KEYBYTES == sizeof(AuthKey), "an AuthKey is a crypto_auth key");
static_assert(crypto_auth_BYTES == kAuthAnswerBytes, "an answer is one crypto_auth tag");

// Domain separation: keys and MACs of this protocol are useless anywhere else.
constexpr char kKeyLabel[] = "xrpm token key, protocol 2";
constexpr char kAnswerLabel[] = "xrpm host answer, protocol 2";

const unsigned char* Bytes(const std::string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// label || agent_nonce || client_nonce (fixed lengths, so unambiguous).
std::string MacInput(const std::string& agent_nonce, const std::string& client_nonce) {
  std::string m(kAnswerLabel, sizeof kAnswerLabel);
  m += agent_nonce;
  m += client_nonce;
  return m;
}

}  // namespace

bool AuthInit() {
  return sodium_init() >= 0;  // 0 first time, 1 already done
}

AuthKey DeriveAuthKey(const std::string& token) {
  AuthKey key{};
  AuthInit();
  crypto_generichash(key.data(), key.size(), Bytes(token), token.size(),
                     reinterpret_cast<const unsigned char*>(kKeyLabel), sizeof kKeyLabel);
  return key;
}

std::string AuthNonce() {
  AuthInit();
  std::string n(kAuthNonceBytes, '\0');
  randombytes_buf(&n[0], n.size());
  return n;
}

std::string AuthAnswer(const AuthKey& key, const std::string& agent_nonce,
                       const std::string& client_nonce) {
  const std::string m = MacInput(agent_nonce, client_nonce);
  std::string tag(kAuthAnswerBytes, '\0');
  crypto_auth(reinterpret_cast<unsigned char*>(&tag[0]), Bytes(m), m.size(), key.data());
  return tag;
}

bool AuthVerify(const AuthKey& key, const std::string& agent_nonce, const std::string& client_nonce,
                const std::string& answer) {
  if (answer.size() != kAuthAnswerBytes) return false;
  const std::string m = MacInput(agent_nonce, client_nonce);
  return crypto_auth_verify(Bytes(answer), Bytes(m), m.size(), key.data()) == 0;
}

}  // namespace protocol
}  // namespace xrpm

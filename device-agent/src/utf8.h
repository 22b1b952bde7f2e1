// The agent's name for protocol::SanitizeUtf8 (protocol/include/xrpm/protocol/utf8.h), which the
// agent applies to every runtime-supplied string it sends. Thread-safety: reentrant.
#pragma once

#include "xrpm/protocol/utf8.h"

namespace xrpm {
namespace agent {

using protocol::SanitizeUtf8;

}  // namespace agent
}  // namespace xrpm

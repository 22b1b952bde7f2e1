#include "mono_fields_run.h"

namespace xrpm::testing {

MonoFieldsRun::MonoFieldsRun(const std::vector<std::string>& launcher_args, const std::string& exe,
                             const std::vector<std::string>& args, const std::string& ready)
    : run(launcher_args, exe, args) {
  if (run.endpoint.empty()) {
    error = exe + ": the agent did not listen\n" + run.proc->log().All();
    return;
  }
  if (run.proc->log().WaitFor(ready, 30000).empty()) {
    error = exe + ": no \"" + ready + "\" line within 30 s\n" + run.proc->log().All();
    return;
  }
  peer = RawPeer::Connect(run.port);
  if (!peer) {
    error = exe + ": no connection to the agent";
    return;
  }
  if (!HandshakeFields(*peer, &welcome, &error)) error = exe + ": handshake: " + error;
}

bool MonoFieldsRun::Capture(FieldCapture* c, uint32_t timeout_ms) {
  if (!error.empty() || !peer) return false;
  if (CaptureFields(*peer, welcome, true, 0, c, &error, timeout_ms)) return true;
  error += "\n" + run.proc->log().All();
  return false;
}

}  // namespace xrpm::testing

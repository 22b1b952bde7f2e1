// PipeGate: holds a program under test at a known point of its run, so that a test can act
// (capture its heap, say) at that point however fast or slow the machine is.
//
// The program is told to write one of its output files (a compiler's XML documentation, a
// report) to the gate's path, a named pipe (FIFO) whose capacity the gate shrinks to one page.
// Once the program has written a page its next write blocks until the test reads, so the program
// stays at that point of its run. WaitForWriter() returns when the first bytes arrived (the
// program got there); Drain() reads the rest until the program closes the file, letting it go on.
// The output must be larger than a page and written sequentially (no seeks).
//
// Thread-safety: one test thread per object.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace xrpm::testing {

class PipeGate {
 public:
  // Creates the FIFO at `path` (which must not exist) and opens its reading end.
  explicit PipeGate(std::string path);
  ~PipeGate();
  PipeGate(const PipeGate&) = delete;
  PipeGate& operator=(const PipeGate&) = delete;

  const std::string& path() const { return path_; }
  // Empty when the gate is ready; else what failed (mkfifo, open, fcntl with errno's text).
  const std::string& error() const { return error_; }

  // Waits up to timeout_ms for the first bytes, polling `alive` (false: the program ended, stop
  // waiting). True once bytes are waiting to be read.
  bool WaitForWriter(uint32_t timeout_ms, const std::function<bool()>& alive);

  // Reads until the writer closes the file or timeout_ms passed; appends to *out. True when the
  // writer closed it.
  bool Drain(uint32_t timeout_ms, std::string* out);

 private:
  std::string path_;
  std::string error_;
  int fd_ = -1;
};

}  // namespace xrpm::testing

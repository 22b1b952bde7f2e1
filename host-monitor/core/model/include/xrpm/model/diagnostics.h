// Diagnostics: problems found in input (files, network data), each with where it was found.
//
// Every reader reports through a Diagnostics sink. Lenient readers keep going and record; strict
// readers stop at the first one (Diagnostics::strict makes Add() throw InputError). The sink keeps
// at most `max_kept` messages (and counts the rest) so hostile input cannot grow memory without
// bound.
//
// Thread-safety: none; one sink per reader.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xrpm {

struct Diagnostic {
  std::string file;     // path or stream name
  uint64_t line = 0;    // 1-based; 0 when not line-oriented
  std::string code;     // stable short id: "unknown-type", "dangling-ref", "bad-number", ...
  std::string message;  // "expected X, found Y"

  std::string ToString() const;  // "file:line: message [code]"
};

// A fatal input problem: thrown by readers in strict mode, or when nothing valid can be loaded.
class InputError : public std::runtime_error {
 public:
  explicit InputError(Diagnostic d) : std::runtime_error(d.ToString()), diag_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

class Diagnostics {
 public:
  explicit Diagnostics(bool strict = false, size_t max_kept = 1000)
      : strict_(strict), max_kept_(max_kept) {}

  // Records a problem; in strict mode throws InputError instead.
  void Add(Diagnostic d);
  void Add(std::string file, uint64_t line, std::string code, std::string message) {
    Add(Diagnostic{std::move(file), line, std::move(code), std::move(message)});
  }

  // Counts `n` more problems of `code` without keeping their text. Readers that meet millions
  // of the same problem call this once the sink is full() instead of formatting each message.
  void CountDropped(std::string_view code, uint64_t n);

  bool strict() const { return strict_; }
  size_t max_kept() const { return max_kept_; }
  bool full() const { return kept_.size() >= max_kept_; }
  bool empty() const { return total_ == 0; }
  // Problems per code, counting kept and dropped ones: {"dangling-ref": 12, ...}.
  const std::map<std::string, uint64_t, std::less<>>& counts() const { return counts_; }
  uint64_t total() const { return total_; }                      // all problems seen
  const std::vector<Diagnostic>& kept() const { return kept_; }  // the first max_kept
  uint64_t dropped() const { return total_ - kept_.size(); }

 private:
  bool strict_;
  size_t max_kept_;
  uint64_t total_ = 0;
  std::vector<Diagnostic> kept_;
  std::map<std::string, uint64_t, std::less<>> counts_;
};

}  // namespace xrpm

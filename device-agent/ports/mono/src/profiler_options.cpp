#include "profiler_options.h"

#include <cstdlib>

namespace xrpm {
namespace mono {
namespace {

bool IsIdentifierPart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '`';
}

// A dotted name of identifiers: "A.B.C" (no empty part).
bool IsDottedName(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s[i + 1] == '.') return false;
    } else if (!IsIdentifierPart(s[i])) {
      return false;
    }
  }
  return true;
}

bool ParsePort(const std::string& text, uint16_t* port) {
  if (text.empty() || text.size() > 5) return false;
  unsigned long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned long>(c - '0');
  }
  if (v > 65535) return false;
  *port = static_cast<uint16_t>(v);
  return true;
}

// "ADDR:PORT" or "[v6]:PORT"; the agent resolves ADDR when it binds.
bool ParseListen(const std::string& text, ProfilerOptions* out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) return false;
  uint16_t port = 0;
  if (!ParsePort(text.substr(colon + 1), &port)) return false;
  out->address = host;
  out->port = port;
  return true;
}

// A decimal number in [lo, hi] (digits only).
bool ParseBounded(const std::string& text, uint32_t lo, uint32_t hi, uint32_t* out) {
  if (text.empty() || text.size() > 10) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v < lo || v > hi) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

}  // namespace

const char* WalkModeName(WalkMode m) {
  return m == WalkMode::kSnapshot ? "snapshot" : "paused";
}

bool ParseWalkMode(const std::string& text, WalkMode* out) {
  for (WalkMode m : {WalkMode::kSnapshot, WalkMode::kPaused})
    if (text == WalkModeName(m)) {
      *out = m;
      return true;
    }
  return false;
}

bool ParseFrameMethod(const std::string& text, FrameMethod* out, std::string* error) {
  const size_t colon = text.find(':');
  const std::string type = colon == std::string::npos ? "" : text.substr(0, colon);
  const std::string method = colon == std::string::npos ? "" : text.substr(colon + 1);
  bool ok = IsDottedName(type) && !method.empty();
  for (char c : method) ok = ok && IsIdentifierPart(c);
  if (!ok) {
    *error = "frame method '" + text +
             "': expected Namespace.Class:Method (for example Microsoft.Xna.Framework.Game:Tick)";
    return false;
  }
  const size_t dot = type.rfind('.');
  out->name_space = dot == std::string::npos ? "" : type.substr(0, dot);
  out->class_name = dot == std::string::npos ? type : type.substr(dot + 1);
  out->method = method;
  return true;
}

bool ParseProfilerOptions(const std::string& desc, ProfilerOptions* out, std::string* error) {
  std::string args;
  if (desc == "xrpm") return true;
  if (desc.rfind("xrpm:", 0) == 0) {
    args = desc.substr(5);
  } else {
    *error = "profiler description '" + desc + "': expected xrpm or xrpm:OPTIONS";
    return false;
  }
  size_t pos = 0;
  while (pos <= args.size()) {
    size_t comma = args.find(',', pos);
    if (comma == std::string::npos) comma = args.size();
    const std::string item = args.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) {
      if (comma == args.size()) break;
      *error = "empty profiler option in '" + desc +
               "' (expected OPTION[,OPTION...] with single commas)";
      return false;
    }
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    const bool has_value = eq != std::string::npos;
    if (key == "port" && has_value) {
      if (!ParsePort(value, &out->port)) {
        *error = "profiler option port='" + value + "': expected a port number 0-65535";
        return false;
      }
    } else if (key == "listen" && has_value) {
      if (!ParseListen(value, out)) {
        *error = "profiler option listen='" + value + "': expected ADDR:PORT";
        return false;
      }
    } else if (key == "frame" && has_value) {
      FrameMethod m;
      if (!ParseFrameMethod(value, &m, error)) return false;
      out->frame = value;
    } else if (key == "sample_bytes" && has_value) {
      if (!ParseBounded(value, 0, kMaxOriginSampleBytes, &out->sample_bytes)) {
        *error = "profiler option sample_bytes='" + value + "': expected bytes 0-" +
                 std::to_string(kMaxOriginSampleBytes) + " (0: no allocation origins)";
        return false;
      }
    } else if (key == "frame_window_ms" && has_value) {
      if (!ParseBounded(value, 1, kMaxFrameWindowMs, &out->frame_window_ms)) {
        *error = "profiler option frame_window_ms='" + value + "': expected milliseconds 1-" +
                 std::to_string(kMaxFrameWindowMs);
        return false;
      }
    } else if (key == "walk" && has_value) {
      if (!ParseWalkMode(value, &out->walk)) {
        *error = "profiler option walk='" + value + "': expected snapshot or paused";
        return false;
      }
    } else if (key == "quiet" && !has_value) {
      out->quiet = true;
    } else if (key == "allocations" && !has_value) {
      out->allocations = true;
    } else if (key == "allocations" && has_value) {
      if (value != "exact" && value != "sampled") {
        *error = "profiler option allocations='" + value + "': expected exact or sampled";
        return false;
      }
      out->allocations = true;
      out->allocations_exact = value == "exact";
    } else if (key == "announce" && !has_value) {
      out->announce = true;
    } else if (key == "no_origins" && !has_value) {
      out->no_origins = true;
    } else if (key == "no_frame" && !has_value) {
      out->no_frame = true;
    } else {
      *error = "unknown profiler option '" + item +
               "' (expected port=N, listen=ADDR:PORT, frame=Namespace.Class:Method, "
               "frame_window_ms=N, walk=snapshot|paused, quiet, allocations[=exact|sampled], "
               "sample_bytes=N, "
               "no_origins, no_frame or announce)";
      return false;
    }
    if (comma == args.size()) break;
  }
  return true;
}

std::string FormatProfilerOptions(const ProfilerOptions& opts) {
  std::string host = opts.address;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::string s = "xrpm:listen=" + host + ":" + std::to_string(opts.port) + ",frame=" + opts.frame;
  if (opts.quiet) s += ",quiet";
  if (opts.allocations) s += opts.allocations_exact ? ",allocations=exact" : ",allocations";
  if (opts.sample_bytes != kDefaultOriginSampleBytes)
    s += ",sample_bytes=" + std::to_string(opts.sample_bytes);
  if (opts.frame_window_ms != kDefaultFrameWindowMs)
    s += ",frame_window_ms=" + std::to_string(opts.frame_window_ms);
  if (opts.walk != kDefaultWalkMode) s += std::string(",walk=") + WalkModeName(opts.walk);
  if (opts.announce) s += ",announce";
  if (opts.no_origins) s += ",no_origins";
  if (opts.no_frame) s += ",no_frame";
  return s;
}

}  // namespace mono
}  // namespace xrpm

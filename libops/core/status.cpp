#include "libops/core/status.h"

#include <cstdio>
#include <vector>

namespace libops {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNullPointer: return "null pointer";
    case StatusCode::kUnknownOp: return "unknown op";
    case StatusCode::kShape: return "shape error";
    case StatusCode::kDtype: return "dtype error";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kNotImplemented: return "not implemented";
    case StatusCode::kIo: return "i/o error";
    case StatusCode::kInvalidGraph: return "invalid graph";
    case StatusCode::kDevice: return "device error";
    case StatusCode::kInternal: return "internal error";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kLimitExceeded: return "limit exceeded";
  }
  return "unknown status";
}

std::string str_vformat(const char* fmt, va_list args) {
  char small[256];
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(small, sizeof(small), fmt, copy);
  va_end(copy);
  if (n < 0) return std::string(fmt);
  if (n < static_cast<int>(sizeof(small))) return std::string(small, static_cast<size_t>(n));
  std::vector<char> big(static_cast<size_t>(n) + 1);
  std::vsnprintf(big.data(), big.size(), fmt, args);
  return std::string(big.data(), static_cast<size_t>(n));
}

std::string str_format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string s = str_vformat(fmt, args);
  va_end(args);
  return s;
}

const std::string& Status::empty_message() {
  static const std::string empty;
  return empty;
}

Status Status::error(StatusCode code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string s = str_vformat(fmt, args);
  va_end(args);
  return Status(code, std::move(s));
}

}  // namespace libops

// Status: the error currency of libops. Functions that can fail on user input
// return a Status (code + message) instead of throwing or aborting; the C API
// turns it into an ops_status_t and a thread-local message.
#pragma once

#include <cstdarg>
#include <string>
#include <utility>

#include "libops/c_types.h"

namespace libops {

enum class StatusCode : int {
  kOk = OPS_OK,
  kInvalidArgument = OPS_ERR_INVALID_ARGUMENT,
  kNullPointer = OPS_ERR_NULL_POINTER,
  kUnknownOp = OPS_ERR_UNKNOWN_OP,
  kShape = OPS_ERR_SHAPE,
  kDtype = OPS_ERR_DTYPE,
  kOutOfMemory = OPS_ERR_OUT_OF_MEMORY,
  kNotImplemented = OPS_ERR_NOT_IMPLEMENTED,
  kIo = OPS_ERR_IO,
  kInvalidGraph = OPS_ERR_INVALID_GRAPH,
  kDevice = OPS_ERR_DEVICE,
  kInternal = OPS_ERR_INTERNAL,
};

const char* status_code_name(StatusCode code);

// printf-style formatting into a std::string.
std::string str_format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string str_vformat(const char* fmt, va_list args);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok; holds no string, so the ok path never allocates
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  static Status error(StatusCode code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message starts with `prefix`, e.g. "node 3 'fc1' (op matmul): ".
  Status with_prefix(const std::string& prefix) const {
    if (is_ok()) return *this;
    return Status(code_, prefix + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace libops

#define LIBOPS_CONCAT_INNER(a, b) a##b
#define LIBOPS_CONCAT(a, b) LIBOPS_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` yields a non-ok Status.
#define RETURN_IF_ERROR(expr)                                      \
  do {                                                             \
    ::libops::Status libops_status_ = (expr);                      \
    if (!libops_status_.is_ok()) return libops_status_;            \
  } while (0)

// Returns an error Status with a printf-style message if `cond` is false.
#define RETURN_IF_NOT(cond, code, ...)                                        \
  do {                                                                        \
    if (!(cond)) return ::libops::Status::error((code), __VA_ARGS__);         \
  } while (0)

// Debug-only check of an invariant a previous phase proved (never user input).
#ifdef NDEBUG
#define LIBOPS_DCHECK(cond) ((void)0)
#else
#include <cassert>
#define LIBOPS_DCHECK(cond) assert(cond)
#endif

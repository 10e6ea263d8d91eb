// Status: the error currency of libops. Functions that can fail on user input
// return a Status (code + message) instead of throwing or aborting; the C API
// turns it into an ops_status_t and a thread-local message.
#pragma once

#include <cstdarg>
#include <memory>
#include <string>
#include <utility>

#include "libops/c_types.h"

#include "libops/core/api.h"

LIBOPS_API_BEGIN

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
  kCancelled = OPS_ERR_CANCELLED,
  kLimitExceeded = OPS_ERR_LIMIT,
};

const char* status_code_name(StatusCode code);

// printf-style formatting into a std::string.
std::string str_format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string str_vformat(const char* fmt, va_list args);

class [[nodiscard]] Status {
 public:
  // ok. An ok Status is one null pointer: the hot paths create, move and
  // test many of them per op call, and an error is rare.
  Status() = default;
  Status(StatusCode code, std::string message)
      : rep_(code == StatusCode::kOk ? nullptr : new Rep{code, std::move(message)}) {}
  Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status ok() { return Status(); }
  static Status error(StatusCode code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  bool is_ok() const { return rep_ == nullptr; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const { return rep_ ? rep_->message : empty_message(); }

  // Returns a copy whose message starts with `prefix`, e.g. "node 3 'fc1' (op matmul): ".
  Status with_prefix(const std::string& prefix) const {
    if (is_ok()) return Status();
    return Status(rep_->code, prefix + rep_->message);
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  static const std::string& empty_message();
  std::unique_ptr<Rep> rep_;
};

}  // namespace libops

LIBOPS_API_END

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

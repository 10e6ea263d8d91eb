// Logging through spdlog, silent by default. The level comes from the
// environment variable LIBOPS_LOG_LEVEL: trace, debug, info, warn, error or
// off. spdlog stays out of public headers.
#pragma once

namespace libops {

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

bool log_enabled(LogLevel level);
void log_message(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void set_log_level(LogLevel level);

}  // namespace libops

#define log_error(...) ::libops::log_message(::libops::LogLevel::kError, __VA_ARGS__)
#define log_warn(...) ::libops::log_message(::libops::LogLevel::kWarn, __VA_ARGS__)
#define log_info(...) ::libops::log_message(::libops::LogLevel::kInfo, __VA_ARGS__)
// Debug and trace messages are formatted only when their level is on: a
// trace line per executed node must cost nothing otherwise.
#define log_trace(...)                                                                \
  do {                                                                                \
    if (::libops::log_enabled(::libops::LogLevel::kTrace))                            \
      ::libops::log_message(::libops::LogLevel::kTrace, __VA_ARGS__);                 \
  } while (0)
#define log_debug(...)                                                                \
  do {                                                                                \
    if (::libops::log_enabled(::libops::LogLevel::kDebug))                            \
      ::libops::log_message(::libops::LogLevel::kDebug, __VA_ARGS__);                 \
  } while (0)

#include "libops/core/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

#include "libops/core/status.h"

namespace libops {

namespace {

LogLevel level_from_env() {
  const char* v = std::getenv("LIBOPS_LOG_LEVEL");
  if (v == nullptr) return LogLevel::kOff;
  if (!std::strcmp(v, "trace")) return LogLevel::kTrace;
  if (!std::strcmp(v, "debug")) return LogLevel::kDebug;
  if (!std::strcmp(v, "info")) return LogLevel::kInfo;
  if (!std::strcmp(v, "warn")) return LogLevel::kWarn;
  if (!std::strcmp(v, "error")) return LogLevel::kError;
  return LogLevel::kOff;
}

std::atomic<int>& current_level() {
  static std::atomic<int> level{static_cast<int>(level_from_env())};
  return level;
}

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> l = [] {
    auto lg = spdlog::stderr_color_mt("libops");
    lg->set_level(spdlog::level::trace);  // filtering happens in log_enabled()
    lg->set_pattern("[%H:%M:%S.%e] [libops] [%l] %v");
    return lg;
  }();
  return *l;
}

spdlog::level::level_enum to_spdlog(LogLevel l) {
  switch (l) {
    case LogLevel::kTrace: return spdlog::level::trace;
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarn: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
    case LogLevel::kOff: break;
  }
  return spdlog::level::off;
}

}  // namespace

bool log_enabled(LogLevel level) {
  return level != LogLevel::kOff && static_cast<int>(level) >= current_level().load(std::memory_order_relaxed);
}

void set_log_level(LogLevel level) { current_level().store(static_cast<int>(level)); }

void log_message(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  va_list args;
  va_start(args, fmt);
  std::string msg = str_vformat(fmt, args);
  va_end(args);
  logger().log(to_spdlog(level), msg);
}

}  // namespace libops

#include "libops/loops/streaming_store.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

namespace libops {
namespace {

// The largest cache's size from sysfs ("32768K"), or 0 when unknown.
// (sysconf(_SC_LEVEL3_CACHE_SIZE) can report a whole host's cache in a VM.)
int64_t last_level_cache_bytes() {
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string path = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size";
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) break;
    long long value = 0;
    char unit = 0;
    const int got = std::fscanf(f, "%lld%c", &value, &unit);
    std::fclose(f);
    if (got < 1 || value <= 0) continue;
    int64_t bytes = value;
    if (got == 2 && (unit == 'K' || unit == 'k')) bytes <<= 10;
    if (got == 2 && (unit == 'M' || unit == 'm')) bytes <<= 20;
    best = std::max(best, bytes);
  }
  return best;
}

int64_t default_threshold() {
  static const int64_t threshold = [] {
    const int64_t llc = last_level_cache_bytes();
    return llc > 0 ? llc : int64_t{32} << 20;
  }();
  return threshold;
}

std::atomic<int64_t> g_override{0};

}  // namespace

int64_t streaming_store_threshold() {
  if (!LIBOPS_HAVE_STREAMING_STORES) return INT64_MAX;
  const int64_t chosen = g_override.load(std::memory_order_relaxed);
  return chosen > 0 ? chosen : default_threshold();
}

void set_streaming_store_threshold(int64_t bytes) {
  g_override.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

}  // namespace libops

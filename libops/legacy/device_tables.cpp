#include "libops/legacy/device_tables.h"

#include <atomic>

namespace libops::legacy {

namespace {
constexpr int kNumTables = static_cast<int>(Table::kRandom) + 1;
// Written once per (device, table) while the library loads, read on every call.
std::atomic<TableRunFn> g_tables[kNumDeviceTypes][kNumTables];
std::atomic<RandomRunFn> g_random[kNumDeviceTypes];
}  // namespace

void register_device_table(DeviceType device, Table table, TableRunFn fn) {
  g_tables[static_cast<int>(device)][static_cast<int>(table)].store(fn, std::memory_order_release);
}

void register_device_random(DeviceType device, RandomRunFn fn) {
  g_random[static_cast<int>(device)].store(fn, std::memory_order_release);
}

TableRunFn device_table(DeviceType device, Table table) {
  return g_tables[static_cast<int>(device)][static_cast<int>(table)].load(std::memory_order_acquire);
}

RandomRunFn device_random(DeviceType device) {
  return g_random[static_cast<int>(device)].load(std::memory_order_acquire);
}

}  // namespace libops::legacy

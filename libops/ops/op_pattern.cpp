#include "libops/ops/op_pattern.h"

#include <mutex>
#include <string>
#include <unordered_map>

namespace libops {
namespace {

struct Patterns {
  std::mutex mutex;
  std::unordered_map<std::string, OpPattern> by_op;
};

Patterns& patterns() {
  static Patterns p;  // built on first use: declarations run in static initialisers
  return p;
}

}  // namespace

const char* op_pattern_name(OpPattern pattern) {
  switch (pattern) {
    case OpPattern::kOpaque: return "opaque";
    case OpPattern::kElementwise: return "element-wise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kReduction: return "reduction";
  }
  return "opaque";
}

OpPattern op_pattern(const char* op_name) {
  Patterns& p = patterns();
  std::lock_guard<std::mutex> lock(p.mutex);
  const auto it = p.by_op.find(op_name);
  return it == p.by_op.end() ? OpPattern::kOpaque : it->second;
}

bool declare_op_pattern(const char* op_name, OpPattern pattern) {
  Patterns& p = patterns();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.by_op[op_name] = pattern;
  return true;
}

}  // namespace libops

#include "libops/ops/type_set.h"

namespace libops {

std::string TypeSet::str() const {
  if (contains(DataType::kBool) && (bits_ & types::kNumeric.bits()) == types::kNumeric.bits()) return "any";
  std::string s;
  for (int i = 1; i < kNumDataTypes; ++i) {
    if (!contains(static_cast<DataType>(i))) continue;
    if (!s.empty()) s += ", ";
    s += dtype_name(static_cast<DataType>(i));
  }
  return s.empty() ? "none" : s;
}

}  // namespace libops

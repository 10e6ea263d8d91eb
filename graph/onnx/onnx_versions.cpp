// The ONNX operator version table and its lookup (Note [Operator versions]).
#include "graph/onnx/onnx_versions.h"

#include "graph/onnx/onnx_convert.h"

#include <algorithm>
#include <cstdlib>

namespace libops::graph::onnx {

namespace {

struct OperatorVersions {
  const char* op_type;
  int since[12];  // ascending, 0-terminated; -v: removed at opset v
};

#include "graph/onnx/onnx_versions.inc"

static_assert(kMaxVersionsPerOperator < 12, "onnx_versions.inc: widen OperatorVersions::since");
static_assert(kNewestOpset == kMaxOpset,
              "onnx_versions.inc knows another opset than kMaxOpset: map what the new opset changed (the generator "
              "lists it), then set kMaxOpset to it");

const OperatorVersions* find(std::string_view op_type) {
  for (const OperatorVersions& o : kOperatorVersions)
    if (op_type == o.op_type) return &o;
  return nullptr;
}

}  // namespace

int newest_opset() { return kNewestOpset; }

OperatorVersion operator_version(std::string_view op_type, int64_t opset) {
  OperatorVersion v;
  const OperatorVersions* o = find(op_type);
  if (o == nullptr) return v;
  v.first = std::abs(o->since[0]);
  for (int k = 0; k < 12 && o->since[k] != 0; ++k) {
    const int since = o->since[k];
    if (since < 0) v.removed = -since;
    if (std::abs(since) > opset) break;
    v.version = since > 0 ? since : 0;
  }
  if (v.version != 0) v.removed = 0;  // re-added later (none so far, but the table allows it)
  return v;
}

std::vector<std::pair<std::string, std::vector<int>>> default_domain_operators() {
  std::vector<std::pair<std::string, std::vector<int>>> ops;
  for (const OperatorVersions& o : kOperatorVersions) {
    std::vector<int> since;
    for (int k = 0; k < 12 && o.since[k] != 0; ++k) since.push_back(o.since[k]);
    ops.emplace_back(o.op_type, std::move(since));
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace libops::graph::onnx

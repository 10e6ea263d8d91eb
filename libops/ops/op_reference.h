// The op reference, generated from the registry: every op's signature
// (op_signature.h), dtypes and devices, plus the legacy tables. One source
// for `ops-run --list-ops`, docs/ops.md and the Python builder's
// tools/libops_graph/op_signatures.json (tests_cpu checks that the
// committed files match the registry).
#pragma once

#include <string>

namespace libops {

enum class ReferenceFormat { kText, kMarkdown, kJson };

// The whole reference in `format`.
std::string op_reference(ReferenceFormat format);

}  // namespace libops

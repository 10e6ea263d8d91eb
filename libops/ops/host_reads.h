// What an op reads back to the host when it runs on a device. The README
// promises that nothing is copied behind the caller's back, so each such
// read is said in the op's summary, which docs/ops.md, ops-run --list-ops
// and the Python docstrings show. Call after args.describe().
#pragma once

#include <string>

#include "libops/ops/op_signature.h"

namespace libops {

inline void reads_on_host(OpSignature& args, const char* what) {
  args.summary += std::string(" On a device it reads back to the host: ") + what + ".";
}

}  // namespace libops

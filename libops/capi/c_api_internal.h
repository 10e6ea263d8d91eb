// Internal to the C API and its sibling shells (the graph C API): the
// handle types and the status reporting helpers.
#pragma once

#include "libops/array/ndarray.h"
#include "libops/c_api.h"
#include "libops/core/status.h"

struct ops_array {
  libops::NDArray array;
};

namespace libops::capi {

// Records `s` as this thread's last error (or clears it) and returns its code.
// Neither throws: where the message cannot be stored, a fixed text stands
// for it.
ops_status_t report(const Status& s) noexcept;
ops_status_t report_error(StatusCode code, const char* fmt, ...) noexcept __attribute__((format(printf, 2, 3)));
// Call inside a catch block: maps the active exception to a status.
ops_status_t report_exception() noexcept;
const char* last_error_cstr();
Status dims_from(const char* what, int rank, const int64_t* values, Dims& out);

}  // namespace libops::capi

/* ops_load_op_library from a C program (its own process, so the op it
 * registers is seen by no other test): the example op library
 * (examples/op_library, built in this tree by libops_add_op_library) loads,
 * its op runs by name with real values and its declared args, an ONNX model
 * of a custom domain runs it, and the failures say why: no file, a library
 * with no ops, a null path. Loading it again is not an error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_check.h"
#include "libops/c_api.h"
#include "libops/c_graph.h"


int main(void) {
  ops_op_t* op = NULL;
  CHECK(ops_op_find("example_scale_shift", &op) == OPS_ERR_UNKNOWN_OP);

  CHECK(ops_load_op_library(NULL) == OPS_ERR_NULL_POINTER);
  CHECK(ops_load_op_library("/nonexistent/libnothing.so") == OPS_ERR_IO);
  CHECK(strstr(ops_last_error(), "cannot load '/nonexistent/libnothing.so'") != NULL);
  CHECK(ops_load_op_library("libm.so.6") == OPS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(ops_last_error(), "'libm.so.6' registered no op") != NULL);

  CHECK(ops_load_op_library(LIBOPS_EXAMPLE_OP_LIBRARY) == OPS_OK);
  CHECK(ops_op_find("example_scale_shift", &op) == OPS_OK && op != NULL);

  /* z = x * 3 - 1, with the op's t args by position. */
  const int64_t shape[1] = {4};
  const float xs[4] = {0.0f, 1.0f, -2.0f, 0.5f};
  ops_array_t *x = NULL, *z = NULL;
  CHECK(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape, xs, sizeof xs, &x) == OPS_OK);
  CHECK(ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &z) == OPS_OK);
  const double t[2] = {3.0, -1.0};
  ops_args_t args;
  memset(&args, 0, sizeof args);
  args.t_args = t;
  args.n_t_args = 2;
  ops_array_t* in[1] = {x};
  ops_array_t* out[1] = {z};
  CHECK(ops_exec("example_scale_shift", in, 1, out, 1, &args) == OPS_OK);
  float got[4];
  CHECK(ops_array_copy_to(z, got, sizeof got) == OPS_OK);
  const float want[4] = {-1.0f, 2.0f, -7.0f, 0.5f};
  for (int i = 0; i < 4; ++i) CHECK(fabsf(got[i] - want[i]) < 1e-6f);
  /* Its declared dtypes still hold: int32 is refused, naming the op. */
  ops_array_t* xi = NULL;
  CHECK(ops_array_create(OPS_DTYPE_INT32, 1, shape, 'c', &xi) == OPS_OK);
  ops_array_t* in_i[1] = {xi};
  CHECK(ops_exec("example_scale_shift", in_i, 1, out, 1, &args) == OPS_ERR_DTYPE);
  CHECK(strstr(ops_last_error(), "example_scale_shift") != NULL);

  /* An ONNX node of domain com.example: relu(x * 2 + 0.5). */
  ops_graph_t* g = NULL;
  CHECK(ops_graph_load_file(LIBOPS_SOURCE_DIR "/examples/op_library/scale_shift.onnx", &g) == OPS_OK);
  ops_graph_session_t* s = NULL;
  CHECK(g != NULL && ops_graph_session_create(g, &s) == OPS_OK);
  const int64_t shape2[2] = {2, 3};
  const float x2[6] = {-1.0f, 0.0f, 1.0f, 2.0f, -3.0f, 0.25f};
  ops_array_t* xg = NULL;
  CHECK(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape2, x2, sizeof x2, &xg) == OPS_OK);
  const char* names[1] = {"x"};
  const ops_array_t* feeds[1] = {xg};
  CHECK(s != NULL && ops_graph_run(s, names, feeds, 1) == OPS_OK);
  ops_array_t* y = NULL;
  CHECK(s != NULL && ops_graph_session_output(s, "z", &y) == OPS_OK);
  float gy[6];
  CHECK(y != NULL && ops_array_copy_to(y, gy, sizeof gy) == OPS_OK);
  const float wy[6] = {0.0f, 0.5f, 2.5f, 4.5f, 0.0f, 1.0f};
  for (int i = 0; i < 6; ++i) CHECK(fabsf(gy[i] - wy[i]) < 1e-6f);

  /* The same library again: already loaded, nothing to do. */
  CHECK(ops_load_op_library(LIBOPS_EXAMPLE_OP_LIBRARY) == OPS_OK);

  ops_array_free(y);
  ops_array_free(xg);
  ops_graph_session_free(s);
  ops_graph_free(g);
  ops_array_free(xi);
  ops_array_free(x);
  ops_array_free(z);
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

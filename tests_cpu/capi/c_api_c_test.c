/* A C11 program that uses only the public C header: proves the API is
 * usable from C and checks a few real values and errors through it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_check.h"
#include "libops/c_api.h"


static void test_add_broadcast(void) {
  const int64_t sx[2] = {2, 3}, sy[1] = {3};
  const float xs[6] = {1, 2, 3, 4, 5, 6}, ys[3] = {0.5f, 1.5f, -2.0f};
  ops_array_t *x = NULL, *y = NULL, *z = NULL;
  CHECK(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, sx, xs, sizeof xs, &x) == OPS_OK);
  CHECK(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, sy, ys, sizeof ys, &y) == OPS_OK);
  CHECK(ops_array_create(OPS_DTYPE_FLOAT32, 2, sx, 'c', &z) == OPS_OK);
  ops_array_t* in[2] = {x, y};
  ops_array_t* out[1] = {z};
  CHECK(ops_exec("add", in, 2, out, 1, NULL) == OPS_OK);
  float got[6];
  CHECK(ops_array_copy_to(z, got, sizeof got) == OPS_OK);
  const float want[6] = {1.5f, 3.5f, 1.0f, 4.5f, 6.5f, 4.0f};
  for (int i = 0; i < 6; ++i) CHECK(fabsf(got[i] - want[i]) < 1e-6f);
  ops_array_free(x);
  ops_array_free(y);
  ops_array_free(z);
}

static void test_legacy_and_errors(void) {
  const int64_t s[1] = {4};
  const double xs[4] = {0.0, 1.0, -2.0, 3.5};
  ops_array_t *x = NULL, *z = NULL;
  CHECK(ops_array_create_from(OPS_DTYPE_FLOAT64, 1, s, xs, sizeof xs, &x) == OPS_OK);
  CHECK(ops_array_create(OPS_DTYPE_FLOAT64, 1, s, 'c', &z) == OPS_OK);
  int exp_num = -1;
  CHECK(ops_legacy_find(OPS_TRANSFORM_STRICT, "exp", &exp_num) == OPS_OK);
  CHECK(ops_exec_legacy(OPS_TRANSFORM_STRICT, exp_num, x, NULL, z, NULL, 0, NULL, 0) == OPS_OK);
  double got[4];
  CHECK(ops_array_copy_to(z, got, sizeof got) == OPS_OK);
  for (int i = 0; i < 4; ++i) CHECK(fabs(got[i] - exp(xs[i])) < 1e-12 * exp(xs[i]));

  /* Unknown op and wrong counts give a status and a message, nothing else. */
  CHECK(ops_exec("definitely_not_an_op", NULL, 0, NULL, 0, NULL) == OPS_ERR_UNKNOWN_OP);
  CHECK(strstr(ops_last_error(), "definitely_not_an_op") != NULL);
  ops_array_t* one[1] = {x};
  CHECK(ops_exec("add", one, 1, NULL, 0, NULL) == OPS_ERR_INVALID_ARGUMENT);
  CHECK(ops_exec_legacy(OPS_TRANSFORM_STRICT, 123456, x, NULL, z, NULL, 0, NULL, 0) == OPS_ERR_UNKNOWN_OP);
  CHECK(ops_array_copy_to(z, got, sizeof got) == OPS_OK);
  CHECK(fabs(got[1] - exp(1.0)) < 1e-12); /* untouched by the failed calls */
  ops_array_free(x);
  ops_array_free(z);
}

static void test_registry(void) {
  int n = ops_registry_size();
  CHECK(n >= 4);
  ops_op_info_t info;
  CHECK(ops_registry_op_info(0, &info) == OPS_OK);
  CHECK(info.name != NULL && info.name[0] != '\0');
  ops_op_t* op = NULL;
  CHECK(ops_op_find("add", &op) == OPS_OK && op != NULL);
  CHECK(ops_op_info(op, &info) == OPS_OK);
  CHECK(strcmp(info.name, "add") == 0);
  CHECK(ops_op_find_hash(info.hash, &op) == OPS_OK);
}

int main(void) {
  test_add_broadcast();
  test_legacy_and_errors();
  test_registry();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

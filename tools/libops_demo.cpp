// libops-demo: a few calls through the C API, printed. What
// `./buildnativeoperations.sh --run` shows when the example graphs are absent.
#include <stdio.h>

#include "libops/c_api.h"

static int check(ops_status_t s, const char* what) {
  if (s != OPS_OK) {
    fprintf(stderr, "%s failed: %s: %s\n", what, ops_status_name(s), ops_last_error());
    return 1;
  }
  return 0;
}

int main(void) {
  printf("libops %s, %d registered ops, %d threads\n", ops_version(), ops_registry_size(), ops_get_num_threads());
  const int64_t shape_x[2] = {2, 3}, shape_y[1] = {3};
  const float x_data[6] = {1, 2, 3, 4, 5, 6}, y_data[3] = {10, 20, 30};
  ops_array_t *x = NULL, *y = NULL, **out = NULL;
  int n_out = 0;
  if (check(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape_x, x_data, sizeof x_data, &x), "create x") ||
      check(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape_y, y_data, sizeof y_data, &y), "create y"))
    return 1;
  ops_array_t* inputs[2] = {x, y};
  if (check(ops_exec_alloc("add", inputs, 2, NULL, &out, &n_out), "add")) return 1;
  float z[6];
  if (check(ops_array_copy_to(out[0], z, sizeof z), "copy")) return 1;
  printf("add([[1,2,3],[4,5,6]], [10,20,30]) = [[%g,%g,%g],[%g,%g,%g]]\n", z[0], z[1], z[2], z[3], z[4], z[5]);
  ops_array_list_free(out, n_out);

  /* A bad call: the error names the op and the shapes. */
  const int64_t shape_bad[1] = {4};
  const float bad_data[4] = {1, 2, 3, 4};
  ops_array_t* bad = NULL;
  if (check(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape_bad, bad_data, sizeof bad_data, &bad), "create bad"))
    return 1;
  ops_array_t* bad_inputs[2] = {x, bad};
  ops_status_t s = ops_exec_alloc("add", bad_inputs, 2, NULL, &out, &n_out);
  printf("add([2,3], [4]) -> %s: %s\n", ops_status_name(s), ops_last_error());
  ops_array_free(bad);
  ops_array_free(x);
  ops_array_free(y);
  return s == OPS_ERR_SHAPE ? 0 : 1;
}

/* CHECK for the plain C test programs (the .c files of tests_cpu/capi): counts what
 * passed and failed, and on a failure prints the condition with the last
 * libops error; each program's main returns failed == 0. */
#ifndef LIBOPS_TESTS_C_CHECK_H
#define LIBOPS_TESTS_C_CHECK_H

#include <stdio.h>

#include "libops/c_api.h"

static int passed = 0, failed = 0;

#define CHECK(cond)                                                                                  \
  do {                                                                                               \
    if (cond) {                                                                                      \
      ++passed;                                                                                      \
    } else {                                                                                         \
      ++failed;                                                                                      \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, ops_last_error()); \
    }                                                                                                \
  } while (0)

#endif /* LIBOPS_TESTS_C_CHECK_H */

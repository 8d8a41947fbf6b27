/* The check macro every test program uses: a failed check is printed with its place and the
 * test goes on, so one run reports every failure; main returns failures != 0. */
#ifndef CCPDEM_TEST_CHECK_H
#define CCPDEM_TEST_CHECK_H
#include <stdio.h>

static int failures = 0;

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      failures++; \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)
#endif

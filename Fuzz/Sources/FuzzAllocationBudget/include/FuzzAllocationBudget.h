#ifndef FUZZ_ALLOCATION_BUDGET_H
#define FUZZ_ALLOCATION_BUDGET_H
#include <stddef.h>

/// Starts counting heap bytes through the sanitizer allocator's hooks. Returns 0 when the
/// process has no sanitizer allocator (a coverage build), in which case nothing is counted.
int fuzz_budget_install(void);
/// Starts a new input: the peak is reset to what is allocated now, which is returned.
size_t fuzz_budget_begin(void);
/// The most bytes allocated at once since fuzz_budget_begin.
size_t fuzz_budget_peak(void);
/// CPU seconds the calling thread spent since fuzz_budget_begin (not wall time, so that a
/// loaded machine does not make an input look slow).
double fuzz_budget_cpu_seconds(void);

#endif

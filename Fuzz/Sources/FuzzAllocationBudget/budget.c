#include "FuzzAllocationBudget.h"
#include <stdatomic.h>
#include <time.h>

// The sanitizer allocator's interface, declared weak: present in address-sanitizer builds,
// absent in the coverage build.
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *)) __attribute__((weak));
size_t __sanitizer_get_allocated_size(const volatile void *pointer) __attribute__((weak));

static _Atomic size_t live_bytes;
static struct timespec cpu_start;
static _Atomic size_t peak_bytes;

static void on_allocate(const volatile void *pointer, size_t size) {
  (void)pointer;
  size_t live = atomic_fetch_add_explicit(&live_bytes, size, memory_order_relaxed) + size;
  if (live > atomic_load_explicit(&peak_bytes, memory_order_relaxed)) {
    atomic_store_explicit(&peak_bytes, live, memory_order_relaxed);
  }
}

static void on_free(const volatile void *pointer) {
  if (pointer) atomic_fetch_sub_explicit(&live_bytes, __sanitizer_get_allocated_size(pointer), memory_order_relaxed);
}

int fuzz_budget_install(void) {
  if (!__sanitizer_install_malloc_and_free_hooks || !__sanitizer_get_allocated_size) return 0;
  return __sanitizer_install_malloc_and_free_hooks(on_allocate, on_free) != 0;
}

static double thread_cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

size_t fuzz_budget_begin(void) {
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
  size_t live = atomic_load_explicit(&live_bytes, memory_order_relaxed);
  atomic_store_explicit(&peak_bytes, live, memory_order_relaxed);
  return live;
}

size_t fuzz_budget_peak(void) { return atomic_load_explicit(&peak_bytes, memory_order_relaxed); }

double fuzz_budget_cpu_seconds(void) {
  return thread_cpu_seconds() - ((double)cpu_start.tv_sec + (double)cpu_start.tv_nsec / 1e9);
}

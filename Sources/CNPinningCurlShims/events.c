#ifdef __linux__
// epoll for the session's driver (its network thread, or a request on an idle session): its event
// structure is packed on x86-64, which is simplest to fill in C. Level-triggered, as libcurl's
// socket interface expects.
#include "CNPinningCurlShims.h"
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int cnp_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
int cnp_eventfd_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
void cnp_eventfd_signal(int eventfd) {
  uint64_t one = 1;
  (void)!write(eventfd, &one, sizeof one);
}
void cnp_eventfd_reset(int eventfd) {
  uint64_t value;
  (void)!read(eventfd, &value, sizeof value);
}
void cnp_eventfd_await(int eventfd) {
  struct pollfd watched = {.fd = eventfd, .events = POLLIN};
  while (poll(&watched, 1, -1) < 0 && errno == EINTR) {
  }
  cnp_eventfd_reset(eventfd);
}

int cnp_epoll_watch(int epoll, int fd, int what) {
  if (what == CURL_POLL_REMOVE) {
    // A socket libcurl has already closed has left the set by itself.
    if (epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL) == 0 || errno == ENOENT || errno == EBADF) return 0;
    return errno;
  }
  struct epoll_event event = {0};
  event.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
  event.data.fd = fd;
  // Modify when it is watched, add when not: a number closed and reused is no longer in the set.
  if (epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
  if (errno == ENOENT && epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0) return 0;
  return errno;
}

// epoll_pwait2 through syscall(2): glibc has a wrapper only from 2.35 on.
static int wait_precisely(int epoll, struct epoll_event *events, int capacity, const struct timespec *timeout) {
#ifdef SYS_epoll_pwait2
  return (int)syscall(SYS_epoll_pwait2, epoll, events, capacity, timeout, NULL, 0);
#else
  (void)epoll, (void)events, (void)capacity, (void)timeout;
  errno = ENOSYS;
  return -1;
#endif
}

int cnp_epoll_wait(int epoll, long long timeout_ns, cnp_ready_socket *ready, int capacity) {
  struct epoll_event events[64];
  if (capacity > 64) capacity = 64;
  int count;
  if (timeout_ns < 0) {
    count = epoll_wait(epoll, events, capacity, -1);
  } else {
    // To the nanosecond where the kernel has epoll_pwait2 (Linux 5.11); else whole milliseconds,
    // rounded up: waking before the deadline would only come back here.
    struct timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
    count = wait_precisely(epoll, events, capacity, &timeout);
    if (count < 0 && errno == ENOSYS) {
      long long ms = (timeout_ns + 999999) / 1000000;
      count = epoll_wait(epoll, events, capacity, ms > INT_MAX ? INT_MAX : (int)ms);
    }
  }
  if (count < 0) return errno == EINTR ? 0 : -errno;
  for (int i = 0; i < count; i++) {
    uint32_t what = events[i].events;
    ready[i].fd = events[i].data.fd;
    // A hang-up or an error is reported as readable (and writable): libcurl's own read or write
    // then finds the end of the stream or the socket's error, as it would with poll.
    ready[i].events = (what & (EPOLLIN | EPOLLHUP | EPOLLERR) ? CURL_CSELECT_IN : 0) |
                      (what & (EPOLLOUT | EPOLLERR) ? CURL_CSELECT_OUT : 0);
  }
  return count;
}
#endif

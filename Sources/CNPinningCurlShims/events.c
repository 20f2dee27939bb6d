#ifdef __linux__
// epoll for the session's network thread: its event structure is packed on x86-64, which is
// simplest to fill in C. Level-triggered, as libcurl's socket interface expects.
#include "CNPinningCurlShims.h"
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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

int cnp_epoll_wait(int epoll, int timeout_ms, cnp_ready_socket *ready, int capacity) {
  struct epoll_event events[64];
  if (capacity > 64) capacity = 64;
  int count = epoll_wait(epoll, events, capacity, timeout_ms);
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

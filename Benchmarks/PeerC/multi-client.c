// The yardstick for CNPinnedSession's per-request cost: libcurl's multi interface driven from C
// with the options the session sets (TLS verification against one CA file, a pinned public key,
// HTTP/2 when the server offers it, at most 6 connections to a host, TLS sessions and DNS answers
// shared, PIPEWAIT, bodies and header lines collected in memory, easy handles reset and reused),
// in one long-lived process.
// Its loop is the one a careful C program would write: curl_multi_socket_action over epoll, with
// libcurl's timer as the wait's timeout.
//
// Usage: multi-client [--http1.1] URL CAFILE PINNEDKEY COUNT CONCURRENCY [BATCH]
//   Sends WARMUP (200) requests, then COUNT requests with CONCURRENCY in flight; with BATCH,
//   COUNT/BATCH batches of BATCH requests started together, each batch waited for. With
//   --http1.1, HTTP/2 is not offered: the work of a request whose body the session streams
//   (exchange(_:)), which it sends over HTTP/1.1.
// Prints one line: "requests N seconds S per_request_us U p50_us A p99_us B max_us C" where the
// percentiles are of single requests (or, with BATCH, of batches: "batch_p50_us" and so on).
// Exits 1 on the first failed request.
#define _GNU_SOURCE
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>

enum { WARMUP = 200, MAX_IN_FLIGHT = 1024 };

static const char *url, *ca_file, *pinned_key;
static long http_version = CURL_HTTP_VERSION_2TLS;
static CURLM *multi;
static CURLSH *share;
static int epoll_fd;
static long timer_ms = -1;  // libcurl's timer, as its callback last set it
static double timer_set_at;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// With CNPINNING_BENCH_COUNT_FROM_MARK set (scripts/instructions-per-request.py), says on standard
// error that the warm-up has ended and waits for a line on standard input, while the script zeroes
// callgrind's counts: the warm-up's connections and TLS handshakes are not counted. The Swift
// client does the same.
static void wait_at_the_end_of_the_warm_up(void) {
  if (!getenv("CNPINNING_BENCH_COUNT_FROM_MARK")) return;
  fputs("warm-up ended\n", stderr);
  fflush(stderr);
  char line[16];
  if (!fgets(line, sizeof line, stdin)) return;
}

// Context switches of every thread of the process so far, voluntary and involuntary.
static long switches(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

struct buffer {
  char *bytes;
  size_t length, capacity;
};

static void append(struct buffer *b, const char *bytes, size_t length) {
  if (b->length + length > b->capacity) {
    b->capacity = (b->length + length) * 2;
    b->bytes = realloc(b->bytes, b->capacity);
  }
  memcpy(b->bytes + b->length, bytes, length);
  b->length += length;
}

struct request {
  CURL *easy;
  struct buffer body, head;
  double started;
};

static size_t on_body(char *data, size_t size, size_t count, void *context) {
  append(&((struct request *)context)->body, data, size * count);
  return size * count;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
  append(&((struct request *)context)->head, data, size * count);
  return size * count;
}

static int on_socket(CURL *easy, curl_socket_t s, int what, void *u, void *sp) {
  (void)easy, (void)u, (void)sp;
  struct epoll_event event = {0};
  event.data.fd = s;
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, s, NULL);
    return 0;
  }
  event.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
  if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, s, &event) != 0) epoll_ctl(epoll_fd, EPOLL_CTL_ADD, s, &event);
  return 0;
}

static int on_timer(CURLM *m, long ms, void *u) {
  (void)m, (void)u;
  timer_ms = ms;
  timer_set_at = now();
  return 0;
}

static void start(struct request *r) {
  CURL *e = r->easy;
  curl_easy_reset(e);
  r->body.length = r->head.length = 0;
  curl_easy_setopt(e, CURLOPT_SHARE, share);
  curl_easy_setopt(e, CURLOPT_URL, url);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_PROXY, "");
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, http_version);
  curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(e, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
  curl_easy_setopt(e, CURLOPT_CAINFO, ca_file);
  curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
  curl_easy_setopt(e, CURLOPT_PINNEDPUBLICKEY, pinned_key);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 60000L);
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(e, CURLOPT_PRIVATE, r);
  r->started = now();
  curl_multi_add_handle(multi, e);
}

// Runs until no request is in flight; each finished request's latency goes to `latencies` and,
// while `remaining` requests are left, a new one takes its place.
static int drive(int in_flight, int *remaining, double *latencies, int *done) {
  struct epoll_event events[64];
  while (in_flight > 0) {
    int wait = -1;
    if (timer_ms >= 0) {
      double left = timer_set_at + timer_ms / 1000.0 - now();
      wait = left <= 0 ? 0 : (int)(left * 1000) + 1;
    }
    int running;
    int count = wait == 0 ? 0 : epoll_wait(epoll_fd, events, 64, wait);
    for (int i = 0; i < count; i++) {
      int bits = (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR) ? CURL_CSELECT_IN : 0) |
                 (events[i].events & (EPOLLOUT | EPOLLERR) ? CURL_CSELECT_OUT : 0);
      curl_multi_socket_action(multi, events[i].data.fd, bits, &running);
    }
    if (timer_ms >= 0 && timer_set_at + timer_ms / 1000.0 <= now()) {
      timer_ms = -1;
      curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    CURLMsg *message;
    int left;
    while ((message = curl_multi_info_read(multi, &left))) {
      if (message->msg != CURLMSG_DONE) continue;
      struct request *r = NULL;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&r);
      long status = 0;
      curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
      if (message->data.result != CURLE_OK || status != 200 || r->body.length == 0) {
        fprintf(stderr, "request failed: %s (status %ld)\n", curl_easy_strerror(message->data.result), status);
        return 1;
      }
      curl_multi_remove_handle(multi, r->easy);
      if (latencies) latencies[*done] = now() - r->started;
      (*done)++;
      in_flight--;
      if (*remaining > 0) {
        (*remaining)--;
        start(r);
        in_flight++;
      }
    }
  }
  return 0;
}

static int run(struct request *requests, int count, int concurrency, double *latencies) {
  int remaining = count, done = 0, in_flight = 0;
  for (int i = 0; i < concurrency && remaining > 0; i++, remaining--, in_flight++) {
    start(&requests[i]);
  }
  return drive(in_flight, &remaining, latencies, &done);
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--http1.1") == 0) {
    http_version = CURL_HTTP_VERSION_1_1;
    argv++, argc--;
  }
  if (argc < 6) {
    fprintf(stderr, "usage: multi-client [--http1.1] URL CAFILE PINNEDKEY COUNT CONCURRENCY [BATCH]\n");
    return 2;
  }
  url = argv[1], ca_file = argv[2], pinned_key = argv[3];
  int count = atoi(argv[4]), concurrency = atoi(argv[5]), batch = argc > 6 ? atoi(argv[6]) : 0;
  if (count <= 0 || concurrency <= 0 || concurrency > MAX_IN_FLIGHT || batch < 0 || batch > MAX_IN_FLIGHT) return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 64L);
  // The session's per-host cap (httpMaximumConnectionsPerHost, 6 by default, as URLSession's):
  // over HTTP/1.1, 8 requests at a time then share 6 connections, and libcurl parks the others
  // in its pending set, as it does for the session.
  curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 6L);
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
  share = curl_share_init();
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  int slots = batch > concurrency ? batch : concurrency;
  struct request *requests = calloc(slots, sizeof *requests);
  for (int i = 0; i < slots; i++) requests[i].easy = curl_easy_init();

  if (run(requests, WARMUP, batch ? batch : concurrency, NULL)) return 1;
  wait_at_the_end_of_the_warm_up();
  int samples = batch ? count / batch : count;
  double *latencies = calloc(samples > 0 ? samples : 1, sizeof *latencies);
  double started = now();
  long switched = switches();
  if (batch) {
    double *scratch = calloc(batch, sizeof *scratch);
    for (int i = 0; i < samples; i++) {
      double began = now();
      if (run(requests, batch, batch, scratch)) return 1;
      latencies[i] = now() - began;
    }
  } else if (run(requests, count, concurrency, latencies)) {
    return 1;
  }
  double seconds = now() - started;
  int done = batch ? samples * batch : count;
  double switchesPerRequest = (double)(switches() - switched) / done;
  qsort(latencies, samples, sizeof *latencies, compare);
  const char *prefix = batch ? "batch_" : "";
  printf("requests %d seconds %.6f per_request_us %.1f %sp50_us %.1f %sp99_us %.1f %smax_us %.1f switches_per_request %.2f\n",
         done, seconds, seconds / done * 1e6, prefix,
         latencies[samples / 2] * 1e6, prefix, latencies[(samples * 99) / 100 < samples ? (samples * 99) / 100 : samples - 1] * 1e6,
         prefix, latencies[samples - 1] * 1e6, switchesPerRequest);
  return 0;
}

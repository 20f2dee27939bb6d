// C one-liners for libcurl's variadic functions (curl_easy_setopt, curl_easy_getinfo, …), which
// Swift's importer cannot call. Used by the session only.
#ifndef CNPINNING_CURL_SHIMS_H
#define CNPINNING_CURL_SHIMS_H
// libcurl is linked only on Linux; elsewhere this module is empty.
#ifdef __linux__

#include <stddef.h>
#include <openssl/ssl.h>
#include <curl/curl.h>

typedef size_t (*cnp_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef CURLcode (*cnp_curl_ssl_ctx_callback)(CURL *handle, void *ssl_ctx, void *context);
typedef int (*cnp_curl_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port,
                                        int local_port);
typedef int (*cnp_curl_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                          curl_off_t upload_total, curl_off_t uploaded);
typedef int (*cnp_curl_seek_callback)(void *context, curl_off_t offset, int origin);
typedef int (*cnp_curl_socket_callback)(CURL *handle, curl_socket_t socket, int what, void *context,
                                        void *socket_context);
typedef int (*cnp_curl_timer_callback)(CURLM *multi, long timeout_ms, void *context);

CURLcode cnp_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cnp_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode cnp_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cnp_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cnp_curl_setopt_data_callback(CURL *handle, CURLoption option, cnp_curl_data_callback callback);
CURLcode cnp_curl_setopt_ssl_ctx_callback(CURL *handle, cnp_curl_ssl_ctx_callback callback);
CURLcode cnp_curl_setopt_prereq_callback(CURL *handle, cnp_curl_prereq_callback callback);
CURLcode cnp_curl_setopt_seek_callback(CURL *handle, cnp_curl_seek_callback callback);
/// Sets the progress callback (CURLOPT_XFERINFOFUNCTION) and its data, and turns progress on.
CURLcode cnp_curl_setopt_xferinfo_callback(CURL *handle, cnp_curl_xferinfo_callback callback, void *context);
CURLcode cnp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cnp_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLMcode cnp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
/// The loaded libcurl's version as curl_version_info gives it: 0xXXYYZZ for X.Y.Z.
unsigned int cnp_curl_version_number(void);
/// Whether the loaded libcurl was built with HTTP/2 (CURL_VERSION_HTTP2): 1 or 0.
int cnp_curl_has_http2(void);
/// Sets the multi handle's socket callback (NULL removes it) and the context it is given.
CURLMcode cnp_curl_multi_setopt_socket_callback(CURLM *multi, cnp_curl_socket_callback callback, void *context);
/// Sets the multi handle's timer callback (NULL removes it) and the context it is given.
CURLMcode cnp_curl_multi_setopt_timer_callback(CURLM *multi, cnp_curl_timer_callback callback, void *context);
CURLSHcode cnp_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);
/// The OpenSSL SSL* of the connection a transfer uses, or NULL.
SSL *cnp_curl_ssl_pointer(CURL *handle);
/// The sockets libcurl opened for a session's connections (libcurl's own check of an idle
/// connection only peeks for a FIN). Owned by the session's loop; freed after the multi handle,
/// whose connections close their sockets through it. Touched on the loop thread only.
typedef struct cnp_socket_registry cnp_socket_registry;
cnp_socket_registry *cnp_socket_registry_create(void);
void cnp_socket_registry_free(cnp_socket_registry *registry);
/// Opens and closes the handle's sockets through `registry` (CURLOPT_OPENSOCKETFUNCTION and
/// CURLOPT_CLOSESOCKETFUNCTION), which records them.
CURLcode cnp_curl_setopt_socket_registry(CURL *handle, cnp_socket_registry *registry);
/// Whether the registry's socket from local port `local_port` to remote port `remote_port` has
/// bytes waiting to be read now; 0 when not, or when no socket has those ports (Linux may give
/// one local port to connections to different destinations, so both ends are matched).
int cnp_socket_registry_has_input(const cnp_socket_registry *registry, int local_port, int remote_port);
/// CURLMsg's union member `result`.
CURLcode cnp_curl_message_result(const CURLMsg *message);

/// A socket epoll found ready, with libcurl's CURL_CSELECT_* bits for what it is ready for.
typedef struct {
  int fd;
  int events;
} cnp_ready_socket;
/// A new epoll set (close-on-exec), or -1.
int cnp_epoll_create(void);
/// A new non-blocking eventfd (close-on-exec), or -1.
int cnp_eventfd_create(void);
/// Makes `eventfd` readable (it stays so until reset).
void cnp_eventfd_signal(int eventfd);
/// Makes `eventfd` unreadable again.
void cnp_eventfd_reset(int eventfd);
/// Blocks until `eventfd` is signalled, then makes it unreadable again.
void cnp_eventfd_await(int eventfd);
/// Makes epoll watch `fd` for what libcurl's socket callback asked (CURL_POLL_IN, _OUT, _INOUT),
/// or stop watching it (CURL_POLL_REMOVE). Returns 0, or the errno of the failed epoll_ctl.
int cnp_epoll_watch(int epoll, int fd, int what);
/// Waits at most `timeout_ns` nanoseconds (-1: without limit) for watched sockets; fills `ready`
/// with at most `capacity` of them. Returns how many, or -errno.
int cnp_epoll_wait(int epoll, long long timeout_ns, cnp_ready_socket *ready, int capacity);

#endif  // __linux__
#endif  // CNPINNING_CURL_SHIMS_H

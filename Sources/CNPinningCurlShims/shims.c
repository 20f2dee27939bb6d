#ifdef __linux__
#include "CNPinningCurlShims.h"
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <stdlib.h>
#include <poll.h>

CURLcode cnp_curl_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}
CURLcode cnp_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}
CURLcode cnp_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}
CURLcode cnp_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}
CURLcode cnp_curl_setopt_data_callback(CURL *handle, CURLoption option, cnp_curl_data_callback callback) {
  return curl_easy_setopt(handle, option, callback);
}
CURLcode cnp_curl_setopt_ssl_ctx_callback(CURL *handle, cnp_curl_ssl_ctx_callback callback) {
  return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, callback);
}
CURLcode cnp_curl_setopt_prereq_callback(CURL *handle, cnp_curl_prereq_callback callback) {
  return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}
CURLcode cnp_curl_setopt_seek_callback(CURL *handle, cnp_curl_seek_callback callback) {
  return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}
CURLcode cnp_curl_setopt_xferinfo_callback(CURL *handle, cnp_curl_xferinfo_callback callback, void *context) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
  return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}
CURLcode cnp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}
CURLcode cnp_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
  return curl_easy_getinfo(handle, info, value);
}
CURLMcode cnp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
}
unsigned int cnp_curl_version_number(void) {
  return curl_version_info(CURLVERSION_NOW)->version_num;
}
int cnp_curl_has_http2(void) {
  return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_HTTP2) != 0;
}
CURLMcode cnp_curl_multi_setopt_socket_callback(CURLM *multi, cnp_curl_socket_callback callback, void *context) {
  CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
  return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context);
}
CURLMcode cnp_curl_multi_setopt_timer_callback(CURLM *multi, cnp_curl_timer_callback callback, void *context) {
  CURLMcode code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
  return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
}
CURLSHcode cnp_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
  return curl_share_setopt(share, option, value);
}
SSL *cnp_curl_ssl_pointer(CURL *handle) {
  struct curl_tlssessioninfo *info = NULL;
  if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return NULL;
  if (info->backend != CURLSSLBACKEND_OPENSSL) return NULL;
  return (SSL *)info->internals;
}
struct cnp_socket_registry {
  curl_socket_t *sockets;
  size_t count;
  size_t capacity;
};

cnp_socket_registry *cnp_socket_registry_create(void) { return calloc(1, sizeof(cnp_socket_registry)); }

void cnp_socket_registry_free(cnp_socket_registry *registry) {
  if (registry == NULL) return;
  free(registry->sockets);
  free(registry);
}

static curl_socket_t cnp_open_socket(void *context, curlsocktype purpose, struct curl_sockaddr *address) {
  (void)purpose;
  cnp_socket_registry *registry = context;
  curl_socket_t opened = socket(address->family, address->socktype, address->protocol);
  if (opened == CURL_SOCKET_BAD) return CURL_SOCKET_BAD;
  if (registry->count == registry->capacity) {
    size_t capacity = registry->capacity ? registry->capacity * 2 : 16;
    curl_socket_t *grown = realloc(registry->sockets, capacity * sizeof(curl_socket_t));
    if (grown == NULL) {
      close(opened);
      return CURL_SOCKET_BAD;
    }
    registry->sockets = grown;
    registry->capacity = capacity;
  }
  registry->sockets[registry->count++] = opened;
  return opened;
}

static int cnp_close_socket(void *context, curl_socket_t closing) {
  cnp_socket_registry *registry = context;
  for (size_t index = 0; index < registry->count; index++) {
    if (registry->sockets[index] == closing) {
      registry->sockets[index] = registry->sockets[--registry->count];
      break;
    }
  }
  return close(closing);
}

CURLcode cnp_curl_setopt_socket_registry(CURL *handle, cnp_socket_registry *registry) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, cnp_open_socket);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, registry);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, cnp_close_socket);
  return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, registry);
}

static int cnp_port_of(const struct sockaddr_storage *address) {
  if (address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
  if (address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
  return -1;
}

int cnp_socket_registry_has_input(const cnp_socket_registry *registry, int local_port, int remote_port) {
  for (size_t index = 0; index < registry->count; index++) {
    struct sockaddr_storage local, remote;
    socklen_t local_length = sizeof(local), remote_length = sizeof(remote);
    curl_socket_t candidate = registry->sockets[index];
    if (getsockname(candidate, (struct sockaddr *)&local, &local_length) != 0 || cnp_port_of(&local) != local_port) continue;
    if (getpeername(candidate, (struct sockaddr *)&remote, &remote_length) != 0 || cnp_port_of(&remote) != remote_port) {
      continue;
    }
    struct pollfd descriptor = {.fd = candidate, .events = POLLIN, .revents = 0};
    return poll(&descriptor, 1, 0) > 0;
  }
  return 0;
}

CURLcode cnp_curl_message_result(const CURLMsg *message) { return message->data.result; }

#endif

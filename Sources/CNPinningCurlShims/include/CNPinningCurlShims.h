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
typedef int (*cnp_curl_seek_callback)(void *context, curl_off_t offset, int origin);

CURLcode cnp_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cnp_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode cnp_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cnp_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cnp_curl_setopt_data_callback(CURL *handle, CURLoption option, cnp_curl_data_callback callback);
CURLcode cnp_curl_setopt_ssl_ctx_callback(CURL *handle, cnp_curl_ssl_ctx_callback callback);
CURLcode cnp_curl_setopt_prereq_callback(CURL *handle, cnp_curl_prereq_callback callback);
CURLcode cnp_curl_setopt_seek_callback(CURL *handle, cnp_curl_seek_callback callback);
CURLcode cnp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLMcode cnp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode cnp_curl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);
/// The OpenSSL SSL* of the connection a transfer uses, or NULL.
SSL *cnp_curl_ssl_pointer(CURL *handle);
/// CURLMsg's union member `result`.
CURLcode cnp_curl_message_result(const CURLMsg *message);

#endif  // __linux__
#endif  // CNPINNING_CURL_SHIMS_H

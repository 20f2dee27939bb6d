#ifdef __linux__
#include "CNPinningCurlShims.h"

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
CURLMcode cnp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
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
CURLcode cnp_curl_message_result(const CURLMsg *message) { return message->data.result; }

#endif

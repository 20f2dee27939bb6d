#ifndef CNPINNING_CCURL_SHIM_H
#define CNPINNING_CCURL_SHIM_H
// OpenSSL and libcurl back the Linux build only; on other platforms this module is empty, so
// that a build that pulls it in anyway (Xcode ignores platform conditions on dependencies)
// finds nothing to use.
#ifdef __linux__
#include <curl/curl.h>
#endif // __linux__
#endif

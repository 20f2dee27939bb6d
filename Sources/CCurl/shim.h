#ifndef CNPINNING_CCURL_SHIM_H
#define CNPINNING_CCURL_SHIM_H
#include <curl/curl.h>
#endif

#ifndef CNPINNING_COPENSSL_SHIM_H
#define CNPINNING_COPENSSL_SHIM_H
// OpenSSL and libcurl back the Linux build only; on other platforms this module is empty, so
// that a build that pulls it in anyway (Xcode ignores platform conditions on dependencies)
// finds nothing to use.
#ifdef __linux__
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#endif // __linux__
#endif

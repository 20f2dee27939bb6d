// C one-liners for OpenSSL macros and variadic functions that Swift's importer cannot see.
#ifndef CNPINNING_SHIMS_H
#define CNPINNING_SHIMS_H

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// Generates a key: "RSA" with `bits`, "EC" with `curve` (e.g. "P-256"), or "ED25519". NULL on failure.
EVP_PKEY *cnp_generate_key(const char *type, unsigned int bits, const char *curve);

STACK_OF(X509) *cnp_sk_X509_new_null(void);
int cnp_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate);
int cnp_sk_X509_num(const STACK_OF(X509) *stack);
X509 *cnp_sk_X509_value(const STACK_OF(X509) *stack, int index);
/// Frees the stack without freeing the certificates it points to.
void cnp_sk_X509_free(STACK_OF(X509) *stack);
/// Frees the stack and every certificate in it.
void cnp_sk_X509_pop_free(STACK_OF(X509) *stack);

long cnp_BIO_get_mem_data(BIO *bio, char **data);
void cnp_OPENSSL_free(void *pointer);
void cnp_X509V3_set_ctx_nodb(X509V3_CTX *context);

#endif

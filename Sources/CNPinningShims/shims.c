#include "CNPinningShims.h"
#include <string.h>

EVP_PKEY *cnp_generate_key(const char *type, unsigned int bits, const char *curve) {
  if (strcmp(type, "RSA") == 0) return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
  if (strcmp(type, "EC") == 0) return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve);
  return EVP_PKEY_Q_keygen(NULL, NULL, type);
}

STACK_OF(X509) *cnp_sk_X509_new_null(void) { return sk_X509_new_null(); }
int cnp_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
int cnp_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
X509 *cnp_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
void cnp_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
void cnp_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

long cnp_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
void cnp_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
void cnp_X509V3_set_ctx_nodb(X509V3_CTX *context) { X509V3_set_ctx_nodb(context); }

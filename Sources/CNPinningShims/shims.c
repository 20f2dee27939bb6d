#ifdef __linux__
#define _GNU_SOURCE  // posix_spawn_file_actions_addclosefrom_np (glibc 2.34)
#include "CNPinningShims.h"
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

// The test kit's: starts its servers' and tests' child processes without Foundation's Process.
int cnp_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int error, pid_t *pid) {
  posix_spawn_file_actions_t actions;
  int result = posix_spawn_file_actions_init(&actions);
  if (result != 0) return result;
  int sources[3] = {input, output, error};
  for (int target = 0; target < 3 && result == 0; target++) {
    result = sources[target] >= 0
                 ? posix_spawn_file_actions_adddup2(&actions, sources[target], target)
                 : posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
  }
  if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  if (result == 0) result = posix_spawn(pid, path, &actions, NULL, argv, envp ? envp : environ);
  posix_spawn_file_actions_destroy(&actions);
  return result;
}

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

int cnp_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
  return (int)SSL_CTX_set_min_proto_version(context, version);
}
void cnp_SSL_CTX_set_max_cert_list(SSL_CTX *context, long bytes) {
  SSL_CTX_set_max_cert_list(context, bytes);
}
int cnp_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version) {
  return (int)SSL_CTX_set_max_proto_version(context, version);
}
void cnp_SSL_CTX_refuse_renegotiation(SSL_CTX *context) { SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION); }
void cnp_SSL_CTX_accept_session_tickets(SSL_CTX *context) { SSL_CTX_clear_options(context, SSL_OP_NO_TICKET); }
int cnp_SSL_CTX_new_ex_index(cnp_ex_free_callback free) {
  return CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_CTX, 0, NULL, NULL, NULL, free);
}
int cnp_SSL_SESSION_new_ex_index(cnp_ex_dup_callback dup, cnp_ex_free_callback free) {
  return CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_SESSION, 0, NULL, NULL, dup, free);
}
long cnp_SSL_CTX_set_ticket_keys(SSL_CTX *context, unsigned char *keys) {
  return SSL_CTX_set_tlsext_ticket_keys(context, keys, 80);
}
long cnp_SSL_CTX_add_extra_chain_cert(SSL_CTX *context, X509 *certificate) {
  return SSL_CTX_add_extra_chain_cert(context, certificate);
}
int cnp_SSL_session_reused(const SSL *ssl) { return (int)SSL_session_reused(ssl); }
void cnp_SSL_CTX_set_message_callback(SSL_CTX *context, cnp_ssl_message_callback callback, void *argument) {
  SSL_CTX_set_msg_callback(context, callback);
  SSL_CTX_set_msg_callback_arg(context, argument);
}
SSL *cnp_X509_STORE_CTX_get_ssl(X509_STORE_CTX *context) {
  return X509_STORE_CTX_get_ex_data(context, SSL_get_ex_data_X509_STORE_CTX_idx());
}
#endif

// C one-liners for OpenSSL macros that Swift's importer cannot see, for the session and the
// test kit. libcurl's variadic functions are in CNPinningCurlShims (the session's only).
#ifndef CNPINNING_SHIMS_H
#define CNPINNING_SHIMS_H
// OpenSSL is linked only on Linux; elsewhere this module is empty.
#ifdef __linux__

#include <stddef.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated; NULL `envp` keeps this process's
/// environment), its standard input `input`, output `output` and error `error` (descriptors of
/// this process; -1 for /dev/null), and no other descriptor of this process: posix_spawn with
/// every descriptor from 3 up closed in the child. 0 and the child's pid, or an errno value.
int cnp_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int error, pid_t *pid);

/// Generates a key: "RSA" with `bits`, "EC" with `curve` (e.g. "P-256"), or "ED25519". NULL on failure.
EVP_PKEY *cnp_generate_key(const char *type, unsigned int bits, const char *curve);

STACK_OF(X509) *cnp_sk_X509_new_null(void);
int cnp_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate);
int cnp_sk_X509_num(const STACK_OF(X509) *stack);
X509 *cnp_sk_X509_value(const STACK_OF(X509) *stack, int index);
/// Frees the stack without freeing the certificates it points to.
void cnp_sk_X509_free(STACK_OF(X509) *stack);
/// Frees the stack and every certificate in it (as X509_STORE_get1_all_certs hands them out).
void cnp_sk_X509_pop_free(STACK_OF(X509) *stack);

long cnp_BIO_get_mem_data(BIO *bio, char **data);
void cnp_OPENSSL_free(void *pointer);
void cnp_X509V3_set_ctx_nodb(X509V3_CTX *context);


// ---- OpenSSL macros used by the session ----
int cnp_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version);
/// The most bytes a handshake message from the peer may have (SSL_CTX_set_max_cert_list).
void cnp_SSL_CTX_set_max_cert_list(SSL_CTX *context, long bytes);
int cnp_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version);
/// Refuses renegotiation (SSL_OP_NO_RENEGOTIATION): a connection is verified once, by one handshake.
void cnp_SSL_CTX_refuse_renegotiation(SSL_CTX *context);
/// Accepts TLS 1.2 session tickets (libcurl turns them off; TLS 1.3 tickets are unaffected).
void cnp_SSL_CTX_accept_session_tickets(SSL_CTX *context);

typedef void (*cnp_ex_free_callback)(void *parent, void *pointer, CRYPTO_EX_DATA *data, int index, long argl,
                                     void *argp);
typedef int (*cnp_ex_dup_callback)(CRYPTO_EX_DATA *to, const CRYPTO_EX_DATA *from, void **pointer, int index,
                                   long argl, void *argp);
/// A new ex_data index on SSL_CTX objects whose values `free` releases; -1 on failure.
int cnp_SSL_CTX_new_ex_index(cnp_ex_free_callback free);
/// A new ex_data index on SSL_SESSION objects whose values `dup` retains and `free` releases.
int cnp_SSL_SESSION_new_ex_index(cnp_ex_dup_callback dup, cnp_ex_free_callback free);

/// Server side (test kit): the 80-byte ticket keys, so that servers sharing them resume each
/// other's sessions.
long cnp_SSL_CTX_set_ticket_keys(SSL_CTX *context, unsigned char *keys);
long cnp_SSL_CTX_add_extra_chain_cert(SSL_CTX *context, X509 *certificate);
int cnp_SSL_session_reused(const SSL *ssl);

typedef void (*cnp_ssl_message_callback)(int write_p, int version, int content_type, const void *buffer, size_t length,
                                         SSL *ssl, void *context);
/// Sets a message callback and its context pointer on a context.
void cnp_SSL_CTX_set_message_callback(SSL_CTX *context, cnp_ssl_message_callback callback, void *argument);
/// The SSL of a certificate-verification context (NULL outside a TLS handshake).
SSL *cnp_X509_STORE_CTX_get_ssl(X509_STORE_CTX *context);

#endif  // __linux__
#endif  // CNPINNING_SHIMS_H

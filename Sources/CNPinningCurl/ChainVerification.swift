#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning
import Foundation

/// OpenSSL's verification of a server's chain, in one place for the TLS handshake (the session's
/// verify callback) and for chains verified outside TLS (`CNTrustEvaluator`): the host check's
/// settings, the run itself, and the reading of its outcome.
package enum ChainVerification {
  /// Names the host a chain must be for, with the session's host-check rules: DNS names match
  /// DNS SANs with whole-label wildcards only, IP addresses match IP SANs, and the subject CN is
  /// never taken for a host name. False when OpenSSL cannot take `host`.
  static func requireHost(_ host: String, isIPAddress: Bool, in parameters: OpaquePointer) -> Bool {
    X509_VERIFY_PARAM_set_hostflags(
      parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT))
    let named =
      isIPAddress ? X509_VERIFY_PARAM_set1_ip_asc(parameters, host) : X509_VERIFY_PARAM_set1_host(parameters, host, 0)
    if named != 1 { ERR_clear_error() }
    return named == 1
  }

  /// Runs OpenSSL's verification on a store context prepared with `trust`'s store: the verified
  /// chain (leaf first, ending with the anchor), or OpenSSL's reason as a value. Partial-chain
  /// trust is set here for each run, on for custom anchors alone and off otherwise, whatever
  /// the store's flags say; with the system's anchors and custom ones, a chain the whole store
  /// refuses is tried once more against the custom anchors alone, as given, and on success the
  /// context's error is cleared so that libssl takes the handshake as verified.
  static func run(_ storeContext: OpaquePointer, trust: TrustStore) -> Result<[CNCertificate], VerificationFailure> {
    guard let parameters = X509_STORE_CTX_get0_param(storeContext) else {
      return .failure(.untrusted(reason: "OpenSSL cannot prepare the verification"))
    }
    setPartialChain(trust.trustsStoreAsGiven, in: parameters)
    let first = run(storeContext)
    guard case .failure = first, let custom = trust.customAnchorsAsGiven else { return first }
    guard let retry = X509_STORE_CTX_new() else { return first }
    defer { X509_STORE_CTX_free(retry) }
    guard
      X509_STORE_CTX_init(retry, custom, X509_STORE_CTX_get0_cert(storeContext), X509_STORE_CTX_get0_untrusted(storeContext))
        == 1,
      let retryParameters = X509_STORE_CTX_get0_param(retry), X509_VERIFY_PARAM_set1(retryParameters, parameters) == 1
    else {
      ERR_clear_error()
      return first
    }
    setPartialChain(true, in: retryParameters)
    guard case .success(let chain) = run(retry) else { return first }
    X509_STORE_CTX_set_error(storeContext, X509_V_OK)
    return .success(chain)
  }

  private static func setPartialChain(_ on: Bool, in parameters: OpaquePointer) {
    if on {
      X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
    } else {
      X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
    }
  }

  private static func run(_ storeContext: OpaquePointer) -> Result<[CNCertificate], VerificationFailure> {
    guard X509_verify_cert(storeContext) == 1 else { return .failure(TLSHooks.verificationFailure(storeContext)) }
    // libcurl refuses a server certificate whose issuer name is empty after the handshake
    // ("couldn't get X509-issuer name"); refused here first, for both paths, with the reason.
    if let leaf = X509_STORE_CTX_get0_cert(storeContext), X509_NAME_entry_count(X509_get_issuer_name(leaf)) == 0 {
      return .failure(.untrusted(reason: "the server certificate's issuer name is empty (RFC 5280 §4.1.2.4 requires one)"))
    }
    guard let chain = TLSHooks.certificates(X509_STORE_CTX_get0_chain(storeContext)) else {
      return .failure(.untrusted(reason: "the verified chain cannot be read"))
    }
    return .success(chain)
  }

  /// Verifies `chain` (the leaf, then intermediates in any order) for `host` against `store`,
  /// as a TLS client's handshake does: the `ssl_server` purpose, the given security level,
  /// the host check above, and the time `date`.
  package static func verify(
    _ chain: [CNCertificate], host: String, isIPAddress: Bool, store: TrustStore, securityLevel: Int32, at date: Date
  ) -> Result<[CNCertificate], VerificationFailure> {
    guard let leafCertificate = chain.first else { return .failure(.untrusted(reason: "no certificate was given")) }
    guard let leaf = x509(leafCertificate) else { return .failure(.untrusted(reason: "OpenSSL cannot read the leaf")) }
    defer { X509_free(leaf) }
    guard let untrusted = cnp_sk_X509_new_null() else { return .failure(.untrusted(reason: "out of memory")) }
    defer { cnp_sk_X509_pop_free(untrusted) }
    for certificate in chain.dropFirst() {
      guard let intermediate = x509(certificate) else {
        return .failure(.untrusted(reason: "OpenSSL cannot read the certificate \(certificate)"))
      }
      guard cnp_sk_X509_push(untrusted, intermediate) > 0 else {
        X509_free(intermediate)
        return .failure(.untrusted(reason: "out of memory"))
      }
    }
    guard let storeContext = X509_STORE_CTX_new() else { return .failure(.untrusted(reason: "out of memory")) }
    defer { X509_STORE_CTX_free(storeContext) }
    guard X509_STORE_CTX_init(storeContext, store.store, leaf, untrusted) == 1,
      X509_STORE_CTX_set_default(storeContext, "ssl_server") == 1, let parameters = X509_STORE_CTX_get0_param(storeContext)
    else {
      ERR_clear_error()
      return .failure(.untrusted(reason: "OpenSSL cannot prepare the verification"))
    }
    X509_VERIFY_PARAM_set_auth_level(parameters, securityLevel)
    guard requireHost(host, isIPAddress: isIPAddress, in: parameters) else {
      return .failure(.untrusted(reason: "\"\(host)\" is not a host name or IP address that OpenSSL can verify"))
    }
    X509_VERIFY_PARAM_set_time(parameters, time_t(date.boundedEpochSeconds))
    return run(storeContext, trust: store)
  }

  /// The security level a new TLS client context of this process has (Debian's openssl.cnf
  /// sets 2): what a handshake's verification uses unless the session lowers it. Should OpenSSL
  /// make no context, 2, the stricter of the usual defaults.
  package static let defaultSecurityLevel: Int32 = {
    guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else { return 2 }
    defer { SSL_CTX_free(context) }
    return SSL_CTX_get_security_level(context)
  }()

  private static func x509(_ certificate: CNCertificate) -> OpaquePointer? {
    certificate.derEncoded.withUnsafeBufferPointer { buffer in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      return d2i_X509(nil, &cursor, buffer.count)
    }
  }
}
#endif

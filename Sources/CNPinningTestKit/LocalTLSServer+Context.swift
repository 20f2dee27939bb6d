// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning

/// The server's TLS context: identity, chain, versions, ciphers, ticket keys, and the two
/// OpenSSL callbacks (ALPN, resumption offers), which only collect facts.
extension LocalTLSServerCore {
  static func makeContext(_ configuration: Configuration) throws -> OpaquePointer {
    guard let context = SSL_CTX_new(TLS_server_method()) else { throw TestKitError("SSL_CTX_new failed") }
    do {
      if let level = configuration.securityLevel { SSL_CTX_set_security_level(context, level) }
      let leaf = try X509Box(der: configuration.identity.certificate.derEncoded)
      guard SSL_CTX_use_certificate(context, leaf.pointer) == 1 else { throw TestKitError("cannot use the certificate") }
      let chain = configuration.chain ?? Array(configuration.identity.chain.dropFirst().dropLast())
      for certificate in chain + configuration.extraCertificates {
        let box = try X509Box(der: certificate.derEncoded)
        X509_up_ref(box.pointer)
        guard cnp_SSL_CTX_add_extra_chain_cert(context, box.pointer) == 1 else {
          throw TestKitError("cannot add a chain certificate")
        }
      }
      guard SSL_CTX_use_PrivateKey(context, configuration.identity.privateKey.pointer) == 1,
        SSL_CTX_check_private_key(context) == 1
      else { throw TestKitError("cannot use the private key") }
      guard cnp_SSL_CTX_set_min_proto_version(context, Int32(configuration.minimumTLSVersion.rawValue)) == 1,
        cnp_SSL_CTX_set_max_proto_version(context, Int32(configuration.maximumTLSVersion.rawValue)) == 1
      else { throw TestKitError("cannot set the TLS versions") }
      if let list = configuration.cipherList, SSL_CTX_set_cipher_list(context, list) != 1 {
        throw TestKitError("cannot set the cipher list \(list)")
      }
      if var keys = configuration.sessionTicketKeys {
        guard keys.count == 80, cnp_SSL_CTX_set_ticket_keys(context, &keys) == 1 else {
          throw TestKitError("session-ticket keys must be 80 bytes")
        }
      }
      return context
    } catch {
      SSL_CTX_free(context)
      throw error
    }
  }

  /// Contexts belong to this object, and connections (which hold their context) end before it
  /// does, so the hooks' pointer to this object cannot outlive it.
  func installHooks(_ context: OpaquePointer) {
    SSL_CTX_set_client_hello_cb(context, countResumptionOffer, Unmanaged.passUnretained(self).toOpaque())
    if configuration.servesHTTP2 { SSL_CTX_set_alpn_select_cb(context, chooseHTTP2, nil) }
  }
}

/// Chooses HTTP/2 when the client offers it (ALPN "h2"), else lets the handshake go on without
/// ALPN (HTTP/1.1).
private let chooseHTTP2: SSL_CTX_alpn_select_cb_func = { _, selected, selectedLength, offered, offeredLength, _ in
  guard let selected, let selectedLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
  var position = 0
  while position < Int(offeredLength) {
    let length = Int(offered[position])
    if length == 2, position + 2 < Int(offeredLength), offered[position + 1] == UInt8(ascii: "h"),
      offered[position + 2] == UInt8(ascii: "2")
    {
      selected.pointee = offered + position + 1
      selectedLength.pointee = 2
      return SSL_TLSEXT_ERR_OK
    }
    position += 1 + length
  }
  return SSL_TLSEXT_ERR_NOACK
}

/// Counts ClientHellos that offer to resume a session: a TLS 1.3 pre_shared_key extension (41)
/// or a non-empty TLS 1.2 session_ticket extension (35).
private let countResumptionOffer: SSL_client_hello_cb_fn = { ssl, _, argument in
  guard let ssl, let argument else { return SSL_CLIENT_HELLO_SUCCESS }
  var data: UnsafePointer<UInt8>?
  var length = 0
  let offersPSK = SSL_client_hello_get0_ext(ssl, 41, &data, &length) == 1
  let offersTicket = SSL_client_hello_get0_ext(ssl, 35, &data, &length) == 1 && length > 0
  if offersPSK || offersTicket {
    Unmanaged<LocalTLSServerCore>.fromOpaque(argument).takeUnretainedValue().recordResumptionOffer()
  }
  return SSL_CLIENT_HELLO_SUCCESS
}
#endif

// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning
import Foundation

/// A certificate with its private key and the CA that issued it: one node of a test PKI built in
/// code by OpenSSL, valid relative to the moment it was made.
public final class TestIdentity: Sendable {
  public let certificate: CNCertificate
  public let privateKey: TestPrivateKey
  /// The issuing CA; nil for a self-signed certificate.
  public let issuer: TestIdentity?

  /// A self-signed CA (a root).
  public static func root(_ commonName: String, keyType: TestKeyType = .p256) throws -> TestIdentity {
    try selfSigned(.ca(commonName, keyType: keyType))
  }

  /// A self-signed certificate as `spec` describes.
  public static func selfSigned(_ spec: TestCertificateSpec) throws -> TestIdentity {
    try TestIdentity(spec: spec, issuer: nil)
  }

  /// A certificate issued by this identity (which should be a CA).
  public func issue(_ spec: TestCertificateSpec) throws -> TestIdentity {
    try TestIdentity(spec: spec, issuer: self)
  }

  /// An intermediate CA issued by this identity.
  public func issueIntermediate(_ commonName: String, keyType: TestKeyType = .p256) throws -> TestIdentity {
    try issue(.ca(commonName, keyType: keyType))
  }

  /// A server leaf issued by this identity.
  public func issueLeaf(
    _ commonName: String, dnsNames: [String] = [], ipAddresses: [String] = [], keyType: TestKeyType = .p256
  ) throws -> TestIdentity {
    try issue(.leaf(commonName, dnsNames: dnsNames, ipAddresses: ipAddresses, keyType: keyType))
  }

  /// This certificate and its issuers, leaf first, ending with the self-signed root: the chain a
  /// verifier builds.
  public var chain: [CNCertificate] {
    var result = [certificate]
    var next = issuer
    while let current = next {
      result.append(current.certificate)
      next = current.issuer
    }
    return result
  }

  /// The root of this identity's PKI.
  public var root: TestIdentity { issuer?.root ?? self }

  /// A certificate and its key as they are given (a published test vector's, say), with no
  /// known issuer: a server's chain beyond the leaf goes in `LocalTLSServer.Configuration.chain`.
  public init(certificate: CNCertificate, privateKey: TestPrivateKey) {
    self.certificate = certificate
    self.privateKey = privateKey
    self.issuer = nil
  }

  private init(spec: TestCertificateSpec, issuer: TestIdentity?) throws {
    let key: TestPrivateKey
    if let given = spec.key {
      key = given
    } else if let slot = spec.sharedKeySlot {
      key = try TestPrivateKey.shared(spec.keyType, slot: slot)
    } else {
      key = try TestPrivateKey.generate(spec.keyType)
    }
    let der = try CertificateBuilder.build(spec: spec, key: key, issuer: issuer)
    self.certificate = try CNCertificate(derEncoded: der)
    self.privateKey = key
    self.issuer = issuer
  }
}

/// Assembles and signs an X.509 v3 certificate with OpenSSL.
enum CertificateBuilder {
  static func build(spec: TestCertificateSpec, key: TestPrivateKey, issuer: TestIdentity?) throws -> [UInt8] {
    guard let x509 = X509_new() else { throw TestKitError("X509_new failed") }
    defer { X509_free(x509) }
    guard X509_set_version(x509, 2) == 1 else { throw TestKitError("X509_set_version failed") }
    try setRandomSerial(x509)
    guard X509_gmtime_adj(X509_getm_notBefore(x509), Int(spec.notBefore)) != nil,
      X509_gmtime_adj(X509_getm_notAfter(x509), Int(spec.notAfter)) != nil
    else { throw TestKitError("cannot set the validity period") }

    // Attribute values OpenSSL would refuse are written as unique placeholders and patched in
    // after signing (see `patchVerbatimAttributes`).
    let placeholders = spec.subject.enumerated().map { index, attribute in
      attribute.verbatimTag == nil
        ? attribute
        : TestNameAttribute(
          shortName: attribute.shortName, stringType: .utf8String, bytes: Array("cnpinning-verbatim-\(index)".utf8))
    }
    let subject = try makeName(placeholders)
    defer { X509_NAME_free(subject) }
    guard X509_set_subject_name(x509, subject) == 1, X509_set_pubkey(x509, key.pointer) == 1 else {
      throw TestKitError("cannot set the subject or key")
    }
    let issuerBox = try issuer.map { try X509Box(der: $0.certificate.derEncoded) }
    let issuerX509 = issuerBox?.pointer ?? x509
    guard X509_set_issuer_name(x509, X509_get_subject_name(issuerX509)) == 1 else {
      throw TestKitError("cannot set the issuer")
    }
    try addExtensions(spec, to: x509, issuer: issuerX509)
    let signer = issuer?.privateKey ?? key
    guard X509_sign(x509, signer.pointer, signer.signingDigest(spec.digest)) > 0 else {
      throw TestKitError("cannot sign the certificate")
    }
    let der = OpenSSLEncoding.der { i2d_X509(x509, $0) }
    guard spec.subject.contains(where: { $0.verbatimTag != nil }) else { return der }
    return try patchVerbatimAttributes(der, spec: spec, signer: signer)
  }

  /// Puts each verbatim attribute's tag and bytes in place of its placeholder, then signs the
  /// edited tbsCertificate again with the issuer's key.
  private static func patchVerbatimAttributes(_ der: [UInt8], spec: TestCertificateSpec, signer: TestPrivateKey)
    throws -> [UInt8]
  {
    var certificate = try DERTree.parse(der)
    for (index, attribute) in spec.subject.enumerated() {
      guard let tag = attribute.verbatimTag else { continue }
      let replacement: DERTree =
        tag & 0x20 != 0
        ? .constructed(tag: tag, children: [.primitive(tag: 0x04, content: attribute.bytes)])
        : .primitive(tag: tag, content: attribute.bytes)
      certificate = certificate.replacing(content: Array("cnpinning-verbatim-\(index)".utf8), with: replacement)
    }
    let parts = certificate.children
    guard parts.count == 3 else { throw TestKitError(message: "unexpected certificate shape") }
    let tbs = parts[0].encoded
    let signature = try sign(tbs, with: signer, digest: spec.digest)
    return DERTree.constructed(
      tag: 0x30, children: [parts[0], parts[1], .primitive(tag: 0x03, content: [0] + signature)]
    ).encoded
  }

  private static func sign(_ message: [UInt8], with key: TestPrivateKey, digest: TestDigest) throws -> [UInt8] {
    guard let context = EVP_MD_CTX_new() else { throw TestKitError("EVP_MD_CTX_new failed") }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, key.signingDigest(digest), nil, key.pointer) == 1 else {
      throw TestKitError("EVP_DigestSignInit failed")
    }
    var length = 0
    guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
      throw TestKitError("EVP_DigestSign failed")
    }
    var signature = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
      throw TestKitError("EVP_DigestSign failed")
    }
    return Array(signature.prefix(length))
  }

  private static func setRandomSerial(_ x509: OpaquePointer) throws {
    guard let number = BN_new() else { throw TestKitError("BN_new failed") }
    defer { BN_free(number) }
    guard BN_rand(number, 120, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1,
      BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil
    else { throw TestKitError("cannot set a serial number") }
  }

  private static func makeName(_ attributes: [TestNameAttribute]) throws -> OpaquePointer {
    guard let name = X509_NAME_new() else { throw TestKitError("X509_NAME_new failed") }
    for attribute in attributes {
      let added = attribute.bytes.withUnsafeBufferPointer { bytes in
        X509_NAME_add_entry_by_txt(
          name, attribute.shortName, attribute.stringType.rawValue, bytes.baseAddress ?? UnsafePointer(bitPattern: 1),
          Int32(bytes.count), -1, 0)
      }
      guard added == 1 else {
        X509_NAME_free(name)
        throw TestKitError("cannot add \(attribute.shortName) to a name")
      }
    }
    return name
  }

  private static func addExtensions(_ spec: TestCertificateSpec, to x509: OpaquePointer, issuer: OpaquePointer)
    throws
  {
    var context = X509V3_CTX()
    cnp_X509V3_set_ctx_nodb(&context)
    X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
    var extensions: [(Int32, String)] = [(NID_subject_key_identifier, "hash")]
    if issuer != x509 { extensions.append((NID_authority_key_identifier, "keyid:always")) }
    if spec.isCA {
      extensions += [(NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign")]
    } else {
      extensions += [
        (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
        (NID_ext_key_usage, "serverAuth"),
      ]
    }
    let alternativeNames = spec.dnsNames.map { "DNS:\($0)" } + spec.ipAddresses.map { "IP:\($0)" }
    if !alternativeNames.isEmpty {
      // RFC 5280 4.2.1.6: with an empty subject (Let's Encrypt's tlsserver and shortlived
      // profiles), the subjectAltName is critical.
      let critical = spec.subject.isEmpty ? "critical," : ""
      extensions.append((NID_subject_alt_name, critical + alternativeNames.joined(separator: ",")))
    }
    for (nid, value) in extensions {
      guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
        throw TestKitError("cannot make extension \(value)")
      }
      defer { X509_EXTENSION_free(ext) }
      guard X509_add_ext(x509, ext, -1) == 1 else { throw TestKitError("cannot add extension \(value)") }
    }
  }
}
#endif

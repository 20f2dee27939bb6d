/// One extension of a certificate, as ranges into its DER: what profile checks read.
package struct CertificateExtension: Sendable, Hashable {
  /// The extnID's content bytes.
  package let oid: Range<Int>
  package let isCritical: Bool
  /// The extnValue OCTET STRING's content: the extension's own DER.
  package let value: Range<Int>
}

/// The extensions the Web-PKI profile reads, decoded from a certificate on demand. Each accessor
/// is nil when the extension is absent; a present extension that does not decode reads as
/// `.malformed`, so a profile can refuse it rather than skip it.
extension CNCertificate {
  package enum Decoded<Value: Sendable>: Sendable {
    case absent
    case malformed
    case present(Value, isCritical: Bool)
  }

  package struct SubjectAlternativeNames: Sendable, Equatable {
    /// dNSName entries, byte for byte (IA5String).
    package var dnsNames: [String] = []
    /// iPAddress entries in their text forms: IPv4 dotted decimal, IPv6 as RFC 5952 writes it.
    package var ipAddresses: [String] = []
  }

  package struct BasicConstraints: Sendable, Equatable {
    package var isCA: Bool
    package var pathLength: Int?
  }

  package struct AuthorityKeyIdentifier: Sendable, Equatable {
    /// keyIdentifier [0], when present.
    package var keyIdentifier: [UInt8]?
    /// Whether authorityCertIssuer [1] or authorityCertSerialNumber [2] is present.
    package var namesIssuerOrSerial = false
  }

  static let subjectAltNameOID: [UInt8] = [0x55, 0x1D, 0x11]
  static let basicConstraintsOID: [UInt8] = [0x55, 0x1D, 0x13]
  package static let extendedKeyUsageOID: [UInt8] = [0x55, 0x1D, 0x25]
  static let authorityKeyIdentifierOID: [UInt8] = [0x55, 0x1D, 0x23]
  static let subjectKeyIdentifierOID: [UInt8] = [0x55, 0x1D, 0x0E]
  static let keyUsageOID: [UInt8] = [0x55, 0x1D, 0x0F]
  package static let nameConstraintsOID: [UInt8] = [0x55, 0x1D, 0x1E]
  package static let policyConstraintsOID: [UInt8] = [0x55, 0x1D, 0x24]
  static let authorityInfoAccessOID: [UInt8] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01]
  /// id-kp-serverAuth (1.3.6.1.5.5.7.3.1) and anyExtendedKeyUsage (2.5.29.37.0).
  package static let serverAuthOID: [UInt8] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01]
  package static let anyExtendedKeyUsageOID: [UInt8] = [0x55, 0x1D, 0x25, 0x00]

  private func extensionNamed(_ oid: [UInt8]) -> CertificateExtension? {
    extensions.first { derEncoded[$0.oid].elementsEqual(oid) }
  }

  /// Whether the certificate has the extension at all.
  package func hasExtension(_ oid: [UInt8]) -> Bool { extensionNamed(oid) != nil }
  /// Whether the certificate has the extension, marked critical.
  package func hasCriticalExtension(_ oid: [UInt8]) -> Bool { extensionNamed(oid)?.isCritical ?? false }
  package var hasAuthorityKeyIdentifier: Bool { hasExtension(Self.authorityKeyIdentifierOID) }
  package var hasSubjectKeyIdentifier: Bool { hasExtension(Self.subjectKeyIdentifierOID) }

  /// Whether the subject is the empty Name (a SEQUENCE with nothing in it).
  package var hasEmptySubject: Bool { derEncoded[subjectRange].elementsEqual([0x30, 0x00]) }

  /// The serial number's content bytes (two's complement).
  package var serialNumber: ArraySlice<UInt8> { derEncoded[serialNumberRange] }

  private func decode<Value: Sendable>(
    _ oid: [UInt8], _ read: (inout DERReader) throws(CNCertificateError) -> Value
  ) -> Decoded<Value> {
    guard let found = extensionNamed(oid) else { return .absent }
    let value: Value? = derEncoded.withUnsafeBufferPointer { bytes in
      var reader = DERReader(bytes, range: found.value)
      guard let value = try? read(&reader), reader.isAtEnd else { return nil }
      return value
    }
    return value.map { .present($0, isCritical: found.isCritical) } ?? .malformed
  }

  /// GeneralNames ::= SEQUENCE OF GeneralName; dNSName [2] IA5String, iPAddress [7] OCTET STRING.
  package var subjectAlternativeNames: Decoded<SubjectAlternativeNames> {
    decode(Self.subjectAltNameOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let sequence = try reader.read(DERReader.sequence, "subjectAltName")
      var names = reader.reader(inside: sequence)
      var result = SubjectAlternativeNames()
      while !names.isAtEnd {
        let name = try names.readAny("subjectAltName")
        let content = Array(reader.bytes[name.content])
        switch name.tag {
        case 0x82:
          guard content.allSatisfy({ $0 < 0x80 }) else {
            throw .invalidContent(field: "subjectAltName", reason: "has a dNSName that is not IA5")
          }
          result.dnsNames.append(String(decoding: content, as: UTF8.self))
        case 0x87:
          guard let text = IPAddress.text(ofAddressBytes: content) else {
            throw .invalidContent(field: "subjectAltName", reason: "has an iPAddress of \(content.count) bytes")
          }
          result.ipAddresses.append(text)
        default: continue
        }
      }
      return result
    }
  }

  /// The subjectAltName's DNS and IP entries as written, DNS names first; empty when the
  /// certificate has none or they do not decode.
  package var subjectAltNameEntries: [String] {
    guard case .present(let names, _) = subjectAlternativeNames else { return [] }
    return names.dnsNames + names.ipAddresses
  }

  /// ExtKeyUsageSyntax ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId, as OID content bytes.
  package var extendedKeyUsage: Decoded<[[UInt8]]> {
    decode(Self.extendedKeyUsageOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let sequence = try reader.read(DERReader.sequence, "extKeyUsage")
      var purposes = reader.reader(inside: sequence)
      var result: [[UInt8]] = []
      while !purposes.isAtEnd {
        result.append(Array(reader.bytes[try purposes.read(DERReader.objectIdentifier, "extKeyUsage").content]))
      }
      guard !result.isEmpty else { throw .invalidContent(field: "extKeyUsage", reason: "is empty") }
      return result
    }
  }

  /// KeyUsage ::= BIT STRING: whether keyCertSign (bit 5) is asserted.
  package var keyUsageAssertsKeyCertSign: Decoded<Bool> {
    decode(Self.keyUsageOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let bits = try reader.read(DERReader.bitString, "keyUsage")
      let content = reader.bytes[bits.content]
      guard let unused = content.first, unused < 8 else {
        throw .invalidContent(field: "keyUsage", reason: "is not a BIT STRING")
      }
      return content.count >= 2 && content[content.startIndex + 1] & 0x04 != 0
    }
  }

  /// AuthorityInfoAccessSyntax ::= SEQUENCE SIZE (1..MAX) OF SEQUENCE { accessMethod OBJECT
  /// IDENTIFIER, accessLocation GeneralName }: its number of access descriptions.
  package var authorityInfoAccess: Decoded<Int> {
    decode(Self.authorityInfoAccessOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let sequence = try reader.read(DERReader.sequence, "authorityInfoAccess")
      var descriptions = reader.reader(inside: sequence)
      var count = 0
      while !descriptions.isAtEnd {
        let description = try descriptions.read(DERReader.sequence, "authorityInfoAccess")
        var parts = descriptions.reader(inside: description)
        _ = try parts.read(DERReader.objectIdentifier, "authorityInfoAccess.accessMethod")
        _ = try parts.readAny("authorityInfoAccess.accessLocation")
        try parts.expectEnd("authorityInfoAccess")
        count += 1
      }
      guard count > 0 else { throw .invalidContent(field: "authorityInfoAccess", reason: "is empty") }
      return count
    }
  }

  /// BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }.
  package var basicConstraints: Decoded<BasicConstraints> {
    decode(Self.basicConstraintsOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let sequence = try reader.read(DERReader.sequence, "basicConstraints")
      var fields = reader.reader(inside: sequence)
      var result = BasicConstraints(isCA: false)
      if let ca = try fields.readOptional(DERReader.boolean, "basicConstraints.cA") {
        result.isCA = ca.end > ca.contentStart && reader.bytes[ca.contentStart] != 0
      }
      if let length = try fields.readOptional(DERReader.integer, "basicConstraints.pathLenConstraint") {
        result.pathLength = reader.bytes[length.content].reduce(0) { $0 &* 256 &+ Int($1) }
      }
      try fields.expectEnd("basicConstraints")
      return result
    }
  }

  /// SubjectKeyIdentifier ::= OCTET STRING: its content.
  package var subjectKeyIdentifier: Decoded<[UInt8]> {
    decode(Self.subjectKeyIdentifierOID) { (reader: inout DERReader) throws(CNCertificateError) in
      Array(reader.bytes[try reader.read(DERReader.octetString, "subjectKeyIdentifier").content])
    }
  }

  /// AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING OPTIONAL,
  /// authorityCertIssuer [1] GeneralNames OPTIONAL, authorityCertSerialNumber [2] INTEGER OPTIONAL }.
  package var authorityKeyIdentifier: Decoded<AuthorityKeyIdentifier> {
    decode(Self.authorityKeyIdentifierOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let sequence = try reader.read(DERReader.sequence, "authorityKeyIdentifier")
      var fields = reader.reader(inside: sequence)
      var result = AuthorityKeyIdentifier(keyIdentifier: nil)
      if let key = try fields.readOptional(0x80, "authorityKeyIdentifier.keyIdentifier") {
        result.keyIdentifier = Array(reader.bytes[key.content])
      }
      // authorityCertIssuer [1] and authorityCertSerialNumber [2]: only whether they are there.
      let issuer = try fields.readOptional(0xA1, "authorityKeyIdentifier.authorityCertIssuer")
      let serial = try fields.readOptional(0x82, "authorityKeyIdentifier.authorityCertSerialNumber")
      result.namesIssuerOrSerial = issuer != nil || serial != nil
      try fields.expectEnd("authorityKeyIdentifier")
      return result
    }
  }

  /// NameConstraints ::= SEQUENCE { permittedSubtrees [0] GeneralSubtrees OPTIONAL,
  /// excludedSubtrees [1] GeneralSubtrees OPTIONAL }, GeneralSubtrees ::= SEQUENCE SIZE (1..MAX)
  /// OF GeneralSubtree: how many subtrees it holds in all (an empty list of either is malformed).
  package var nameConstraintsSubtrees: Decoded<Int> {
    decode(Self.nameConstraintsOID) { (reader: inout DERReader) throws(CNCertificateError) in
      let sequence = try reader.read(DERReader.sequence, "nameConstraints")
      var fields = reader.reader(inside: sequence)
      var count = 0
      for tag: UInt8 in [0xA0, 0xA1] {
        guard let subtrees = try fields.readOptional(tag, "nameConstraints") else { continue }
        var list = fields.reader(inside: subtrees)
        guard !list.isAtEnd else { throw .invalidContent(field: "nameConstraints", reason: "has an empty list of subtrees") }
        while !list.isAtEnd {
          _ = try list.read(DERReader.sequence, "nameConstraints.GeneralSubtree")
          count += 1
        }
      }
      try fields.expectEnd("nameConstraints")
      return count
    }
  }
}

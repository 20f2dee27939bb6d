import CNPinning

/// The CA/Browser Forum baseline rules OpenSSL 3.0 does not check, judged in Swift on a verified
/// chain (leaf first, ending with the trust anchor).
package enum WebPKIProfile {
  /// How much of a verified chain the profile judges.
  package enum Scope: Sendable, Equatable {
    /// The leaf and the CAs below the anchor; the anchor is trusted as it is (the default with
    /// the system's trust store, whatever roots it holds).
    case belowAnchor
    /// The anchor as well (the strict mode): an anchor the app chose (one of `chosenAnchors`)
    /// by every Web-PKI rule for a trust anchor, as pyca/cryptography judges anchors; a root of
    /// the system's store by the root rules every root of Debian's trust store meets, since the
    /// app cannot change what the system ships.
    case wholeChain(chosenAnchors: [CNCertificate])
  }

  /// The first rule the chain breaks within `scope`, in words, or nil.
  package static func violation(_ chain: [CNCertificate], scope: Scope) -> String? {
    if let problem = violation(belowAnchorOf: chain) { return problem }
    guard case .wholeChain(let chosen) = scope else { return nil }
    return violation(anchorOf: chain, chosenAnchors: chosen)
  }

  /// The first rule the chain's trust anchor breaks (`anchorViolation`, and for an anchor among
  /// `chosenAnchors` `chosenAnchorViolation` too), or nil; a chain of one certificate, trusted
  /// as itself, is not judged.
  static func violation(anchorOf chain: [CNCertificate], chosenAnchors: [CNCertificate]) -> String? {
    guard chain.count >= 2, let anchor = chain.last else { return nil }
    if let problem = anchorViolation(anchor) { return problem }
    guard chosenAnchors.contains(where: { $0.derEncoded == anchor.derEncoded }) else { return nil }
    return chosenAnchorViolation(anchor)
  }

  /// The rules for a trust anchor that some roots of Debian's store break (measured on Debian
  /// 12's 139 roots: 8 break them; docs/decisions/verdict.md names them), applied to the anchors
  /// an app chose, as pyca/cryptography applies them.
  static func chosenAnchorViolation(_ anchor: CNCertificate) -> String? {
    let name = VisibleText.quoted(anchor.commonName ?? "the trust anchor")
    // RFC 5280 4.2.1.9: conforming CAs mark basicConstraints critical.
    if case .present(_, isCritical: false) = anchor.basicConstraints {
      return "the trust anchor \(name)'s basicConstraints is not critical (RFC 5280 4.2.1.9)"
    }
    // RFC 5280 4.2.1.2: a CA certificate has a subjectKeyIdentifier.
    if !anchor.hasSubjectKeyIdentifier { return "the trust anchor \(name) has no subjectKeyIdentifier (RFC 5280 4.2.1.2)" }
    // CABF BR 7.1.2.1.3: a root's authorityKeyIdentifier has no issuer or serial number.
    if case .present(let identifier, _) = anchor.authorityKeyIdentifier, identifier.namesIssuerOrSerial {
      return "the trust anchor \(name)'s authorityKeyIdentifier names an issuer or serial number (CABF BR 7.1.2.1.3)"
    }
    return nil
  }

  /// The first rule the leaf or a CA below the anchor breaks, or nil.
  static func violation(belowAnchorOf chain: [CNCertificate]) -> String? {
    guard chain.count >= 2, let leaf = chain.first else { return nil }
    if let problem = leafProblem(leaf) { return problem }
    for (index, certificate) in chain.dropLast().enumerated() {
      let name = VisibleText.quoted(certificate.commonName ?? "certificate \(index)")
      if let problem = serialProblem(certificate.serialNumber) { return "\(name)'s serial number \(problem) (RFC 5280 4.1.2.2)" }
      if case .rsa(let bits) = certificate.publicKeyKind, bits % 8 != 0 {
        return "\(name) has an RSA key of \(bits) bits, not a multiple of 8 (CABF BR 6.1.5)"
      }
      if !certificate.hasAuthorityKeyIdentifier { return "\(name) has no authorityKeyIdentifier (RFC 5280 4.2.1.1)" }
      if case .malformed = certificate.authorityInfoAccess {
        return "\(name)'s authorityInfoAccess is malformed or empty (RFC 5280 4.2.2.1)"
      }
      if index > 0, let problem = caProblem(certificate) { return "the CA \(name) \(problem)" }
    }
    return nil
  }

  /// The rules for a CA below the anchor, as "has no …" phrases.
  private static func caProblem(_ certificate: CNCertificate) -> String? {
    if !certificate.hasSubjectKeyIdentifier { return "has no subjectKeyIdentifier (RFC 5280 4.2.1.2)" }
    // RFC 5280 4.2.1.11: conforming CAs mark policyConstraints critical.
    if certificate.hasExtension(CNCertificate.policyConstraintsOID),
      !certificate.hasCriticalExtension(CNCertificate.policyConstraintsOID)
    {
      return "has a policyConstraints extension that is not critical (RFC 5280 4.2.1.11)"
    }
    // RFC 5280 4.2.1.10: name constraints hold at least one subtree, and each list is non-empty.
    switch certificate.nameConstraintsSubtrees {
    case .absent: return nil
    case .malformed: return "has nameConstraints that do not decode"
    case .present(let count, _):
      return count == 0 ? "has nameConstraints with neither permitted nor excluded subtrees (RFC 5280 4.2.1.10)" : nil
    }
  }

  /// The rules for a trust anchor that every root in Debian's trust store meets: the strict
  /// mode's. Any anchor is a CA; a root has no extKeyUsage, an RSA key a multiple of 8 bits
  /// long and, if any, an authorityKeyIdentifier that is its own keyIdentifier. (Some of Debian's
  /// roots break the others, which `chosenAnchorViolation` applies to anchors the app chose; none
  /// checks a root's serial number.)
  static func anchorViolation(_ anchor: CNCertificate) -> String? {
    let name = VisibleText.quoted(anchor.commonName ?? "the trust anchor")
    // RFC 5280 4.2.1.9: a trust anchor is a CA.
    switch anchor.basicConstraints {
    case .absent: return "the trust anchor \(name) has no basicConstraints (RFC 5280 4.2.1.9)"
    case .malformed: return "the trust anchor \(name)'s basicConstraints do not decode"
    case .present(let constraints, _):
      if !constraints.isCA { return "the trust anchor \(name) is not a CA (RFC 5280 4.2.1.9)" }
    }
    guard anchor.isSelfIssued else { return nil }
    if case .rsa(let bits) = anchor.publicKeyKind, bits % 8 != 0 {
      return "the root \(name) has an RSA key of \(bits) bits, not a multiple of 8 (CABF BR 6.1.5)"
    }
    // CABF BR 7.1.2.1.2: no extKeyUsage in a root.
    if anchor.hasExtension(CNCertificate.extendedKeyUsageOID) {
      return "the root \(name) has an extKeyUsage extension (CABF BR 7.1.2.1.2)"
    }
    // CABF BR 7.1.2.1.3: a root's authorityKeyIdentifier, if any, is its own keyIdentifier.
    switch anchor.authorityKeyIdentifier {
    case .absent: return nil
    case .malformed: return "the root \(name)'s authorityKeyIdentifier does not decode"
    case .present(let identifier, _):
      guard let key = identifier.keyIdentifier else {
        return "the root \(name)'s authorityKeyIdentifier has no keyIdentifier (CABF BR 7.1.2.1.3)"
      }
      guard case .present(let own, _) = anchor.subjectKeyIdentifier, own == key else {
        return "the root \(name)'s authorityKeyIdentifier is not its own subjectKeyIdentifier (CABF BR 7.1.2.1.3)"
      }
      return nil
    }
  }

  private static func leafProblem(_ leaf: CNCertificate) -> String? {
    // CABF BR 7.1.4.3: a subscriber certificate's CN, if any, is one of its SAN entries, spelled
    // as there (an IP address in its canonical text). A leaf-CN pin then names a host that the
    // host-name check looked at.
    if let problem = leaf.commonNameProblem, problem != .missing { return "the leaf's CN: \(problem)" }
    if case .malformed = leaf.subjectAlternativeNames { return "the leaf's subjectAltName does not decode" }
    if let commonName = leaf.commonName {
      guard case .present(let names, _) = leaf.subjectAlternativeNames,
        names.dnsNames.contains(commonName) || names.ipAddresses.contains(commonName)
      else {
        return "the leaf's CN \(VisibleText.quoted(commonName)) is not one of its subjectAltName entries (CABF BR 7.1.4.3)"
      }
    }
    // CABF BR 7.1.2.7.6: serverAuth, no anyExtendedKeyUsage, not critical.
    switch leaf.extendedKeyUsage {
    case .absent: return "the leaf has no extKeyUsage; serverAuth is required (CABF BR 7.1.2.7.6)"
    case .malformed: return "the leaf's extKeyUsage does not decode"
    case .present(let purposes, let isCritical):
      if isCritical { return "the leaf's extKeyUsage is critical (CABF BR 7.1.2.7.6)" }
      if purposes.contains(CNCertificate.anyExtendedKeyUsageOID) {
        return "the leaf's extKeyUsage allows any purpose (CABF BR 7.1.2.7.6)"
      }
      if !purposes.contains(CNCertificate.serverAuthOID) { return "the leaf's extKeyUsage lacks serverAuth" }
    }
    // RFC 5280 4.2.1.6: SAN is critical exactly when the subject is empty.
    if case .present(let names, let isCritical) = leaf.subjectAlternativeNames {
      if isCritical != leaf.hasEmptySubject {
        return isCritical
          ? "the leaf's subjectAltName is critical although its subject is not empty (CABF BR 7.1.2.7.12)"
          : "the leaf's subject is empty and its subjectAltName is not critical (RFC 5280 4.2.1.6)"
      }
      // CABF BR 7.1.4.2.1 (ballot SC12): no underscores in DNS names.
      if let name = names.dnsNames.first(where: { $0.contains("_") }) {
        return "the leaf's subjectAltName \(VisibleText.quoted(name)) contains an underscore (CABF BR 7.1.4.2.1)"
      }
    }
    // RFC 5280 4.2.1.10: name constraints belong in CA certificates only.
    if leaf.hasExtension(CNCertificate.nameConstraintsOID) { return "the leaf has nameConstraints, a CA-only extension" }
    // RFC 5280 4.2.1.9: keyCertSign only with cA; a subscriber certificate is not a CA
    // (CABF BR 7.1.2.7.8).
    switch leaf.keyUsageAssertsKeyCertSign {
    case .absent, .present(false, _): break
    case .malformed: return "the leaf's keyUsage does not decode"
    case .present(true, _): return "the leaf's keyUsage allows signing certificates (keyCertSign)"
    }
    switch leaf.basicConstraints {
    case .absent: break
    case .malformed: return "the leaf's basicConstraints does not decode"
    case .present(let constraints, _): if constraints.isCA { return "the leaf says it is a CA (CABF BR 7.1.2.7.8)" }
    }
    return nil
  }

  /// RFC 5280 4.1.2.2: a positive integer of at most 20 octets.
  private static func serialProblem(_ content: ArraySlice<UInt8>) -> String? {
    guard let first = content.first else { return "is empty" }
    if first & 0x80 != 0 { return "is negative" }
    let magnitude = content.drop { $0 == 0 }
    if magnitude.isEmpty { return "is zero" }
    if magnitude.count > 20 { return "is \(magnitude.count) octets long, more than 20" }
    return nil
  }
}

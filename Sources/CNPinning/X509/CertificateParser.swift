import Foundation

/// The parts of a certificate that CNPinning uses, located by a strict walk over its DER.
struct CertificateParser {
  enum CommonNameValue {
    case text(String)
    case undecodable(tag: UInt8, lossy: String)

    var display: String {
      switch self {
      case .text(let text): return text
      case .undecodable(_, let lossy): return lossy
      }
    }

    var strict: String? {
      if case .text(let text) = self { return text }
      return nil
    }
  }

  struct Parsed {
    var subject: Range<Int>
    var issuer: Range<Int>
    var subjectPublicKeyInfo: Range<Int>
    var publicKeyKind: CNPublicKeyKind
    var notBefore: Date
    var notAfter: Date
    var subjectCommonNames: [CommonNameValue]
    var issuerCommonNames: [CommonNameValue]
    /// The outer signatureAlgorithm element (OID and parameters).
    var signatureAlgorithm: Range<Int>
    /// The serial number's content bytes (two's complement, big-endian).
    var serialNumber: Range<Int>
    /// Each extension: its OID's content, whether it is critical, and its extnValue's content.
    var extensions: [CertificateExtension]
  }

  static let commonNameOID: [UInt8] = [0x55, 0x04, 0x03]

  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(CNCertificateError) -> Parsed {
    var top = DERReader(bytes, range: 0..<bytes.count)
    let certificate = try top.read(DERReader.sequence, "Certificate")
    try top.expectEnd("Certificate")

    var outer = top.reader(inside: certificate)
    let tbs = try outer.read(DERReader.sequence, "tbsCertificate")
    let signatureAlgorithm = try outer.read(DERReader.sequence, "signatureAlgorithm")
    try checkAlgorithm(signatureAlgorithm, bytes, "signatureAlgorithm")
    try checkBitString(try outer.read(DERReader.bitString, "signatureValue"), bytes, "signatureValue")
    try outer.expectEnd("Certificate")

    var fields = outer.reader(inside: tbs)
    if let version = try fields.readOptional(0xA0, "tbsCertificate.version") {
      var inner = fields.reader(inside: version)
      let number = try inner.read(DERReader.integer, "tbsCertificate.version")
      try inner.expectEnd("tbsCertificate.version")
      guard number.end - number.contentStart == 1, bytes[number.contentStart] <= 2 else {
        throw .invalidContent(field: "tbsCertificate.version", reason: "is not v1, v2 or v3")
      }
    }
    let serial = try fields.read(DERReader.integer, "tbsCertificate.serialNumber")
    guard serial.end > serial.contentStart else {
      throw .invalidContent(field: "tbsCertificate.serialNumber", reason: "is empty")
    }
    try checkAlgorithm(try fields.read(DERReader.sequence, "tbsCertificate.signature"), bytes, "tbsCertificate.signature")
    let issuer = try fields.read(DERReader.sequence, "tbsCertificate.issuer")
    let issuerCommonNames = try commonNames(in: issuer, bytes, "tbsCertificate.issuer")
    let validity = try fields.read(DERReader.sequence, "tbsCertificate.validity")
    var times = fields.reader(inside: validity)
    let notBefore = try readTime(&times, "tbsCertificate.validity.notBefore")
    let notAfter = try readTime(&times, "tbsCertificate.validity.notAfter")
    try times.expectEnd("tbsCertificate.validity")
    let subject = try fields.read(DERReader.sequence, "tbsCertificate.subject")
    let subjectCommonNames = try commonNames(in: subject, bytes, "tbsCertificate.subject")
    let spki = try fields.read(DERReader.sequence, "tbsCertificate.subjectPublicKeyInfo")
    var key = fields.reader(inside: spki)
    try checkAlgorithm(
      try key.read(DERReader.sequence, "subjectPublicKeyInfo.algorithm"), bytes, "subjectPublicKeyInfo.algorithm")
    try checkBitString(
      try key.read(DERReader.bitString, "subjectPublicKeyInfo.subjectPublicKey"), bytes,
      "subjectPublicKeyInfo.subjectPublicKey")
    try key.expectEnd("tbsCertificate.subjectPublicKeyInfo")
    // Keys of known types must be canonically encoded, so that the SPKI hash is the one the
    // openssl pipeline gives (OpenSSL re-encodes what it reads).
    let publicKeyKind = try CNPublicKeyKind.read(UnsafeBufferPointer(rebasing: bytes[spki.whole])).kind
    for (primitive, constructed) in [(UInt8(0x81), UInt8(0xA1)), (0x82, 0xA2)] {
      if fields.nextTag == primitive || fields.nextTag == constructed {
        _ = try fields.readAny("tbsCertificate.uniqueIdentifier")
      }
    }
    var extensionList: [CertificateExtension] = []
    if let extensions = try fields.readOptional(0xA3, "tbsCertificate.extensions") {
      extensionList = try readExtensions(extensions, fields)
    }
    try fields.expectEnd("tbsCertificate")

    return Parsed(
      subject: subject.whole, issuer: issuer.whole, subjectPublicKeyInfo: spki.whole, publicKeyKind: publicKeyKind,
      notBefore: notBefore, notAfter: notAfter,
      subjectCommonNames: subjectCommonNames, issuerCommonNames: issuerCommonNames,
      signatureAlgorithm: signatureAlgorithm.content, serialNumber: serial.content, extensions: extensionList)
  }

  /// AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }
  private static func checkAlgorithm(
    _ element: DERElement, _ bytes: UnsafeBufferPointer<UInt8>, _ field: String
  ) throws(CNCertificateError) {
    var inner = DERReader(bytes, range: element.content)
    let oid = try inner.read(DERReader.objectIdentifier, field)
    try checkObjectIdentifier(oid, bytes, field)
    if !inner.isAtEnd { _ = try inner.readAny(field) }
    try inner.expectEnd(field)
  }

  private static func checkObjectIdentifier(
    _ oid: DERElement, _ bytes: UnsafeBufferPointer<UInt8>, _ field: String
  ) throws(CNCertificateError) {
    guard oid.end > oid.contentStart, bytes[oid.end - 1] & 0x80 == 0 else {
      throw .invalidContent(field: field, reason: "has a malformed object identifier")
    }
  }

  private static func checkBitString(
    _ element: DERElement, _ bytes: UnsafeBufferPointer<UInt8>, _ field: String
  ) throws(CNCertificateError) {
    guard element.end > element.contentStart else {
      throw .invalidContent(field: field, reason: "is an empty BIT STRING")
    }
    let unusedBits = bytes[element.contentStart]
    guard unusedBits <= 7, unusedBits == 0 || element.end - element.contentStart > 1 else {
      throw .invalidContent(field: field, reason: "has an invalid unused-bits count")
    }
  }

  /// Extensions ::= SEQUENCE SIZE (1..MAX) OF SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }
  private static func readExtensions(_ wrapper: DERElement, _ parent: DERReader) throws(CNCertificateError)
    -> [CertificateExtension]
  {
    var result: [CertificateExtension] = []
    let field = "tbsCertificate.extensions"
    var outer = parent.reader(inside: wrapper)
    let list = try outer.read(DERReader.sequence, field)
    try outer.expectEnd(field)
    var entries = parent.reader(inside: list)
    guard !entries.isAtEnd else { throw .invalidContent(field: field, reason: "is an empty list") }
    while !entries.isAtEnd {
      let entry = try entries.read(DERReader.sequence, field)
      var parts = entries.reader(inside: entry)
      let oid = try parts.read(DERReader.objectIdentifier, field)
      try checkObjectIdentifier(oid, parent.bytes, field)
      var isCritical = false
      if let critical = try parts.readOptional(DERReader.boolean, field) {
        let value = critical.end - critical.contentStart == 1 ? parent.bytes[critical.contentStart] : 1
        guard value == 0x00 || value == 0xFF else {
          throw .invalidContent(field: field, reason: "has an invalid BOOLEAN")
        }
        isCritical = value == 0xFF
      }
      let value = try parts.read(DERReader.octetString, field)
      try parts.expectEnd(field)
      result.append(CertificateExtension(oid: oid.content, isCritical: isCritical, value: value.content))
    }
    return result
  }

  /// Name ::= SEQUENCE OF SET SIZE (1..MAX) OF SEQUENCE { type OBJECT IDENTIFIER, value ANY }
  private static func commonNames(
    in name: DERElement, _ bytes: UnsafeBufferPointer<UInt8>, _ field: String
  ) throws(CNCertificateError) -> [CommonNameValue] {
    var names: [CommonNameValue] = []
    var rdns = DERReader(bytes, range: name.content)
    while !rdns.isAtEnd {
      let rdn = try rdns.read(DERReader.set, field)
      var attributes = rdns.reader(inside: rdn)
      guard !attributes.isAtEnd else {
        throw .invalidContent(field: field, reason: "has an empty relative distinguished name")
      }
      while !attributes.isAtEnd {
        let attribute = try attributes.read(DERReader.sequence, field)
        var parts = attributes.reader(inside: attribute)
        let type = try parts.read(DERReader.objectIdentifier, field)
        try checkObjectIdentifier(type, bytes, field)
        let value = try parts.readAny(field)
        try parts.expectEnd(field)
        guard parts.contentEquals(type, commonNameOID) else { continue }
        let content = UnsafeBufferPointer(rebasing: bytes[value.content])
        if let text = DirectoryString.decode(tag: value.tag, content) {
          names.append(.text(text))
        } else {
          names.append(.undecodable(tag: value.tag, lossy: String(decoding: content, as: UTF8.self)))
        }
      }
    }
    return names
  }

  /// Time ::= CHOICE { utcTime UTCTime, generalTime GeneralizedTime }, in the DER forms
  /// YYMMDDHHMMSSZ and YYYYMMDDHHMMSSZ.
  private static func readTime(_ reader: inout DERReader, _ field: String) throws(CNCertificateError) -> Date {
    let element = try reader.readAny(field)
    let text = UnsafeBufferPointer(rebasing: reader.bytes[element.content])
    let invalid = CNCertificateError.invalidContent(field: field, reason: "is not a valid DER time")
    var year: Int
    var offset: Int
    switch (element.tag, text.count) {
    case (DERReader.utcTime, 13):
      guard let yy = digits(text, 0, 2) else { throw invalid }
      year = yy < 50 ? 2000 + yy : 1900 + yy
      offset = 2
    case (DERReader.generalizedTime, 15):
      guard let yyyy = digits(text, 0, 4) else { throw invalid }
      year = yyyy
      offset = 4
    case (DERReader.utcTime, _), (DERReader.generalizedTime, _):
      throw invalid
    default:
      throw .unexpectedTag(
        field: field, expected: "a UTCTime or GeneralizedTime", found: element.tag,
        offset: element.headerStart)
    }
    guard text[text.count - 1] == UInt8(ascii: "Z"),
      let month = digits(text, offset, 2), let day = digits(text, offset + 2, 2),
      let hour = digits(text, offset + 4, 2), let minute = digits(text, offset + 6, 2),
      let second = digits(text, offset + 8, 2),
      (1...12).contains(month), (1...CalendarMath.daysIn(month: month, year: year)).contains(day),
      hour < 24, minute < 60, second < 60
    else { throw invalid }
    let days = CalendarMath.daysSinceEpoch(year: year, month: month, day: day)
    return Date(timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + second))
  }

  private static func digits(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
    var value = 0
    for index in start..<(start + count) {
      let byte = text[index]
      guard byte >= 0x30, byte <= 0x39 else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }

}

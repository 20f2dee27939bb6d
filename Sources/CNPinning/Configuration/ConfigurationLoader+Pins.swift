import Foundation

/// Hash pins and the certificate files they may name.
extension ConfigurationLoader {
  /// Reads an array of hash pins: `{"sha256": base64, "appliesTo": leaf|ca|any}`, or — where
  /// `fromCertificate` is given — `{"file": path}` instead of `sha256`.
  mutating func loadPins<Pin>(
    _ value: ConfigValue, path: ConfigPath, make: (String, CNPinScope) throws(CNConfigurationError) -> Pin,
    fromCertificate: ((CNCertificate, CNPinScope, String) -> Pin)?
  ) -> [Pin]? {
    guard let entries = elements(of: value, at: path, expected: "an array of pins") else { return nil }
    guard !entries.isEmpty else {
      fail(path, .noPinsDefined)
      return nil
    }
    let problemsBefore = problems.count
    var pins: [Pin] = []
    for (index, entry) in entries.enumerated() {
      let entryPath = path.element(index)
      guard let members = self.members(of: entry, at: entryPath, expected: "a dictionary with \"sha256\"") else { continue }
      let allowed = fromCertificate == nil ? ["sha256", "appliesTo"] : Self.pinKeys
      for (key, _) in members where !allowed.contains(key) {
        fail(entryPath.member(key), .unknownKey(key, suggestion: Suggestion.closest(to: key, among: allowed)))
      }
      var scope = CNPinScope.any
      if let text = entry["appliesTo"] {
        if case .string(let name) = text, let parsed = CNPinScope(rawValue: name) {
          scope = parsed
        } else if case .string(let name) = text {
          fail(entryPath.member("appliesTo"), .invalidValue(name, reason: "is not one of leaf, ca, any"))
        } else {
          fail(entryPath.member("appliesTo"), .wrongType(expected: "a string", found: text.typeName))
        }
      }
      switch (entry["sha256"], entry["file"]) {
      case (.string(let digest)?, nil):
        do {
          pins.append(try make(digest, scope))
        } catch {
          fail(entryPath.member("sha256"), error)
        }
      case (nil, .string(let file)?) where fromCertificate != nil:
        if let certificate = loadCertificate(file, path: entryPath.member("file")) {
          pins.append(fromCertificate!(certificate, scope, file))
        }
      case (let digest?, nil):
        fail(entryPath.member("sha256"), .wrongType(expected: "a base64 string", found: digest.typeName))
      case (nil, let file?) where fromCertificate != nil:
        fail(entryPath.member("file"), .wrongType(expected: "a path string", found: file.typeName))
      case (nil, _?):
        // "file" is not allowed here (reported as an unknown key above), so sha256 is missing.
        fail(entryPath.member("sha256"), .missingValue("sha256"))
      case (nil, nil):
        fail(entryPath.member("sha256"), .missingValue(fromCertificate == nil ? "sha256" : "sha256 or file"))
      case (_?, _?):
        fail(entryPath, .invalidValue("sha256 and file", reason: "give one of them, not both"))
      }
    }
    return problems.count == problemsBefore ? pins : nil
  }

  mutating func loadCertificate(_ file: String, path: ConfigPath) -> CNCertificate? {
    let url = URL(fileURLWithPath: file, relativeTo: file.hasPrefix("/") ? nil : baseDirectory)
    guard FileManager.default.fileExists(atPath: url.path) else {
      fail(path, .unreadableCertificate(file, reason: "no such file"))
      return nil
    }
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      fail(path, .unreadableCertificate(file, reason: error.localizedDescription))
      return nil
    }
    do {
      // DER starts with a SEQUENCE tag; anything else is read as PEM.
      if data.first == 0x30 { return try CNCertificate(derEncoded: data) }
      return try CNCertificate(pemEncoded: String(decoding: data, as: UTF8.self))
    } catch {
      fail(path, .unreadableCertificate(file, reason: "\(error)"))
      return nil
    }
  }
}

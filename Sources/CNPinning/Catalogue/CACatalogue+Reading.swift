import Foundation

extension CACatalogue {
  /// A catalogue file that cannot be used, naming the element at fault:
  /// `operators[0].families[1].status: "current-ish" is not one of announced, current, …`.
  package struct ReadError: Error, Sendable, CustomStringConvertible {
    package let source: String
    package let path: String
    package let message: String
    package var description: String {
      path.isEmpty ? "\(source): \(message)" : "\(source): \(path): \(message)"
    }
  }

  /// The catalogue compiled into this build (`Generated/CACatalogueData.swift`, made from
  /// `catalogue/ca-catalogue.json` by `scripts/generate-catalogue.py`), read on first use. A test
  /// reads it and `make lint` checks it against the data file, so it cannot fail to read.
  package static let compiledIn: CACatalogue = {
    do {
      return try CACatalogue(json: CACatalogueData.json, source: "the compiled-in CA catalogue")
    } catch {
      preconditionFailure("\(error)")
    }
  }()

  /// Reads a catalogue file strictly: the format this reader knows, every key known, every value
  /// of its type, dates as YYYY-MM-DD, hashes as base64 SHA-256, and every name that refers to
  /// another (a shape's, an issuing CA's, a successor, an event's root or operator) resolved.
  package init(json: String, source: String) throws(ReadError) {
    let value: ConfigValue
    do {
      value = try StrictJSON.parse(Array(json.utf8))
    } catch {
      throw ReadError(source: source, path: "", message: "\(error)")
    }
    let reader = Reader(source: source)
    let top = try reader.dictionary(value, at: "", keys: ["format", "version", "date", "operators", "events"])
    let format = try reader.string(top["format"], at: "format")
    guard format == Self.format else {
      throw reader.error(at: "format", "\"\(format)\" is not \(Self.format), the format this cnpin reads")
    }
    version = try reader.string(top["version"], at: "version")
    date = try reader.date(top["date"], at: "date")
    operators = try reader.array(top["operators"], at: "operators") { value, path throws(ReadError) in
      try reader.operator(value, at: path)
    }
    events = try reader.array(top["events"], at: "events") { value, path throws(ReadError) in
      try reader.event(value, at: path)
    }
    self.json = json
    try reader.resolve(self)
  }
}

/// The strict reading of one catalogue document.
private struct Reader {
  let source: String

  func error(at path: String, _ message: String) -> CACatalogue.ReadError {
    CACatalogue.ReadError(source: source, path: path, message: message)
  }

  func dictionary(_ value: ConfigValue?, at path: String, keys: Set<String>, optional: Set<String> = [])
    throws(CACatalogue.ReadError) -> ConfigValue
  {
    guard let value, case .dictionary(let entries) = value else {
      throw error(at: path, "needs a dictionary, not \(value?.typeName ?? "nothing")")
    }
    for entry in entries where !keys.contains(entry.key) && !optional.contains(entry.key) {
      throw error(
        at: path, "unknown key \(VisibleText.quoted(entry.key)) (known: \(keys.union(optional).sorted().joined(separator: ", ")))"
      )
    }
    for key in keys.sorted() where value[key] == nil { throw error(at: path, "missing \"\(key)\"") }
    return value
  }

  func string(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError) -> String {
    guard case .string(let text)? = value, !text.isEmpty else {
      throw error(at: path, "needs a non-empty string, not \(value?.typeName ?? "nothing")")
    }
    return text
  }

  /// A string, or nil for `null`.
  func optionalString(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError) -> String? {
    if case .null? = value { return nil }
    return try string(value, at: path)
  }

  func strings(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError) -> [String] {
    try array(value, at: path) { value, path throws(CACatalogue.ReadError) in try string(value, at: path) }
  }

  /// YYYY-MM-DD, a real day.
  func date(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError) -> String {
    let text = try string(value, at: path)
    guard text.utf8.count == 10, ISO8601.date(from: text + "T00:00:00Z") != nil else {
      throw error(at: path, "\(VisibleText.quoted(text)) is not a day written YYYY-MM-DD")
    }
    return text
  }

  func optionalDate(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError) -> String? {
    if case .null? = value { return nil }
    return try date(value, at: path)
  }

  func array<Element>(
    _ value: ConfigValue?, at path: String, _ element: (ConfigValue, String) throws(CACatalogue.ReadError) -> Element
  ) throws(CACatalogue.ReadError) -> [Element] {
    guard case .array(let values)? = value else { throw error(at: path, "needs an array, not \(value?.typeName ?? "nothing")") }
    var result: [Element] = []
    for (index, value) in values.enumerated() { result.append(try element(value, "\(path)[\(index)]")) }
    return result
  }

  func choice<Choice: RawRepresentable & CaseIterable>(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError)
    -> Choice where Choice.RawValue == String
  {
    let text = try string(value, at: path)
    guard let choice = Choice(rawValue: text) else {
      throw error(
        at: path, "\(VisibleText.quoted(text)) is not one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return choice
  }

  /// Base64 of a SHA-256, or nil for `null` and a missing key.
  func hash(_ value: ConfigValue?, at path: String) throws(CACatalogue.ReadError) -> String? {
    guard let value else { return nil }
    if case .null = value { return nil }
    let text = try string(value, at: path)
    guard Data(base64Encoded: text)?.count == 32 else {
      throw error(at: path, "\(VisibleText.quoted(text)) is not a base64 SHA-256")
    }
    return text
  }

  func `operator`(_ value: ConfigValue, at path: String) throws(CACatalogue.ReadError) -> CACatalogue.Operator {
    let entry = try dictionary(value, at: path, keys: ["name", "families"])
    let name = try string(entry["name"], at: "\(path).name")
    let families = try array(entry["families"], at: "\(path).families") { value, path throws(CACatalogue.ReadError) in
      try family(value, of: name, at: path)
    }
    return CACatalogue.Operator(name: name, families: families)
  }

  func family(_ value: ConfigValue, of operatorName: String, at path: String) throws(CACatalogue.ReadError)
    -> CACatalogue.Family
  {
    let entry = try dictionary(
      value, at: path,
      keys: [
        "name", "keyType", "status", "since", "until", "successors", "note", "certificates", "issuing", "shapes",
      ])
    let keyType = try string(entry["keyType"], at: "\(path).keyType")
    guard keyType == "RSA" || keyType == "ECDSA" else { throw error(at: "\(path).keyType", "is RSA or ECDSA, not \(keyType)") }
    let family = CACatalogue.Family(
      operatorName: operatorName, name: try string(entry["name"], at: "\(path).name"), keyType: keyType,
      status: try choice(entry["status"], at: "\(path).status"), since: try optionalDate(entry["since"], at: "\(path).since"),
      until: try optionalDate(entry["until"], at: "\(path).until"),
      successors: try strings(entry["successors"], at: "\(path).successors"),
      note: try optionalString(entry["note"], at: "\(path).note"),
      certificates: try array(entry["certificates"], at: "\(path).certificates") { value, path throws(CACatalogue.ReadError) in
        try certificate(value, at: path)
      },
      issuing: try strings(entry["issuing"], at: "\(path).issuing"),
      shapes: try array(entry["shapes"], at: "\(path).shapes") { value, path throws(CACatalogue.ReadError) in
        let shape = try dictionary(value, at: path, keys: ["above", "stores"])
        return CACatalogue.Shape(
          above: try strings(shape["above"], at: "\(path).above"), stores: try string(shape["stores"], at: "\(path).stores"))
      })
    let names = Set(family.certificates.map(\.name))
    for (index, issuing) in family.issuing.enumerated() where !names.contains(issuing) {
      throw error(at: "\(path).issuing[\(index)]", "\(VisibleText.quoted(issuing)) is none of the family's certificates")
    }
    for (index, shape) in family.shapes.enumerated() {
      guard !shape.above.isEmpty else { throw error(at: "\(path).shapes[\(index)].above", "names no certificate") }
      for name in shape.above where !names.contains(name) {
        throw error(at: "\(path).shapes[\(index)].above", "\(VisibleText.quoted(name)) is none of the family's certificates")
      }
    }
    guard !family.issuing.isEmpty, !family.shapes.isEmpty else { throw error(at: path, "needs an issuing CA and a shape") }
    if family.status == .retiring || family.status == .retired, family.until == nil {
      throw error(at: "\(path).until", "a \(family.status.rawValue) family needs the day it stops issuing")
    }
    return family
  }

  func certificate(_ value: ConfigValue, at path: String) throws(CACatalogue.ReadError) -> CACatalogue.Certificate {
    let entry = try dictionary(
      value, at: path, keys: ["name", "role", "status", "source"],
      optional: ["spkiSHA256", "certificateSHA256", "pem", "validUntil"])
    return CACatalogue.Certificate(
      name: try string(entry["name"], at: "\(path).name"), role: try string(entry["role"], at: "\(path).role"),
      status: try choice(entry["status"], at: "\(path).status"),
      spkiSHA256: try hash(entry["spkiSHA256"], at: "\(path).spkiSHA256"),
      certificateSHA256: try hash(entry["certificateSHA256"], at: "\(path).certificateSHA256"),
      pem: try entry["pem"].map { value throws(CACatalogue.ReadError) in try string(value, at: "\(path).pem") },
      source: try string(entry["source"], at: "\(path).source"),
      validUntil: try entry["validUntil"].map { value throws(CACatalogue.ReadError) in try date(value, at: "\(path).validUntil") }
    )
  }

  func event(_ value: ConfigValue, at path: String) throws(CACatalogue.ReadError) -> CACatalogue.Event {
    let entry = try dictionary(value, at: path, keys: ["date", "stores", "kind", "operators", "roots", "summary", "source"])
    let event = CACatalogue.Event(
      date: try date(entry["date"], at: "\(path).date"), stores: try strings(entry["stores"], at: "\(path).stores"),
      kind: try choice(entry["kind"], at: "\(path).kind"), operators: try strings(entry["operators"], at: "\(path).operators"),
      roots: try strings(entry["roots"], at: "\(path).roots"), summary: try string(entry["summary"], at: "\(path).summary"),
      source: try string(entry["source"], at: "\(path).source"))
    guard (event.kind == .rootRemoved) == !event.roots.isEmpty else {
      throw error(at: "\(path).roots", "a rootRemoved event names the roots it removes, and only it does")
    }
    return event
  }

  /// The names that refer across entries: a successor to a family of the same operator, an
  /// event's operators and roots to the catalogue's.
  func resolve(_ catalogue: CACatalogue) throws(CACatalogue.ReadError) {
    for (operatorIndex, entry) in catalogue.operators.enumerated() {
      let names = Set(entry.families.map(\.name))
      for (familyIndex, family) in entry.families.enumerated() {
        for (index, successor) in family.successors.enumerated() where !names.contains(successor) || successor == family.name {
          throw error(
            at: "operators[\(operatorIndex)].families[\(familyIndex)].successors[\(index)]",
            "\(VisibleText.quoted(successor)) is no other family of \(entry.name)")
        }
      }
    }
    let operators = Set(catalogue.operators.map(\.name))
    let roots = Set(catalogue.families.flatMap(\.certificates).map(\.name))
    for (eventIndex, event) in catalogue.events.enumerated() {
      for name in event.operators where !operators.contains(name) {
        throw error(at: "events[\(eventIndex)].operators", "\(VisibleText.quoted(name)) is no operator of the catalogue")
      }
      for name in event.roots where !roots.contains(name) {
        throw error(at: "events[\(eventIndex)].roots", "\(VisibleText.quoted(name)) is no certificate of the catalogue")
      }
    }
  }
}

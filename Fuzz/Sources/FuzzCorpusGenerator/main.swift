import CNPinning
import CNPinningTestKit
import Foundation
import FuzzKit

// Writes small seed corpora for the fuzz targets, made by the test kit. Usage: FuzzCorpusGenerator DIR
// `FuzzCorpusGenerator render INPUT OUTPUT` writes the document that FuzzConfigurationStructure
// makes of INPUT, so that what it found can be kept as a regression input of the raw target
// (generator inputs change meaning when the generator changes; documents do not).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "render" {
  var input = FuzzInput([UInt8](try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[2]))))
  try Data(ConfigurationDocuments.generate(&input)).write(to: URL(fileURLWithPath: CommandLine.arguments[3]))
  exit(0)
}
let directory = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "Corpus")

func write(_ target: String, _ name: String, _ data: Data) throws {
  let folder = directory.appendingPathComponent(target)
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  try data.write(to: folder.appendingPathComponent(name))
}

let root = try TestIdentity.root("Fuzz Root X1")
let intermediate = try root.issueIntermediate("R11")
let leaves: [(String, TestIdentity)] = [
  ("p256-leaf", try intermediate.issueLeaf("api.example.com", dnsNames: ["api.example.com"], ipAddresses: ["127.0.0.1"])),
  ("rsa-root", try TestIdentity.root("RSA Root", keyType: .rsa2048)),
  ("ed25519-leaf", try root.issueLeaf("ed.example.com", keyType: .ed25519)),
  ("bmp-cn", try root.issue(TestCertificateSpec(subject: [.country("DE"), .commonName("Zürich", as: .bmpString)]))),
  ("no-cn", try root.issue(TestCertificateSpec(subject: [.organization("No CN")]))),
]
for (name, identity) in leaves { try write("FuzzCertificate", "\(name).der", Data(identity.certificate.derEncoded)) }
try write("FuzzCertificate", "intermediate.der", Data(intermediate.certificate.derEncoded))

let json =
  #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": true, "chainSet": [[{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "prefix", "value": "R"}, {"type": "suffix", "value": ".example.com"}]], "spkiPins": [{"sha256": "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=", "appliesTo": "ca"}], "expirationDate": "2030-01-01T00:00:00Z", "enforce": false}}}"#
try write("FuzzConfiguration", "config.json", Data(json.utf8))
let document = try CNPinningDocument(data: Data(json.utf8))
try write("FuzzConfiguration", "config.plist", document.encoded(as: .propertyList))
let binary = try PropertyListSerialization.data(
  fromPropertyList: try PropertyListSerialization.propertyList(from: document.encoded(as: .propertyList), format: nil),
  format: .binary, options: 0)
try write("FuzzConfiguration", "config.bplist", binary)
let ats =
  #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict><key>example.org</key><dict><key>NSIncludesSubdomains</key><true/><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=</string></dict><dict><key>SPKI-SHA256-BASE64</key><string>YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=</string></dict></array></dict></dict></dict></dict></plist>"#
try write("FuzzConfiguration", "ats.plist", Data(ats.utf8))

let payload =
  #"{"iat": 1799999000, "exp": 1800009000, "*": [[{"type": "exact", "value": "Corp Root"}, {"type": "suffix", "value": ".example.com"}]], "api.example.com": [[{"value": "A"}]]}"#
let signer = try CNPolicySigner(privateKeyPEM: try TestPrivateKey.generate(.p256).pemEncoded)
try write("FuzzPolicy", "token", Data([0]) + Data(try signer.sign(payload: Data(payload.utf8)).utf8))
try write("FuzzPolicy", "payload", Data([1]) + Data(payload.utf8))

for (index, host) in [
  "api.example.com", "EXAMPLE.com.", "[2001:db8::1]", "127.0.0.1", "xn--bcher-kva.example", "a_b.example.com",
].enumerated() {
  try write("FuzzHostName", "host\(index)", Data(host.utf8))
}
print("wrote seed corpora to \(directory.path)")

import CNPinning
import Foundation

// Let's Encrypt since 2026 (Generation Y), RSA and ECDSA, written root → leaf. A device verifies
// a chain from the first root its trust store carries, so one chain marks each root a store may
// start from (`mayBeAnchor`) and stands for every shape: RSA 4 or 3 certificates, ECDSA 5, 4 or 3.
// The leaf is pinned by the name it is valid for: Let's Encrypt's leaves may have no Common Name.
let host = "api.example.com"
let manager = try CNPinningManager(configuration: [
  host: CNConfiguration(includesSubdomains: false, [
    CNChain([
      CNChainLink(.prefixWithNumber, "ISRG Root X"),                     // ISRG Root X1
      CNChainLink(.exact, "Root YR", mayBeAnchor: true),                 // cross-signed by X1, or a root itself
      CNChainLink(.prefixWithNumber, "YR"),                              // YR1, YR2, YR3
      CNChainLink(.subjectAltName, host),                                // the leaf, valid for the host
    ]),
    CNChain([
      CNChainLink(.prefixWithNumber, "ISRG Root X"),                     // ISRG Root X1
      CNChainLink(.prefixWithNumber, "ISRG Root X", mayBeAnchor: true),  // ISRG Root X2, cross-signed by X1
      CNChainLink(.exact, "Root YE", mayBeAnchor: true),                 // cross-signed by X2, or a root itself
      CNChainLink(.prefixWithNumber, "YE"),                              // YE1, YE2, YE3
      CNChainLink(.subjectAltName, host),
    ]),
  ])
])

// The verified chain, leaf first, ending with the trust anchor, as PEM: what
// `cnpin pins api.example.com --format pem > chain.pem` prints, or your TLS stack's verified chain.
let chain = try CNCertificate.certificates(pemEncoded: String(contentsOfFile: "chain.pem", encoding: .utf8))

switch manager.evaluate(host: host, chain: chain) {
case .accepted(let match):
  print("accepted: the pins of \(match.domain) matched")
case .notPinned:
  print("not pinned: normal TLS validation decides")
case .rejected(let failure), .reportOnly(let failure):
  print(failure)  // which link failed on which certificate, and the chain that was presented
}

import CNPinning
import Foundation

// Let's Encrypt since 2026 (Generation Y), RSA and ECDSA, in both shapes a device verifies:
// through the cross-sign from ISRG Root X1 or X2 (four certificates) and, once its trust store
// carries the new roots, from Root YR or Root YE itself (three). Chains are written root → leaf.
let host = "api.example.com"
let manager = try CNPinningManager(configuration: [
  host: CNConfiguration(includesSubdomains: false, [
    CNChain([
      CNChainLink(.prefixWithNumber, "ISRG Root X"),  // ISRG Root X1 (RSA), X2 (ECDSA)
      CNChainLink(.exact, "Root YR"),                 // the Generation Y RSA root, cross-signed
      CNChainLink(.prefixWithNumber, "YR"),           // YR1, YR2, YR3
      CNChainLink(.exact, host),
    ]),
    CNChain([CNChainLink(.exact, "Root YR"), CNChainLink(.prefixWithNumber, "YR"), CNChainLink(.exact, host)]),
    CNChain([
      CNChainLink(.prefixWithNumber, "ISRG Root X"),
      CNChainLink(.exact, "Root YE"),                 // the Generation Y ECDSA root, cross-signed
      CNChainLink(.prefixWithNumber, "YE"),           // YE1, YE2, YE3
      CNChainLink(.exact, host),
    ]),
    CNChain([CNChainLink(.exact, "Root YE"), CNChainLink(.prefixWithNumber, "YE"), CNChainLink(.exact, host)]),
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

import CNPinning
// snippet.hide
let verifiedChainPEM = ""
// snippet.show

let manager = try CNPinningManager(configuration: [
  "api.example.com": CNConfiguration(includesSubdomains: false, [
    CNChain([                                      // written root → leaf
      CNChainLink(.prefixWithNumber, "ISRG Root X"),   // ISRG Root X1, X2, …
      CNChainLink(.prefixWithNumber, "R"),             // R10, R11, …
      CNChainLink(.exact, "api.example.com"),
    ])
  ])
])

// The verified chain from your TLS stack: leaf first, ending with the trust anchor.
let chain = try CNCertificate.certificates(pemEncoded: verifiedChainPEM)

switch manager.evaluate(host: "api.example.com", chain: chain) {
case .accepted(let match):
  print("accepted: the pins of \(match.domain) matched")
case .notPinned:
  print("not pinned: normal TLS validation decides")
case .rejected(let failure), .reportOnly(let failure):
  print(failure)  // which link failed on which certificate, and the chain that was presented
}

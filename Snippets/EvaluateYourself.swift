import CNPinning

// snippet.hide
let manager = try CNPinningManager(configuration: [:])
let verifiedChain: [CNCertificate] = []
// snippet.show
let result = manager.evaluate(host: "api.example.com", chain: verifiedChain)   // leaf first
if !result.allowsConnection { print(result) }

import CNPinning
import Testing

@Suite("Chains and configurations")
struct ModelTests {
  @Test func emptyChainIsRejected() {
    #expect(throws: CNConfigurationError(.emptyChain)) { try CNChain([]) }
  }

  @Test func emptyChainSetIsRejected() {
    #expect(throws: CNConfigurationError(.noChainsDefined)) { try CNConfiguration(includesSubdomains: true, []) }
  }

  @Test(arguments: [1, 2, 3])
  func repeatedChainIsRejectedWithItsIndex(_ duplicateIndex: Int) throws {
    var chains = try (0..<4).map { try CNChain([CNChainLink(.exact, "Root \($0)"), CNChainLink(.exact, "leaf")]) }
    chains[duplicateIndex] = chains[0]
    #expect(throws: CNConfigurationError(.duplicateChain(duplicateIndex))) { try CNConfiguration(chains) }
  }

  @Test func chainsKeepRootToLeafOrder() throws {
    let chain = try CNChain([
      CNChainLink(.prefixWithNumber, "ISRG Root X"), CNChainLink(.prefixWithNumber, "R"),
      CNChainLink(.exact, "austinsoft.com"),
    ])
    #expect(chain.links.map(\.value) == ["ISRG Root X", "R", "austinsoft.com"])
    #expect(chain.description == #"[prefixWithNumber "ISRG Root X" → prefixWithNumber "R" → exact "austinsoft.com"]"#)
  }

  @Test func sameLinksInAnotherOrderAreDifferentChains() throws {
    let a = try CNChain([CNChainLink(.exact, "A"), CNChainLink(.exact, "B")])
    let b = try CNChain([CNChainLink(.exact, "B"), CNChainLink(.exact, "A")])
    #expect(try CNConfiguration([a, b]).chains.count == 2)
  }

  @Test func errorsDescribeThemselves() {
    #expect(CNConfigurationError.Problem.duplicateChain(2).description == "chain 2 repeats an earlier chain")
    #expect(
      CNConfigurationError.Problem.unknownLinkType("prefx", suggestion: "prefix").description
        == #"unknown link type "prefx" (did you mean "prefix"?) (expected one of: exact, prefix, prefixWithNumber, suffix, subjectAltName)"#
    )
  }
}

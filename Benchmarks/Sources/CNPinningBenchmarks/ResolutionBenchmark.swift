import CNPinning

/// Host resolution with 100,000 configured hosts against 10, answering the same queries.
enum ResolutionBenchmark {
  static func run() throws -> Outcome {
    let configuration = try CNConfiguration(includesSubdomains: true, [CNChain([CNChainLink(.exact, "Root")])])
    let exactOnly = try CNConfiguration(includesSubdomains: false, [CNChain([CNChainLink(.exact, "Root")])])
    let common = (0..<10).map { "service\($0).example.com" }
    var small: [String: CNConfiguration] = [:]
    for (index, host) in common.enumerated() { small[host] = index % 2 == 0 ? configuration : exactOnly }
    var large = small
    for index in 0..<99_990 { large["host\(index).region\(index % 97).example.net"] = index % 3 == 0 ? exactOnly : configuration }
    let smallManager = try CNPinningManager(configuration: small)
    let largeManager = try CNPinningManager(configuration: large)

    var queries: [String] = []
    for host in common {
      queries += [host, "API.\(host)", "a.b.c.\(host).", "miss-\(host)", "deep.sub.domain.of.\(host)"]
    }
    queries += ["unrelated.example.org", "127.0.0.1", "[::1]", "x.example.com"]

    let (largeTime, smallTime) = Measure.sideBySide(
      iterations: 200,
      { for query in queries where largeManager.configuration(for: query) != nil { blackHole &+= 1 } },
      { for query in queries where smallManager.configuration(for: query) != nil { blackHole &+= 1 } })
    let perQuery = Double(queries.count)
    return Outcome(
      name: "resolution, 100,000 hosts vs 10 hosts",
      detail: "\(Measure.format(largeTime / perQuery)) vs \(Measure.format(smallTime / perQuery)) per lookup",
      ratio: largeTime / smallTime, target: 2.0)
  }
}

// The offline demonstration (`make demo`): a private PKI made on the spot, TLS servers on
// loopback, real pins, an accepted and a rejected connection (through CNPinnedSession and through
// a plain URLSession made with .cnPinned), and a lint finding. Its own
// executable, so that the shipped `cnpin` does not carry the test kit.
//
// Exit status 0 when every step behaved as expected, 1 otherwise.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningSession
import CNPinningTestKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
func write(_ data: Data) { FileHandle.standardOutput.write(data) }
func complain(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

func demo() async throws -> Bool {
  var unexpected: [String] = []
  func step(_ title: String) { say("\n== \(title)") }

  step("1. A private PKI, made now (nothing is read from disk or the network)")
  let root = try TestIdentity.root("CNPinning Demo Root X1")
  let issuing = try root.issueIntermediate("Demo Issuing CA R11")
  let leaf = try issuing.issueLeaf("api.demo.test", dnsNames: ["api.demo.test"])
  let rogueRoot = try TestIdentity.root("Rogue Root CA")
  let rogueLeaf = try rogueRoot.issueIntermediate("Rogue Issuing CA 7").issueLeaf("api.demo.test", dnsNames: ["api.demo.test"])
  say("genuine: CNPinning Demo Root X1 → Demo Issuing CA R11 → api.demo.test")
  say("rogue:   Rogue Root CA → Rogue Issuing CA 7 → api.demo.test (same host name, another CA)")

  let genuineServer = try LocalTLSServer.start(
    .init(identity: leaf) { request in .text("hello from the genuine server (\(request.target))") })
  let rogueServer = try LocalTLSServer.start(.init(identity: rogueLeaf) { _ in .text("the rogue server got your request") })
  defer {
    genuineServer.stop()
    rogueServer.stop()
  }
  say("servers: genuine on 127.0.0.1:\(genuineServer.port), rogue on 127.0.0.1:\(rogueServer.port)")

  // Both CAs are trusted, as a device with a corporate or mis-installed CA would trust them.
  var configuration = CNPinnedSessionConfiguration()
  configuration.trust = .customAnchors([root.certificate, rogueRoot.certificate])
  configuration.resolve = [CNHostOverride(host: "api.demo.test", port: genuineServer.port, address: "127.0.0.1")]
  configuration.timeoutIntervalForRequest = 10

  step("2. cnpin pins api.demo.test:\(genuineServer.port) — the verified chain, root → leaf")
  let probe = try CNPinnedSession(manager: nil, configuration: configuration)
  let event = try await probe.probe(host: "api.demo.test", port: genuineServer.port)
  let chain = Array(CertificateChain(leafFirst: event.verifiedChain).rootFirst)
  for certificate in chain { say(certificate.displayName) }
  say("(the server sent \(event.presentedChain.count) certificates; the root comes from the trust store)")
  if chain.count != 3 { unexpected.append("the verified chain has \(chain.count) certificates, not 3") }

  step("3. The configuration cnpin pins --format plist suggests")
  let pins = try SuggestedPins.configuration(shapes: [chain], host: "api.demo.test", includesSubdomains: false)
  write(Data(DocumentWriter.propertyListEntry(host: "api.demo.test", configuration: pins).utf8))
  let manager = try CNPinningManager(configuration: ["api.demo.test": pins])

  step("4. A pinned request to the genuine server")
  let session = try CNPinnedSession(manager: manager, configuration: configuration)
  do {
    let (data, response) = try await session.data(from: genuineServer.url("/status", hostName: "api.demo.test"))
    say("ACCEPTED: HTTP \(response.statusCode): \(String(decoding: data, as: UTF8.self))")
  } catch {
    unexpected.append("the genuine server was refused: \(error)")
    say("UNEXPECTED: \(error)")
  }

  step("5. The same request to the rogue server (its CA is trusted too)")
  var rogueConfiguration = configuration
  rogueConfiguration.resolve = [CNHostOverride(host: "api.demo.test", port: rogueServer.port, address: "127.0.0.1")]
  let attacked = try CNPinnedSession(manager: manager, configuration: rogueConfiguration)
  do {
    _ = try await attacked.data(from: rogueServer.url("/status", hostName: "api.demo.test"))
    unexpected.append("the rogue server was accepted")
    say("UNEXPECTED: the rogue server was accepted")
  } catch let error as CNPinnedSessionError where error.code == .pinMismatch {
    say("REJECTED before any request was sent: \(error)")
    if !rogueServer.requests.isEmpty { unexpected.append("the rogue server received a request") }
  } catch {
    unexpected.append("the rogue server failed for another reason: \(error)")
    say("UNEXPECTED: \(error)")
  }

  step("6. The same pins for code written against URLSession: only the configuration changes")
  let urlSession = URLSession(configuration: try .cnPinned(manager: manager, configuration: configuration))
  let attackedURLSession = URLSession(configuration: try .cnPinned(manager: manager, configuration: rogueConfiguration))
  do {
    let (data, response) = try await urlSession.data(from: genuineServer.url("/urlsession", hostName: "api.demo.test"))
    say("ACCEPTED: HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0): \(String(decoding: data, as: UTF8.self))")
    _ = try await attackedURLSession.data(from: rogueServer.url("/urlsession", hostName: "api.demo.test"))
    unexpected.append("URLSession reached the rogue server")
    say("UNEXPECTED: URLSession reached the rogue server")
  } catch let error as URLError where error.code == .serverCertificateUntrusted {
    say("REJECTED: URLError.serverCertificateUntrusted, because: \(error.userInfo[NSUnderlyingErrorKey] ?? "")")
  } catch {
    unexpected.append("URLSession failed for another reason: \(error)")
    say("UNEXPECTED: \(error)")
  }

  step("7. cnpin lint on that configuration")
  let document = try CNPinningDocument(configuration: ["api.demo.test": pins])
  let findings = CNConfigurationLinter.lint(document)
  for finding in findings { say(finding.description) }
  if !findings.contains(where: { $0.severity == .warning }) { unexpected.append("lint found no warning") }

  step("8. What CN pins cannot stop: a trusted root that copies the pinned names")
  // A TLS-inspection root or a user-installed CA can carry any names: same names, another key.
  let copycatRoot = try TestIdentity.root("CNPinning Demo Root X1")
  let copycatLeaf = try copycatRoot.issueIntermediate("Demo Issuing CA R11").issueLeaf(
    "api.demo.test", dnsNames: ["api.demo.test"])
  let copycatServer = try LocalTLSServer.start(.init(identity: copycatLeaf) { _ in .text("the copycat got your request") })
  defer { copycatServer.stop() }
  var copycatConfiguration = configuration
  copycatConfiguration.trust = .customAnchors([root.certificate, copycatRoot.certificate])
  copycatConfiguration.resolve = [CNHostOverride(host: "api.demo.test", port: copycatServer.port, address: "127.0.0.1")]
  say("copycat: CNPinning Demo Root X1 (another key) → Demo Issuing CA R11 → api.demo.test, its root trusted")
  let url = copycatServer.url("/status", hostName: "api.demo.test")
  do {
    _ = try await CNPinnedSession(manager: manager, configuration: copycatConfiguration).data(from: url)
    say("ACCEPTED by the CN chain alone: the names match, and CN pins cannot tell the keys apart")
  } catch {
    unexpected.append("the copycat was refused by CN pins alone (\(error)); they cannot tell it apart")
    say("UNEXPECTED: \(error)")
  }
  // CN chains plus the genuine root's SPKI pin: rotation-proof below the root, and key-bound at it.
  let hardened = try CNPinningManager(configuration: [
    "api.demo.test": try CNConfiguration(chains: pins.chains, spkiPins: [CNSPKIPin(certificate: root.certificate, scope: .ca)])
  ])
  do {
    _ = try await CNPinnedSession(manager: hardened, configuration: copycatConfiguration).data(from: url)
    unexpected.append("the copycat passed CN chains plus the root's SPKI pin")
    say("UNEXPECTED: the copycat passed CN chains plus the root's SPKI pin")
  } catch let error as CNPinnedSessionError where error.code == .pinMismatch {
    say("REJECTED with the genuine root's SPKI pin added: the copycat's root has another key")
  } catch {
    unexpected.append("the copycat failed for another reason: \(error)")
    say("UNEXPECTED: \(error)")
  }
  if !copycatServer.requests.dropFirst().isEmpty { unexpected.append("the copycat received a request it should not have") }

  say("")
  guard unexpected.isEmpty else {
    for problem in unexpected { complain("demo: \(problem)") }
    return false
  }
  say(
    "demo: every step behaved as expected (accepted genuine, rejected rogue, lint warned, copycat root passed CN pins and failed the SPKI pin)"
  )
  return true
}

do {
  exit(try await demo() ? 0 : 1)
} catch {
  complain("demo: the demo could not run: \(error)")
  exit(1)
}
#else
print("The demonstration's TLS servers need the Linux build (OpenSSL).")
#endif

// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The OkHttp export compiled by Debian's `kotlin` (1.3.31) against Debian's `libokhttp-java`
/// (OkHttp 3.13.1, the same `CertificatePinner.Builder().add(pattern, pins)` API as OkHttp 4 and 5)
/// and run against loopback servers (issue 65, item 3): the genuine server accepted, a rogue one
/// (trusted, same names, other keys) refused by the pins. Also: OkHttp 3.13 takes a `**.` pattern
/// and pins no host with it, which is why an export with subdomains says it needs OkHttp 4.3.
///
/// Runs with `make export-consumers`, which installs the packages (CI runs it); without
/// `CNPINNING_EXPORT_CONSUMERS=1` and the compiler it is skipped, saying why.
/// Debian's OkHttp 3.13.1.
private let okHttpJar = "/usr/share/java/okhttp.jar"

@Suite(
  "OkHttp reads the OkHttp export",
  .enabled(
    if: ProcessInfo.processInfo.environment["CNPINNING_EXPORT_CONSUMERS"] == "1"
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/kotlinc")
      && FileManager.default.fileExists(atPath: okHttpJar),
    "needs make export-consumers (Debian's kotlin and libokhttp-java)"))
struct OkHttpConsumerTests {
  static let okioJar = "/usr/share/java/okio.jar"

  /// Connects to https://api.example.com:PORT/ on 127.0.0.1 with the pinner of package `pins`
  /// (`A`, `B` or `C`), trusting the roots in a PEM file, and prints `OK body` or `REFUSED why`.
  static let main = #"""
    import java.io.FileInputStream
    import java.net.InetAddress
    import java.security.KeyStore
    import java.security.cert.CertificateFactory
    import java.security.cert.X509Certificate
    import javax.net.ssl.SSLContext
    import javax.net.ssl.TrustManagerFactory
    import javax.net.ssl.X509TrustManager
    import okhttp3.Dns
    import okhttp3.OkHttpClient
    import okhttp3.Request

    fun main(args: Array<String>) {
        val (which, port, roots) = args
        val store = KeyStore.getInstance(KeyStore.getDefaultType())
        store.load(null, null)
        CertificateFactory.getInstance("X.509").generateCertificates(FileInputStream(roots)).forEachIndexed { i, c ->
            store.setCertificateEntry("root$i", c as X509Certificate)
        }
        val factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm())
        factory.init(store)
        val trust = factory.trustManagers[0] as X509TrustManager
        val context = SSLContext.getInstance("TLS")
        context.init(null, arrayOf(trust), null)
        val pinner = when (which) { "A" -> pinsA.certificatePinner; "B" -> pinsB.certificatePinner; else -> pinsC.certificatePinner }
        val client = OkHttpClient.Builder()
            .sslSocketFactory(context.socketFactory, trust)
            .dns(object : Dns { override fun lookup(hostname: String) = listOf(InetAddress.getByName("127.0.0.1")) })
            .certificatePinner(pinner)
            .build()
        try {
            client.newCall(Request.Builder().url("https://api.example.com:$port/").build()).execute().use { response ->
                println("OK " + response.body()!!.string())
            }
        } catch (e: Exception) {
            println("REFUSED " + e.javaClass.simpleName + ": " + (e.message ?: "").lineSequence().first())
        }
    }
    """#

  @Test func okHttpEnforcesTheExportedPins() async throws {
    let directory = try TemporaryDirectory()
    let genuinePKI = try TestPKI(
      root: "Consumer Root X1", intermediate: "C11", leaf: "api.example.com", dnsNames: ["api.example.com"])
    let backupPKI = try TestPKI(
      root: "Backup Root X1", intermediate: "B11", leaf: "api.example.com", dnsNames: ["api.example.com"])
    let roguePKI = try TestPKI(
      root: "Consumer Root X1", intermediate: "C11", leaf: "api.example.com", dnsNames: ["api.example.com"])
    let sibling = try genuinePKI.intermediate.issueLeaf("api.example.com", dnsNames: ["api.example.com"])
    var servers: [String: LocalTLSServer] = [:]
    for (name, identity) in [
      ("genuine", genuinePKI.leaf), ("rogue", roguePKI.leaf), ("sibling", sibling),
    ] {
      servers[name] = try LocalTLSServer.start(.init(identity: identity) { _ in .text("hello from \(name)") })
    }
    defer { for server in servers.values { server.stop() } }
    // The client trusts all three roots (the rogue's copies the genuine root's name), so that
    // only the pins refuse; the export is resolved against the genuine two.
    let roots = try directory.file(
      "roots.pem", [genuinePKI, backupPKI, roguePKI].map { $0.root.certificate.pemEncoded }.joined())
    let pinnedRoots = try directory.file(
      "pinned-roots.pem", [genuinePKI, backupPKI].map { $0.root.certificate.pemEncoded }.joined())
    let intermediates = try directory.file(
      "intermediates.pem", [genuinePKI, backupPKI].map { $0.intermediate.certificate.pemEncoded }.joined())
    let chains =
      #"[[{"type": "exact", "value": "Consumer Root X1"}, {"type": "exact", "value": "C11"}, {"type": "subjectAltName", "value": "api.example.com"}], [{"type": "exact", "value": "Backup Root X1"}, {"type": "exact", "value": "B11"}, {"type": "subjectAltName", "value": "api.example.com"}]]"#
    let leafKey = genuinePKI.leaf.certificate.spkiSHA256Base64
    let configurations = [
      // A: CN chains, resolved to the CA keys given.
      "A": #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": \#(chains)}}}"#,
      // B: the same chains and two leaf keys: the leaf keys alone are exported.
      "B":
        #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": false, "chainSet": \#(chains), "spkiPins": [{"sha256": "\#(leafKey)", "appliesTo": "leaf"}, {"sha256": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=", "appliesTo": "leaf"}]}}}"#,
      // C: A with subdomains (leaves for any name below example.com): a **. pattern, which needs
      // OkHttp 4.3.
      "C":
        #"{"PinnedDomains": {"api.example.com": {"includesSubdomains": true, "chainSet": \#(chains.replacingOccurrences(of: #""value": "api.example.com""#, with: #""value": ".example.com""#))}}}"#,
    ]
    var sources: [String] = []
    for (name, configuration) in configurations.sorted(by: { $0.key < $1.key }) {
      let json = try directory.file("pins\(name).json", configuration)
      let kotlin = directory.url.appendingPathComponent("Pins\(name).kt").path
      let export = try await cnpin([
        "convert", json, "--to", "okhttp", "--cafile", pinnedRoots, "--chain", intermediates, "-o", kotlin,
      ])
      #expect(export.status == 0, "\(name): \(export.stderr)")
      let text = try String(contentsOfFile: kotlin, encoding: .utf8)
      #expect(text.contains("Needs OkHttp 4.3 or later") == (name == "C"), "\(text)")
      // The file as cnpin wrote it, in a package of its own so that three can be compiled together.
      try ("package pins\(name)\n" + text).write(toFile: kotlin, atomically: true, encoding: .utf8)
      sources.append(kotlin)
    }
    let main = try directory.file("Main.kt", Self.main)
    let jar = directory.url.appendingPathComponent("consumer.jar").path
    let classpath = "\(okHttpJar):\(Self.okioJar)"
    let compiled = try await run("/usr/bin/kotlinc", sources + [main, "-cp", classpath, "-include-runtime", "-d", jar])
    #expect(compiled.status == 0, "kotlinc: \(compiled.stderr)")

    func connect(_ pins: String, _ server: String) async throws -> String {
      let port = String(servers[server]!.port)
      let result = try await run("/usr/bin/java", ["-cp", "\(jar):\(classpath)", "MainKt", pins, port, roots])
      #expect(result.status == 0, "\(result.stderr)")
      return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(try await connect("A", "genuine") == "OK hello from genuine")
    let rogue = try await connect("A", "rogue")
    #expect(rogue.hasPrefix("REFUSED SSLPeerUnverifiedException: Certificate pinning failure!"), "\(rogue)")
    // Leaf keys beside the chains: the same CA's leaf with another key is refused, as CNPinning refuses it.
    #expect(try await connect("B", "genuine") == "OK hello from genuine")
    let siblingRefused = try await connect("B", "sibling")
    #expect(siblingRefused.hasPrefix("REFUSED SSLPeerUnverifiedException"), "\(siblingRefused)")
    // OkHttp 3.13 takes **.example.com and pins nothing with it: the rogue gets through, as the
    // file's header warns.
    #expect(try await connect("C", "rogue") == "OK hello from rogue")
  }
}
#endif

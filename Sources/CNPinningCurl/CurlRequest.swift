#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation

/// One request as libcurl is told it: plain values the session decided (what to send, where,
/// through which proxy, with which TLS settings), nothing libcurl or OpenSSL owns.
package struct CurlRequest: Sendable {
  /// The method, and the body's source.
  package enum Method: Sendable {
    case get
    case head
    /// POST, or another method with a body: its bytes, or streamed through the job's events
    /// (`CurlTransferEvents.sendBody`), of a known length or chunked.
    case withBody(name: String, body: Body)

    var isHEAD: Bool {
      if case .head = self { true } else { false }
    }
  }

  /// A request body: bytes in memory, or read as it is sent.
  package enum Body: Sendable {
    case bytes(Data)
    case streamed(length: Int?)
  }

  /// The proxy a request goes through.
  package struct Proxy: Sendable {
    /// libcurl's form: `http://host:port` or `https://host:port`.
    package let url: String
    package let host: String
    package let port: Int
    package let isHTTPS: Bool
    package let credentials: (user: String, password: String)?
    /// What an HTTPS proxy's certificate is verified against.
    package let trustStore: TrustStore?

    package init(
      url: String, host: String, port: Int, isHTTPS: Bool, credentials: (user: String, password: String)?,
      trustStore: TrustStore?
    ) {
      self.url = url
      self.host = host
      self.port = port
      self.isHTTPS = isHTTPS
      self.credentials = credentials
      self.trustStore = trustStore
    }
  }

  /// How a new connection to the origin is set up and verified.
  package struct TLS: Sendable {
    /// The most bytes the server's certificate list (and any one handshake message) may have:
    /// 1 MiB, the size of one certificate `CNCertificate` reads. OpenSSL's default, 100 KB,
    /// refused badssl.com's `10000-sans` leaf (about 300 KB), which browsers accept.
    package static let maximumCertificateListSize = 1 << 20

    /// What OpenSSL verifies the certificate for, and where the connection goes.
    package let host: String
    package let hostIsIPAddress: Bool
    package let port: Int
    package let trustStore: TrustStore
    package let minimumVersion: CNTLSVersion
    /// OpenSSL's security level 0 (old versions or weak certificates allowed for the host).
    package let lowersSecurityLevel: Bool
    /// Whether the ServerHello's version and a protocol_version alert are recorded (for the
    /// transport-security policy's reasons).
    package let recordsVersionMessages: Bool
    package let wantsPresentedChain: Bool
    /// Makes what a verified chain is kept as, with its TLS session (for resumption): the
    /// session's own object, handed back in ``CurlConnectionFacts/verified``.
    package let keepVerifiedChain: @Sendable (_ chain: [CNCertificate], _ presented: [CNCertificate]) -> AnyObject

    package init(
      host: String, hostIsIPAddress: Bool, port: Int, trustStore: TrustStore, minimumVersion: CNTLSVersion,
      lowersSecurityLevel: Bool, recordsVersionMessages: Bool, wantsPresentedChain: Bool,
      keepVerifiedChain: @escaping @Sendable ([CNCertificate], [CNCertificate]) -> AnyObject
    ) {
      self.host = host
      self.hostIsIPAddress = hostIsIPAddress
      self.port = port
      self.trustStore = trustStore
      self.minimumVersion = minimumVersion
      self.lowersSecurityLevel = lowersSecurityLevel
      self.recordsVersionMessages = recordsVersionMessages
      self.wantsPresentedChain = wantsPresentedChain
      self.keepVerifiedChain = keepVerifiedChain
    }
  }

  /// The URL libcurl connects to.
  package let url: String
  package let isHTTPS: Bool
  package let method: Method
  /// Header lines in curl's form ("Name: value", "Name;" for an empty value), in order.
  package let headerLines: [String]
  /// Header lines for the proxy alone; none without a proxy.
  package let proxyHeaderLines: [String]
  /// How long to connect or to wait for the next byte once the request is sent (nil: no limit).
  package let timeout: BoundedInterval?
  /// How long the whole exchange may take (nil: no limit).
  package let resourceTimeout: BoundedInterval?
  /// Whether HTTP/2 is offered.
  package let offersHTTP2: Bool
  /// Stop after the TLS handshake, sending no request (a probe).
  package let connectOnly: Bool
  package let proxy: Proxy?
  package let tls: TLS
  /// What the session takes for now: the time chains are verified at.
  package let clock: @Sendable () -> Date

  package init(
    url: String, isHTTPS: Bool, method: Method, headerLines: [String], proxyHeaderLines: [String], timeout: BoundedInterval?,
    resourceTimeout: BoundedInterval?, offersHTTP2: Bool, connectOnly: Bool, proxy: Proxy?, tls: TLS,
    clock: @escaping @Sendable () -> Date
  ) {
    self.url = url
    self.isHTTPS = isHTTPS
    self.method = method
    self.headerLines = headerLines
    self.proxyHeaderLines = proxyHeaderLines
    self.timeout = timeout
    self.resourceTimeout = resourceTimeout
    // Offered only where the loaded libcurl has it (`CurlVersion.loadedSupportsHTTP2`).
    self.offersHTTP2 = offersHTTP2 && CurlVersion.loadedSupportsHTTP2
    self.connectOnly = connectOnly
    self.proxy = proxy
    self.tls = tls
    self.clock = clock
  }
}

/// Why libcurl or OpenSSL could not be set up, in words.
package struct CurlSetupError: Error, Sendable {
  package let reason: String
  init(_ reason: String) { self.reason = reason }
}
#endif

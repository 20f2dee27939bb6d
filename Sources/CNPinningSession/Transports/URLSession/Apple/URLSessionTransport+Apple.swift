#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

extension URLSessionTransport {
  /// The transport of Apple platforms: the shared transport with Apple's URLSession and the
  /// delegates that answer server-trust challenges with Security's evaluation.
  convenience init(configuration: CNPinnedSessionConfiguration) throws(CNPinnedSessionError) {
    try self.init(
      configuration: configuration,
      makeSession: {
        let settings = configuration.transportURLSessionSettings()
        settings.tlsMinimumSupportedProtocolVersion = Self.protocolVersion(configuration)
        return URLSession(configuration: settings, delegate: RedirectRefusal(), delegateQueue: nil)
      },
      delegates: Delegates(
        task: { PinningTaskDelegate(challenges: $0, plan: $1) },
        stream: {
          PinningStreamDelegate(
            challenges: $0, upload: $1, channel: $2, limit: $3, progress: $4, translate: $5, respond: $6)
        },
        chunkStream: ChunkStreamWriter.stream))
  }

  /// The configured minimum as is (`urlSessionMinimumTLSVersion`, shared: always a TLS version).
  static func protocolVersion(_ configuration: CNPinnedSessionConfiguration) -> tls_protocol_version_t {
    tls_protocol_version_t(rawValue: configuration.urlSessionMinimumTLSVersion) ?? .TLSv12
  }
}
#endif

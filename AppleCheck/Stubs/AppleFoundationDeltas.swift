// What Apple's Foundation declares and swift-corelibs-foundation's FoundationNetworking (Swift
// 6.3.1) does not, for a type-check on Linux. Sources: Apple's Foundation documentation for
// URLProtectionSpace.serverTrust, URLCredential.init(trust:),
// NSURLAuthenticationMethodServerTrust and URLSessionConfiguration.tlsMinimumSupportedProtocolVersion
// (developer.apple.com/documentation/foundation/...); the absence on Linux was checked with
// swift-synthesize-interface on FoundationNetworking.
@_exported import Foundation
@_exported import FoundationNetworking
import Security

public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"
// Available on Apple platforms; FoundationNetworking marks it unavailable (no certificate
// authentication in swift-corelibs-foundation), so this module's, a nearer import, is the one seen.
public let NSURLAuthenticationMethodClientCertificate: String = "NSURLAuthenticationMethodClientCertificate"

extension URLProtectionSpace {
  public var serverTrust: SecTrust? { fatalError() }
}

extension URLCredential {
  public convenience init(trust: SecTrust) { fatalError() }
}

/// tls_protocol_version_t from Apple's Network framework (<Security/SecProtocolTypes.h>).
public enum tls_protocol_version_t: UInt16, Sendable {
  case TLSv10 = 0x0301, TLSv11 = 0x0302, TLSv12 = 0x0303, TLSv13 = 0x0304
}

extension URLSessionConfiguration {
  public var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t { get { fatalError() } set { fatalError() } }
}

/// The async forms Apple's SDK derives from the optional Objective-C requirements of
/// NSURLSessionTaskDelegate (developer.apple.com/documentation/foundation/urlsessiontaskdelegate:
/// urlSession(_:task:didReceive:) async and urlSession(_:task:willPerformHTTPRedirection:newRequest:)
/// async). Linux's protocol lacks them, so the check asserts each delegate against these: a method
/// that only nearly matches Apple's signature (a label, an optional, a type) fails to conform,
/// where on Apple it would silently never be called.
public protocol AppleAsyncTaskChallengeHandling {
  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
}

/// URLSessionTaskDelegate's urlSession(_:didCreateTask:) (iOS 16, macOS 13).
public protocol AppleTaskCreationHandling {
  func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask)
}

public protocol AppleAsyncRedirectHandling {
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest
  ) async -> URLRequest?
}

/// URLSessionDelegate's completion-handler form of the session-level challenge, with the
/// `@Sendable` handler of Apple's current declaration
/// (developer.apple.com/documentation/foundation/urlsessiondelegate/urlsession(_:didreceive:completionhandler:)),
/// which the seed's README implements.
public protocol AppleSessionChallengeHandling {
  func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
}

/// URLSession.bytes(for:delegate:) and URLSession.AsyncBytes
/// (developer.apple.com/documentation/foundation/urlsession/bytes(for:delegate:) and
/// .../urlsession/asyncbytes): an AsyncSequence of UInt8 with its data task. Not Sendable here,
/// as nothing in Apple's declaration says it is.
extension URLSession {
  public struct AsyncBytes: AsyncSequence {
    public typealias Element = UInt8
    public struct AsyncIterator: AsyncIteratorProtocol {
      public mutating func next() async throws -> UInt8? { fatalError() }
    }
    public var task: URLSessionDataTask { fatalError() }
    public func makeAsyncIterator() -> AsyncIterator { fatalError() }
  }

  public func bytes(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (
    AsyncBytes, URLResponse
  ) { fatalError() }
}

/// URLSessionDelegate's async session-level challenge (developer.apple.com/documentation/foundation/
/// urlsessiondelegate/urlsession(_:didreceive:)), which `URLSession.cnPinned`'s delegate implements.
public protocol AppleAsyncSessionChallengeHandling {
  func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
}

/// Stream.getBoundStreams(withBufferSize:inputStream:outputStream:) (Apple's Foundation
/// documentation, "Stream"; iOS 8, macOS 10.10): a pair whose output feeds its input. Apple
/// declares the two out-parameters as AutoreleasingUnsafeMutablePointer, which Linux lacks;
/// `&variable`, the way it is called, passes to both that and `inout`.
extension Stream {
  public class func getBoundStreams(
    withBufferSize bufferSize: Int, inputStream: inout InputStream?, outputStream: inout OutputStream?
  ) { fatalError() }
}

// Alamofire's public declarations that CNPinningAlamofire and its article's snippet use, recorded
// from Alamofire 5.12.0 (github.com/Alamofire/Alamofire, tag 5.12.0, commit
// 7595cbcf59809f9977c5f6378500de2ad73b7ddb, MIT) for a type-check on Linux against the Apple stubs
// (scripts/apple-check.sh). Names, labels, types, `open`/`public`, `throws` and `Sendable` are
// copied from the files named on each; bodies are `fatalError()`: nothing here runs, and nothing
// of Alamofire's code is here. Parameters with defaults that the code here never passes are left
// out (each such list says so); omitting them leaves every call that type-checks here valid there.
// A default value here only says that the parameter has one (Alamofire's may differ).
import Security

// Source/Features/AlamofireExtended.swift
public struct AlamofireExtension<ExtendedType> {
  public private(set) var type: ExtendedType
  public init(_ type: ExtendedType) { fatalError() }
}

public protocol AlamofireExtended {
  associatedtype ExtendedType
  static var af: AlamofireExtension<ExtendedType>.Type { get set }
  var af: AlamofireExtension<ExtendedType> { get set }
}

extension AlamofireExtended {
  public static var af: AlamofireExtension<Self>.Type {
    get { fatalError() }
    set {}
  }
  public var af: AlamofireExtension<Self> {
    get { fatalError() }
    set {}
  }
}

// Source/Features/ServerTrustEvaluation.swift
open class ServerTrustManager: @unchecked Sendable {
  public let allHostsMustBeEvaluated: Bool
  public let evaluators: [String: any ServerTrustEvaluating]
  public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) { fatalError() }
  open func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? { fatalError() }
}

public protocol ServerTrustEvaluating: Sendable {
  func evaluate(_ trust: SecTrust, forHost host: String) throws
}

public final class DefaultTrustEvaluator: ServerTrustEvaluating {
  public init(validateHost: Bool = true) { fatalError() }
  public func evaluate(_ trust: SecTrust, forHost host: String) throws { fatalError() }
}

extension SecTrust: AlamofireExtended {}
extension AlamofireExtension where ExtendedType == SecTrust {
  public func performDefaultValidation(forHost host: String) throws { fatalError() }
  public func performValidation(forHost host: String) throws { fatalError() }
}

// Source/Core/AFError.swift
public enum AFError: Error, Sendable {
  public enum ServerTrustFailureReason: Sendable {
    // Among its other cases (with SecTrust, SecPolicy and OSStatus payloads), these two:
    case noRequiredEvaluator(host: String)
    case customEvaluationFailed(error: any Error)
  }
  // Among its other cases:
  case serverTrustEvaluationFailed(reason: ServerTrustFailureReason)
}

// Source/Core/URLConvertible+URLRequestConvertible.swift
public protocol URLRequestConvertible: Sendable {
  func asURLRequest() throws -> URLRequest
}
extension URLRequest: URLRequestConvertible {
  public func asURLRequest() throws -> URLRequest { fatalError() }
}

// Source/Core/Session.swift
open class Session: @unchecked Sendable {
  public let serverTrustManager: ServerTrustManager?
  // Stands for the designated `init(session:delegate:rootQueue:…)`, which nothing here calls.
  init() { fatalError() }
  // Left out, each with a default: delegate, rootQueue, startRequestsImmediately, requestSetup,
  // requestQueue, serializationQueue, interceptor, redirectHandler, cachedResponseHandler, eventMonitors.
  public convenience init(configuration: URLSessionConfiguration = .default, serverTrustManager: ServerTrustManager? = nil) {
    fatalError()
  }
  // Left out, with a default: interceptor.
  open func request(_ convertible: any URLRequestConvertible, shouldAutomaticallyResume: Bool? = nil) -> DataRequest {
    fatalError()
  }
}

// Source/Core/Request.swift
public class Request: @unchecked Sendable {}

// Source/Core/DataRequest.swift
public class DataRequest: Request, @unchecked Sendable {}

// Source/Features/Concurrency.swift
public struct DataTask<Value>: Sendable where Value: Sendable {
  public var value: Value {
    get async throws { fatalError() }
  }
}
extension DataRequest {
  // Left out, each with a default: dataPreprocessor, emptyResponseCodes, emptyRequestMethods.
  public func serializingData(automaticallyCancelling shouldAutomaticallyCancel: Bool = true) -> DataTask<Data> {
    fatalError()
  }
}

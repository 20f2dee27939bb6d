// Apple's Security framework, as far as CNPinning's Apple glue uses it, for a type-check on Linux.
//
// Source of every signature: Swift's ClangImporter view of Apple's open-source Security headers
// (github.com/apple-oss-distributions/Security, tag Security-61901: SecTrust.h, SecCertificate.h,
// SecKey.h, SecPolicy.h, SecItem.h), printed with `swift-synthesize-interface`
// (../shared/apple-typecheck/Security.synth.swift is that print). Nullability, labels, argument
// and result types are copied from it; bodies are `fatalError()`: nothing here runs.
//
// CoreFoundation: Apple's CF types are toll-free bridged to Foundation classes; here they are
// aliases of those classes, so that `host as CFString`, `data as CFData` and `array as CFArray`
// type-check as they do on Apple. (A missing `as CFString` is therefore not caught.)
@_exported import Dispatch
@_exported import Foundation

public typealias CFString = NSString
public typealias CFData = NSData
public typealias CFArray = NSArray
public typealias CFDictionary = NSDictionary
public typealias CFError = NSError
public typealias CFTypeRef = AnyObject
public typealias CFIndex = Int
public typealias OSStatus = Int32
public final class CFAllocator {}

// CFError.h
public func CFErrorGetCode(_ err: CFError!) -> CFIndex { fatalError() }
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! { fatalError() }

// SecBase.h: opaque CF types. SecCertificate is Sendable in Apple's Swift overlay.
public final class SecTrust {}
public final class SecPolicy {}
public final class SecCertificate: @unchecked Sendable {}
public final class SecKey {}

// SecTrust.h
@discardableResult public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus { fatalError() }
@discardableResult public func SecTrustCopyPolicies(_ trust: SecTrust, _ policies: UnsafeMutablePointer<CFArray?>) -> OSStatus {
  fatalError()
}
@discardableResult public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
  fatalError()
}
@discardableResult public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
  fatalError()
}
// __attribute__((warn_unused_result)) in the header: not discardable.
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { fatalError() }
public typealias SecTrustWithErrorCallback = (SecTrust, Bool, CFError?) -> Void
@discardableResult public func SecTrustEvaluateAsyncWithError(
  _ trust: SecTrust, _ queue: DispatchQueue, _ result: @escaping SecTrustWithErrorCallback
) -> OSStatus { fatalError() }
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex { fatalError() }
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { fatalError() }

// SecPolicy.h
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy { fatalError() }

// SecCertificate.h
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { fatalError() }
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { fatalError() }

// SecKey.h
public func SecKeyCreateWithData(
  _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? { fatalError() }
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
  fatalError()
}
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { fatalError() }
public func SecKeyVerifySignature(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool { fatalError() }

/// SecKeyAlgorithm is a CFString enum (NS_TYPED_ENUM) in SecKey.h; the importer makes it a struct
/// with one static member per constant.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
  public let rawValue: CFString
  public init(rawValue: CFString) { self.rawValue = rawValue }
  public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(rawValue: "" as NSString)
  public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(rawValue: "" as NSString)
}

// SecItem.h: `extern const CFStringRef` constants, imported as global `let`s.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = ""
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = ""
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = ""
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = ""
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = ""
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = ""

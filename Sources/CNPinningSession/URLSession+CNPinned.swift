import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
  /// A URLSession whose requests are pinned by `manager`, the same call on every platform, so
  /// shared code needs no `#if`: on Linux through the pinned protocol
  /// (`URLSessionConfiguration.cnPinned(manager:configuration:)`), which judges every request;
  /// on Apple platforms through a session delegate that answers server-trust challenges with the
  /// shared decision (and `configuration`'s trust and unpinned-host rule), which judges every
  /// connection, so call `cnStartAfreshIfPinsChanged()` before requests there when the pins may
  /// change. Use per-task delegates for anything else the app needs to hear about.
  public static func cnPinned(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration = .default)
    throws -> URLSession
  {
    #if CNPINNING_LINUX_BACKEND
    return URLSession(configuration: try .cnPinned(manager: manager, configuration: configuration))
    #else
    return try applePinned(manager: manager, configuration: configuration)
    #endif
  }
}

#if CNPINNING_LINUX_BACKEND
extension URLSession {
  /// Returns at once on Linux: a URLSession from ``cnPinned(manager:configuration:)`` judges every
  /// request against the pins in force when it starts, so nothing needs to start afresh. Here so
  /// that code shared with Apple platforms, where it flushes the session after the pins changed,
  /// needs no `#if`.
  public func cnStartAfreshIfPinsChanged() async {}
}
#endif

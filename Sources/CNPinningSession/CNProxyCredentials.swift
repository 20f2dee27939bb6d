import Foundation

/// A user name and password for a proxy's Basic authentication.
public struct CNProxyCredentials: Sendable, Equatable, CustomStringConvertible {
  /// The user name.
  public let user: String
  /// The password; never printed.
  public let password: String

  /// Credentials for Basic authentication to the proxy.
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }

  /// The user name only: the password is never printed.
  public var description: String { "\(user):***" }
}

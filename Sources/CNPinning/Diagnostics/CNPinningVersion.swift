/// The version of the CNPinning package (semantic versioning; before 1.0 a minor release may
/// change the API, as CHANGELOG.md says).
public enum CNPinningVersion: Sendable {
  /// This release, as in CHANGELOG.md and `cnpin --version`.
  public static let current = "0.1.0"
}

import Testing

extension Tag {
  /// Tests of concurrency: parallel requests or evaluations, races, cancellation, shared
  /// connections and sessions. `make tsan` runs these under ThreadSanitizer.
  @Tag static var concurrency: Self
}

/// "Did you mean …?" for misspelled keys and link types.
package enum Suggestion {
  /// The candidate closest to `text` when it is plausibly a typo of it (at most two edits, or
  /// one per six characters of longer names, ignoring case), else nil.
  package static func closest(to text: String, among candidates: [String]) -> String? {
    let lowered = Array(text.lowercased().unicodeScalars)
    guard lowered.count <= 64 else { return nil }
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(lowered, Array(candidate.lowercased().unicodeScalars))
      if distance <= max(2, candidate.count / 6), distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.candidate
  }

  private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1] + [Int](repeating: 0, count: b.count)
      for (j, y) in b.enumerated() {
        current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}

import Foundation
import Testing

@testable import CNPinning

/// Base64url as JWS uses it, checked against Foundation's base64 on every length up to 64.
@Suite struct Base64URLTests {
  @Test func encodingMatchesFoundationWithoutPaddingInTheURLAlphabet() {
    var generator = SystemRandomNumberGenerator()
    for length in 0...64 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
      #expect(Base64URL.encode(bytes) == expected)
      #expect(Base64URL.decode(expected[...]) == bytes)
    }
  }

  @Test(arguments: [
    "QR",  // bits left over that are not zero: a second spelling of "QQ"
    "QQ==",  // padding
    "Q",  // a length no byte string has
    "QQ+/",  // the standard alphabet
    "QQ Q",  // whitespace
    "é",
  ])
  func nonCanonicalOrForeignTextIsRefused(_ text: String) {
    #expect(Base64URL.decode(text[...]) == nil)
  }
}

/// RSA public keys that verify signatures anyone could have made, refused when a policy-signing
/// key is read (RFC 8017 allows them; a verifier of enterprise policies must not).
enum WeakRSAKey {
  /// Why `numbers` must not verify policies, or nil. A public exponent below 65537, or even,
  /// is refused (with e = 1 every value is its own signature; 65537 is what every CA and library
  /// uses); so is a modulus with the ROCA fingerprint.
  static func problem(_ numbers: RSAPublicNumbers) -> String? {
    let exponent = numbers.exponent
    let isOdd = (exponent.last ?? 0) & 1 == 1
    let value = exponent.count <= 8 ? exponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : UInt64.max
    if value < 65537 || !isOdd {
      let shown = exponent.count <= 8 ? "\(value)" : "a \(exponent.count)-byte number"
      return "its public exponent is \(shown); an odd exponent of at least 65537 is required"
    }
    if hasROCAFingerprint(numbers.modulus) {
      return
        "its modulus has the fingerprint of keys made by Infineon's RSALib (ROCA, CVE-2017-15361), whose private keys can be computed from the public key"
    }
    return nil
  }

  /// RSALib's primes are k·M + (65537^a mod M), M the product of the first primes (the first 71
  /// for keys of 992 bits or more; Nemec et al., "The Return of Coppersmith's Attack", CCS 2017),
  /// so the modulus is a power of 65537 modulo each of them. A modulus that is not fails at the
  /// first such prime; a random one passes all 70 odd primes checked here with probability about
  /// 2⁻⁸³.
  static func hasROCAFingerprint(_ modulus: [UInt8]) -> Bool {
    guard !modulus.isEmpty else { return false }
    return rocaPrimes.allSatisfy { prime in
      let residue = modulus.reduce(0) { ($0 << 8 | Int($1)) % prime }
      var power = 65537 % prime
      for _ in 0..<prime {
        if power == residue { return true }
        power = power * (65537 % prime) % prime
      }
      return false
    }
  }

  /// The odd primes up to 353: the primes of RSALib's M for 992-bit and larger keys, without 2.
  static let rocaPrimes: [Int] = (3...353).filter { candidate in
    candidate % 2 == 1
      && (stride(from: 3, through: Int(Double(candidate).squareRoot()), by: 2).allSatisfy { candidate % $0 != 0 })
  }
}

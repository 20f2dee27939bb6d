// Names of 0.1 kept for one release, so that code written against it still compiles (with a
// warning that says the new name). They go before 1.0.

/// The 0.1 name of ``CNSignatureHash``.
@available(*, deprecated, renamed: "CNSignatureHash")
public typealias SignatureHash = CNSignatureHash

/// The 0.1 name of ``CNPublicKeyKind``.
@available(*, deprecated, renamed: "CNPublicKeyKind")
public typealias PublicKeyKind = CNPublicKeyKind

/// The 0.1 name of ``CNJWSAlgorithm``.
@available(*, deprecated, renamed: "CNJWSAlgorithm")
public typealias JWSAlgorithm = CNJWSAlgorithm

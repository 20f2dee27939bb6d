import CNPinningSession

var configuration = CNPinnedSessionConfiguration()
configuration.transportSecurity.exceptions = [
  "legacy.example.org": CNTransportSecurityException(
    includesSubdomains: true, allowsInsecureHTTPLoads: false, minimumTLSVersion: .tls11,
    requiresForwardSecrecy: false, allowsWeakCertificates: false)
]
// or: configuration.transportSecurity = .disabled

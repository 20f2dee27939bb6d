// The session's public value types (configuration, errors, trust, proxies, events) live in the
// platform-neutral core so that every part of the session can use them; `import CNPinningSession`
// brings them as before.
@_exported import CNPinningSessionCore

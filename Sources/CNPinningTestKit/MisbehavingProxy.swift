// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
internal import CNPinningShims
@_spi(Locking) import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A forward proxy on the loopback interface that opens CONNECT tunnels and, on the first tunnel
/// asked of it, commits its fault; later tunnels are relayed faithfully (so a test can show the
/// client recovers). One thread per connection; `stop()` (or releasing it) ends them all.
// Unchecked Sendable: its state is behind locks; the listener is set in init and closed once by stop.
public final class MisbehavingProxy: @unchecked Sendable {
  public enum Fault: String, Sendable, CaseIterable {
    /// Answers CONNECT with bytes that are not HTTP.
    case answersGarbage
    /// Refuses the tunnel with 403.
    case refusesTunnel
    /// Opens the tunnel, then closes both sides once 64 KiB have gone to the client.
    case diesMidTunnel
  }

  public let fault: Fault
  public let port: Int
  private let listener: Int32
  private let state = Locked(State())
  private let threads = DispatchGroup()

  private struct State {
    var stopped = false
    var faultCommitted = false
    var sockets: Set<Int32> = []
  }

  public init(fault: Fault) throws {
    self.fault = fault
    (listener, port) = try LoopbackPort.listen()
    threads.enter()
    Thread { [self] in
      ThreadName.setCurrent("Proxy-\(port)")
      acceptLoop()
      threads.leave()
    }.start()
  }

  deinit { stop() }

  /// Closes every socket and waits for the proxy's threads.
  public func stop() {
    let sockets = state.withLock { state -> Set<Int32>? in
      guard !state.stopped else { return nil }
      state.stopped = true
      return state.sockets
    }
    guard let sockets else { return }
    for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
    _ = threads.wait(timeout: .now() + 15)
    close(listener)
  }

  private var isStopped: Bool { state.withLock { $0.stopped } }

  private func acceptLoop() {
    LoopbackPort.acceptConnections(
      on: listener, threads: threads, isStopped: { isStopped }, admit: { track($0) },
      serve: { [self] client in
        serve(client)
        untrack(client)
      })
  }

  private func track(_ socket: Int32) -> Bool {
    state.withLock { state in
      guard !state.stopped else { return false }
      state.sockets.insert(socket)
      return true
    }
  }

  private func untrack(_ socket: Int32) {
    state.withLock { _ = $0.sockets.remove(socket) }
  }

  private func serve(_ client: Int32) {
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard let (host, port) = readConnect(client) else { return }
    let faulty = state.withLock { state in
      defer { state.faultCommitted = true }
      return !state.faultCommitted
    }
    if faulty, fault == .answersGarbage {
      send(client, Array("\u{1}\u{2}garbage, not HTTP\r\n\r\n".utf8))
      return
    }
    if faulty, fault == .refusesTunnel {
      send(client, Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8))
      return
    }
    guard host == "127.0.0.1", let origin = try? LoopbackPort.connect(port: port) else {
      send(client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
      return
    }
    guard track(origin) else {
      close(origin)
      return
    }
    defer {
      untrack(origin)
      close(origin)
    }
    send(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
    relay(client, origin, cutAfter: faulty && fault == .diesMidTunnel ? 64 * 1024 : nil)
  }

  /// Reads the CONNECT request's head; its target's host and port.
  private func readConnect(_ client: Int32) -> (String, Int)? {
    var head: [UInt8] = []
    var byte: UInt8 = 0
    while head.count < 8192, head.suffix(4) != [13, 10, 13, 10] {
      guard recv(client, &byte, 1, 0) == 1 else { return nil }
      head.append(byte)
    }
    let parts = String(decoding: head, as: UTF8.self).split(separator: " ")
    guard parts.count >= 2, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
      let port = Int(parts[1][parts[1].index(after: colon)...])
    else { return nil }
    return (String(parts[1][..<colon]), port)
  }

  /// Copies bytes both ways until either side closes (or, with `cutAfter`, until that many have
  /// gone to the client).
  private func relay(_ client: Int32, _ origin: Int32, cutAfter limit: Int?) {
    var toClient = 0
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while !isStopped {
      var descriptors = [
        pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: origin, events: Int16(POLLIN), revents: 0),
      ]
      guard poll(&descriptors, 2, 1000) >= 0 else { return }
      for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
        let from = index == 0 ? client : origin
        let to = index == 0 ? origin : client
        let count = recv(from, &buffer, buffer.count, 0)
        guard count > 0 else { return }
        send(to, Array(buffer[..<count]))
        if from == origin {
          toClient += count
          if let limit, toClient >= limit { return }
        }
      }
    }
  }

  private func send(_ socket: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard sent > 0 else { return }
      offset += sent
    }
  }
}
#endif

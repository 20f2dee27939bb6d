#if CNPINNING_LINUX_BACKEND
internal import CCurl
internal import CNPinningCurlShims
import CNPinning
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// libcurl's multi handle, driven through `curl_multi_socket_action` by an epoll set this object
/// owns: libcurl says which sockets it wants watched and when its timer is due (its socket and
/// timer callbacks, which only record that), and the driver waits for exactly those, plus one
/// wake-up descriptor that other threads signal.
///
/// Why not `curl_multi_perform` and `curl_multi_poll`: in libcurl 7.88, a `curl_multi_perform`
/// pass that starts a transfer advances the pass's clock, and at the end of the pass discards
/// every timer due before that clock, including the "run now" timers HTTP/2 sets for a stream
/// whose data another stream's read just buffered. That stream then waits, its data already off
/// the socket, until the poll times out: the one-second stalls of HTTP/2 fan-out.
/// `curl_multi_socket_action` runs every timer it takes off its list.
///
/// Touched only by the session's driver (``CurlMultiLoop``: its network thread, or a requesting
/// thread that borrowed it), except `wakeDescriptor`, which any thread may signal.
// Its driver-only variables are @exclusivity(unchecked) (docs/decisions/session-linux.md, "No runtime exclusivity checks on the driver's variables").
final class CurlEventDriver {
  let multi: UnsafeMutableRawPointer
  private let epoll: Int32
  /// What the socket callback asked for since the set was last brought up to date, per socket.
  @exclusivity(unchecked) private var requested: [Int32: Int32] = [:]
  /// When libcurl's timer is due (uptime nanoseconds); nil when it has none.
  @exclusivity(unchecked) private var timerDeadline: UInt64?
  @exclusivity(unchecked) private var ready = [cnp_ready_socket](repeating: cnp_ready_socket(), count: 64)

  /// A multi handle keeping at most `maximumConnections` connections open (idle ones), and at
  /// most `maximumConnectionsPerHost` to one host at once, and an epoll set that also watches
  /// `wakeDescriptor`.
  init(maximumConnections: Int, maximumConnectionsPerHost: Int, wakeDescriptor: Int32) throws(CurlSetupError) {
    guard let multi = curl_multi_init() else { throw CurlSetupError("libcurl cannot be initialised") }
    let epoll = cnp_epoll_create()
    guard epoll >= 0, cnp_epoll_watch(epoll, wakeDescriptor, CURL_POLL_IN) == 0,
      cnp_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maximumConnections) == CURLM_OK,
      cnp_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maximumConnectionsPerHost) == CURLM_OK
    else {
      if epoll >= 0 { Glibc.close(epoll) }
      curl_multi_cleanup(multi)
      throw CurlSetupError("cannot set up the network thread's event set")
    }
    self.multi = multi
    self.epoll = epoll
    let context = Unmanaged.passUnretained(self).toOpaque()
    guard cnp_curl_multi_setopt_socket_callback(multi, recordSocketInterest, context) == CURLM_OK,
      cnp_curl_multi_setopt_timer_callback(multi, recordTimer, context) == CURLM_OK
    else {
      Glibc.close(epoll)
      curl_multi_cleanup(multi)
      throw CurlSetupError("libcurl refused the event callbacks")
    }
  }

  /// Closes every connection and the event set. The callbacks are removed first: nothing
  /// libcurl does from here on reaches this object.
  func close() {
    _ = cnp_curl_multi_setopt_socket_callback(multi, nil, nil)
    _ = cnp_curl_multi_setopt_timer_callback(multi, nil, nil)
    curl_multi_cleanup(multi)
    Glibc.close(epoll)
  }

  /// Whether libcurl's timer is due now.
  private var timerIsDue: Bool {
    guard let timerDeadline else { return false }
    return timerDeadline <= Uptime.nanoseconds
  }

  /// Runs libcurl's timer if it is due (a transfer just added, or resumed, sets it to now).
  func runDueTimer() {
    guard timerIsDue else { return }
    timerDeadline = nil
    var running: Int32 = 0
    _ = curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
  }

  /// Whether libcurl has a timer set (due or not).
  var hasTimer: Bool { timerDeadline != nil }

  /// Waits until a watched socket is ready, libcurl's timer is due, the wake-up descriptor is
  /// signalled (a signal is reset here) or `deadline` (uptime nanoseconds) has come, whichever is
  /// first; lets libcurl act on each ready socket and then on its timer if due.
  func waitAndAct(wakeDescriptor: Int32, until deadline: UInt64? = nil) {
    updateWatchedSockets()
    let now = Uptime.nanoseconds
    var timeout: Int64 = -1
    for end in [timerDeadline, deadline] {
      guard let end else { continue }
      let remaining = end <= now ? 0 : Int64(clamping: end - now)
      timeout = timeout < 0 ? remaining : min(timeout, remaining)
    }
    let count = ready.withUnsafeMutableBufferPointer { cnp_epoll_wait(epoll, timeout, $0.baseAddress, Int32($0.count)) }
    for index in 0..<max(0, Int(count)) {
      let socket = ready[index]
      if socket.fd == wakeDescriptor {
        cnp_eventfd_reset(wakeDescriptor)
        continue
      }
      var running: Int32 = 0
      _ = curl_multi_socket_action(multi, socket.fd, socket.events, &running)
    }
    runDueTimer()
  }

  /// Brings the epoll set up to date with what libcurl asked for since the last wait.
  private func updateWatchedSockets() {
    guard !requested.isEmpty else { return }
    for (socket, what) in requested { _ = cnp_epoll_watch(epoll, socket, what) }
    requested.removeAll(keepingCapacity: true)
  }

  // MARK: - Called from libcurl's callbacks (the driver's thread)

  fileprivate func record(socket: Int32, wants what: Int32) { requested[socket] = what }

  fileprivate func record(timeout milliseconds: Int) {
    // libcurl's timeouts are capped at a year (see the transfer options), so this cannot overflow.
    guard milliseconds >= 0 else {
      timerDeadline = nil
      return
    }
    let capped = UInt64(min(milliseconds, 366 * 24 * 3_600_000))
    timerDeadline = Uptime.nanoseconds + capped * 1_000_000
  }
}

// MARK: - libcurl's multi callbacks: they capture nothing and only record what libcurl asked for.

private let recordSocketInterest: cnp_curl_socket_callback = { _, socket, what, context, _ in
  guard let context else { return -1 }
  Unmanaged<CurlEventDriver>.fromOpaque(context).takeUnretainedValue().record(socket: socket, wants: what)
  return 0
}

private let recordTimer: cnp_curl_timer_callback = { _, milliseconds, context in
  guard let context else { return -1 }
  Unmanaged<CurlEventDriver>.fromOpaque(context).takeUnretainedValue().record(timeout: milliseconds)
  return 0
}
#endif

#if CNPINNING_LINUX_BACKEND
internal import CCurl
internal import CNPinningCurlShims

#if canImport(Glibc)
import Glibc
#endif

/// The kernel and libcurl objects a ``CurlMultiLoop`` is made of, made together or not at all: a
/// failure part-way frees what was made before it. The loop frees them when it stops.
struct CurlLoopResources {
  private static let globalInitialisation: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

  let driver: CurlEventDriver
  /// TLS sessions and DNS answers shared by the loop's easy handles.
  let share: UnsafeMutableRawPointer
  /// The sockets of the session's connections (`CurlMultiLoop.sockets`).
  let sockets: OpaquePointer
  /// Eventfds: ``wakeDescriptor`` ends the driver's wait (it is in the epoll set);
  /// ``parkDescriptor`` wakes the parked network thread.
  let wakeDescriptor: Int32
  let parkDescriptor: Int32

  init(maximumConnections: Int, maximumConnectionsPerHost: Int) throws(CurlSetupError) {
    guard Self.globalInitialisation == CURLE_OK else {
      throw CurlSetupError("libcurl cannot be initialised")
    }
    let wakeDescriptor = cnp_eventfd_create()
    let parkDescriptor = cnp_eventfd_create()
    func closeDescriptors() {
      for descriptor in [wakeDescriptor, parkDescriptor] where descriptor >= 0 { Glibc.close(descriptor) }
    }
    guard wakeDescriptor >= 0, parkDescriptor >= 0 else {
      closeDescriptors()
      throw CurlSetupError("cannot create the network thread's wake-ups")
    }
    let driver: CurlEventDriver
    do throws(CurlSetupError) {
      driver = try CurlEventDriver(
        maximumConnections: maximumConnections, maximumConnectionsPerHost: maximumConnectionsPerHost,
        wakeDescriptor: wakeDescriptor)
    } catch {
      closeDescriptors()
      throw error
    }
    guard let share = curl_share_init(),
      cnp_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue)) == CURLSHE_OK,
      cnp_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue)) == CURLSHE_OK
    else {
      driver.close()
      closeDescriptors()
      throw CurlSetupError("libcurl cannot share TLS sessions")
    }
    guard let sockets = cnp_socket_registry_create() else {
      driver.close()
      curl_share_cleanup(share)
      closeDescriptors()
      throw CurlSetupError("cannot allocate the socket registry")
    }
    self.driver = driver
    self.share = share
    self.sockets = sockets
    self.wakeDescriptor = wakeDescriptor
    self.parkDescriptor = parkDescriptor
  }
}
#endif

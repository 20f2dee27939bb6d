// snippet.hide
import CNPinning
import CNPinningSession
import Foundation

let manager = try CNPinningManager(contentsOf: URL(fileURLWithPath: "pins.json"))
// snippet.show
let reporter = CNPinningReporter { report in print("pin failure: \(report.host): \(report.reason)") }
var configuration = CNPinnedSessionConfiguration()
configuration.failureReporter = reporter
let session = try CNPinnedSession(manager: manager, configuration: configuration)

import SwiftUI

/// The app: one window with the pinned-request test.
@main
struct TestCNPinningApp: App {
  var body: some Scene {
    WindowGroup { ContentView() }
  }
}

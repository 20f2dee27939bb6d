// Reads FoundationNetworking's internals, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
@testable import CNPinningSession
@testable import CNPinningCurl
import Foundation
import FoundationNetworking
import Testing

/// Every piece of FoundationNetworking's internals the pinned URLSession protocol relies on, read
/// on this toolchain's Foundation: a toolchain that stores them differently fails here, by name,
/// rather than in a pinned request.
@Suite("FoundationNetworking internals")
struct TaskInternalsTests {
  final class Delegate: NSObject, URLSessionDataDelegate {}

  static let url = URL(string: "https://api.test/")!

  @Test func aTasksWorkQueueAndSessionAreRead() throws {
    let session = URLSession(configuration: .ephemeral)
    let task = session.dataTask(with: Self.url)
    let reading = try #require(try TaskInternals.reading(of: task), "URLSessionTask.workQueue, .session, .knownBody")
    #expect(reading.session === session, "URLSessionTask.session")
  }

  /// Where each property sits is remembered per class: tasks of different classes (an upload
  /// task's properties sit one superclass further up), read in turn and again, each get their own.
  @Test func tasksOfEveryClassAreReadAgain() throws {
    let session = URLSession(configuration: .ephemeral)
    var request = URLRequest(url: Self.url)
    request.httpMethod = "PUT"
    let tasks = [
      session.dataTask(with: Self.url), session.uploadTask(with: request, from: Data("up".utf8)),
      session.downloadTask(with: Self.url), session.dataTask(with: Self.url),
    ]
    var queues: [ObjectIdentifier: DispatchQueue] = [:]
    for round in 0..<2 {
      for task in tasks {
        let reading = try #require(try TaskInternals.reading(of: task), "round \(round): \(type(of: task))")
        #expect(reading.session === session, "round \(round): \(type(of: task))")
        let known = queues[ObjectIdentifier(task), default: reading.workQueue]
        #expect(known === reading.workQueue, "round \(round): the same task's work queue again")
        queues[ObjectIdentifier(task)] = reading.workQueue
        if task is URLSessionUploadTask {
          guard case .data(let data)? = reading.body else {
            Issue.record("round \(round): the upload task's body")
            continue
          }
          #expect(data == Data("up".utf8))
        } else {
          #expect(reading.body == nil, "round \(round): \(type(of: task))")
        }
      }
    }
    #expect(Set(queues.values.map(ObjectIdentifier.init)).count == tasks.count, "each task has a work queue of its own")
  }

  @Test func whetherATasksDataGoesToADelegateIsRead() throws {
    let delegated = URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: nil)
    let withDelegate = delegated.dataTask(with: Self.url)
    let withHandler = delegated.dataTask(with: Self.url) { _, _, _ in }
    for (task, expected) in [(withDelegate, true), (withHandler, false)] {
      let queue = try #require(try TaskInternals.reading(of: task)?.workQueue)
      #expect(
        queue.sync { TaskInternals.hasDataDelegate(task, of: delegated) } == expected, "URLSession.taskRegistry.behaviours")
    }
  }

  @Test func anUploadTasksBodyIsRead() throws {
    let session = URLSession(configuration: .ephemeral)
    var request = URLRequest(url: Self.url)
    request.httpMethod = "POST"
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("task-internals-\(UUID().uuidString)")
    try Data("file".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    guard case .data(let data)? = try TaskInternals.reading(of: session.uploadTask(with: request, from: Data("bytes".utf8)))?.body
    else {
      Issue.record("URLSessionTask.knownBody: .data")
      return
    }
    #expect(data == Data("bytes".utf8))
    guard case .file(let url)? = try TaskInternals.reading(of: session.uploadTask(with: request, fromFile: file))?.body else {
      Issue.record("URLSessionTask.knownBody: .file")
      return
    }
    #expect(url == file)
    let none = try #require(try TaskInternals.reading(of: session.dataTask(with: Self.url)))
    #expect(none.body == nil, "URLSessionTask.knownBody: none")
  }

  /// Configurations that compare equal share a session, so `==` must weigh every setting: one it
  /// left out would let a configuration that differs in it get another's session (its trust, its
  /// unpinned-host rule). A new stored property fails here until `==` compares it.
  @Test func configurationEqualityWeighsEverySetting() {
    let compared: Set<String> = [
      "trust", "unpinnedHosts", "transportSecurity", "timeoutIntervalForRequest",
      "timeoutIntervalForResource", "maximumResponseBodySize", "maximumDownloadSize", "followsRedirects", "maximumRedirects",
      "httpAdditionalHeaders", "credentialHeaders", "httpCookieStorage", "failureReporter", "resolve", "proxy", "noProxy",
      "certificateProfile",
      "httpMaximumConnectionsPerHost", "borrowBudget",
    ]
    // A closure cannot be compared; the clock is package-level, moved only by this package's
    // tests of a CNPinnedSession they create, never on the URLSession path that shares sessions.
    let notCompared: Set<String> = ["clock"]
    let stored = Set(Mirror(reflecting: CNPinnedSessionConfiguration()).children.compactMap(\.label))
    #expect(
      stored == compared.union(notCompared),
      "compare these in CNPinnedSessionConfiguration.==: \(stored.subtracting(compared).subtracting(notCompared))")
    var other = CNPinnedSessionConfiguration()
    other.unpinnedHosts = .deny
    #expect(other != CNPinnedSessionConfiguration())
    var fewerConnections = CNPinnedSessionConfiguration()
    fewerConnections.httpMaximumConnectionsPerHost = 2
    #expect(fewerConnections != CNPinnedSessionConfiguration())
    other = CNPinnedSessionConfiguration()
    other.httpCookieStorage = URLSessionConfiguration.ephemeral.httpCookieStorage
    #expect(other != CNPinnedSessionConfiguration())
    let reporter = CNPinningReporter()
    other = CNPinnedSessionConfiguration()
    other.failureReporter = reporter
    #expect(other != CNPinnedSessionConfiguration())
    var same = CNPinnedSessionConfiguration()
    same.failureReporter = reporter
    #expect(other == same)
  }

  /// One session per manager and configuration, however many pinned configurations are made.
  @Test func pinnedConfigurationsShareASessionPerManagerAndConfiguration() throws {
    func protocolClass(_ manager: CNPinningManager, _ settings: CNPinnedSessionConfiguration) throws -> ObjectIdentifier {
      let classes = try URLSessionConfiguration.cnPinned(manager: manager, configuration: settings).protocolClasses ?? []
      let first: AnyClass = try #require(classes.first)
      return ObjectIdentifier(first)
    }
    let manager = try matchingPins()
    var settings = CNPinnedSessionConfiguration()
    settings.timeoutIntervalForRequest = 7
    let first = try protocolClass(manager, settings)
    #expect(try protocolClass(manager, settings) == first)
    settings.timeoutIntervalForRequest = 8
    let otherSettings = try protocolClass(manager, settings)
    let otherManager = try protocolClass(try matchingPins(), settings)
    #expect(Set([first, otherSettings, otherManager]).count == 3)
  }
}
#endif

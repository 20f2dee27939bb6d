import CNPinning
import CNPinningSession
import Foundation

let session = try CNPinnedSession(manager: try CNPinningManager(contentsOf: URL(fileURLWithPath: "pins.json")))
// A body produced as it is sent, a response read as it arrives; fields go out as written.
let records = AsyncStream<Data> { continuation in
  for number in 1...3 { continuation.yield(Data("{\"record\":\(number)}\n".utf8)) }
  continuation.finish()
}
let request = CNHTTPRequest(
  method: "POST", url: URL(string: "https://api.example.com/v1/records")!,
  headerFields: [
    CNHTTPField(name: "Content-Type", value: "application/x-ndjson"),
    CNHTTPField(name: "Accept", value: "application/json"),
    CNHTTPField(name: "Accept", value: "text/plain"),
  ],
  body: CNHTTPRequest.Body(records))
let response = try await session.exchange(request)  // returns once the response head is in
print(response.statusCode, response.headerFields.map(\.name))
for try await chunk in response.body.chunks {  // the body, a chunk at a time as it arrives
  print(chunk.count)
}

// The code of the seed library's README (CNPinning-Apple), unchanged but for being wrapped in
// functions where the README shows statements at top level, and for one placeholder: the
// README's `configuration: [:] /* app-baked pins */` is not Swift for an empty dictionary, so it
// is written `[:]` here. `make apple-check` type-checks it against this package with
// `-module-alias CNPinning_Apple=CNPinning`, so that code written for the seed keeps compiling.
// `enterprisePublicKey` and `signedPolicy` are the README's placeholders, declared at the end.
import Foundation
import CNPinning_Apple
import Security  // for the placeholder key's type

final class PinningURLSessionDelegate: NSObject, URLSessionDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // If there's no manager, or the manager handled the challenge, we're done.
        guard let pinningManager = session.cnPinningManager,
              pinningManager.validate(challenge: challenge, completionHandler: completionHandler) else {
            // Host is not pinned (or no manager). Choose your policy here — this
            // example refuses anything that isn't explicitly pinned.
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
    }
}

let pinnedSession: URLSession = {
    do {
        // Reads the pinning configuration from your app's Info.plist.
        let pinningManager = try CNPinningManager()
        let delegate = PinningURLSessionDelegate()

        let session = URLSession(
            configuration: .default,
            delegate: delegate,
            delegateQueue: nil
        )
        session.cnPinningManager = pinningManager  // attach the manager to the session
        return session
    } catch {
        fatalError("Unable to initialize the pinned URLSession: \(error)")
    }
}()

func startRequest() {
    pinnedSession.dataTask(with: URL(string: "https://austinsoft.com/")!) { data, response, error in
        // `error` is URLError(.cancelled) and `data` is nil when pinning rejects the connection.
    }.resume()
}

func managerInCode() throws -> CNPinningManager {
    let pinningManager = try CNPinningManager(
    	configuration: [
    		"austinsoft.com": try CNConfiguration(
    			includesSubdomains: false,
    			[
    				CNChain([                              // written root → leaf
    					CNChainLink(.prefixWithNumber, "ISRG Root X"),
    					CNChainLink(.prefixWithNumber, "R"),
    					CNChainLink(.exact, "austinsoft.com"),
    				])
    			]
    		)
    	]
    )
    return pinningManager
}

func strict(session: URLSession, challenge: URLAuthenticationChallenge,
            completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
    // Strict: refuse anything not explicitly pinned.
    guard let manager = session.cnPinningManager,
          manager.validate(challenge: challenge, completionHandler: completionHandler) else {
        completionHandler(.cancelAuthenticationChallenge, nil)
        return
    }
}

func permissive(session: URLSession, challenge: URLAuthenticationChallenge,
                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
    // Permissive: pin the hosts you listed, fall back to the OS for everything else.
    guard let manager = session.cnPinningManager else {
        completionHandler(.cancelAuthenticationChallenge, nil)
        return
    }
    if !manager.validate(challenge: challenge, completionHandler: completionHandler) {
        completionHandler(.performDefaultHandling, nil)
    }
}

func concurrent(manager: CNPinningManager, challenge: URLAuthenticationChallenge,
                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) async throws {
    do {
        let (disposition, credential) = try await manager.validate(challenge: challenge)
        completionHandler(disposition, credential)
    } catch CNPinningError.notPinned {
        completionHandler(.performDefaultHandling, nil)   // or .cancelAuthenticationChallenge
    }
}

func enterprise() throws {
    do {
        // From Info.plist:
        let manager = try CNPinningManager(
            authenticationHost: "auth.example.com",
            policySigningKey: enterprisePublicKey   // a SecKey
        )
        _ = manager
    }
    // …or with a programmatic configuration:
    let manager = try CNPinningManager(
        authenticationHost: "auth.example.com",
        policySigningKey: enterprisePublicKey,
        configuration: [:] /* app-baked pins */
    )
    try manager.applyEnterprisePolicy(with: signedPolicy)   // first time (throws if one is already active)
    try manager.refreshEnterprisePolicy(with: signedPolicy) // replace an active policy
    manager.signOut()                                       // drop the policy (e.g. on logout)
    let window: (Date?, Date?) = (manager.enterprisePolicyIssuedAt, manager.enterprisePolicyExpiry)
    _ = window
}

// The README's placeholders.
nonisolated(unsafe) let enterprisePublicKey: SecKey = { fatalError("a placeholder: type-checked, never run") }()
let signedPolicy = Data()

// Apple calls the README's delegate method only if it matches URLSessionDelegate's requirement
// exactly (see Stubs/AppleFoundationDeltas.swift).
extension PinningURLSessionDelegate: AppleSessionChallengeHandling {}

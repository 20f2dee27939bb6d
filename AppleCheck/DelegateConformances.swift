// Compiled into CNPinningSession by `make apple-check` only. Apple's URLSession calls a delegate
// method only if it matches an optional Objective-C requirement exactly; a near miss compiles
// and is silently never called. These conformances turn a near miss into a compile error
// (the protocols are in Stubs/AppleFoundationDeltas.swift).
extension PinningTaskDelegate: AppleAsyncTaskChallengeHandling {}
extension RedirectRefusal: AppleAsyncRedirectHandling {}

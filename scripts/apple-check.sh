#!/usr/bin/env bash
# Whether the Apple-only code compiles for Apple platforms, which this Linux compiler never builds.
# Type-checks CNPinning's Apple code on Linux (`make apple-check`): each target as a Mac builds it,
# its sources as the package describes them (`swift package describe`), compiled without
# Package.swift's CNPINNING_LINUX_BACKEND so that they take their Apple branches, and without the
# Linux-only target (CNPinningCurl) or any C module (here an import of one fails): CNPinning,
# CNPinningSession with the delegate conformance assertions and absences, the seed README's code,
# the snippets the README and the DocC articles show (Snippets/), the SwiftUI example app, the
# test targets as a Mac builds them, and the cnpin tool, against stub modules that declare Apple's
# signatures (AppleCheck/Stubs, each saying where its signatures come from).
#   scripts/apple-check.sh              the check
#   scripts/apple-check.sh --self-test  also shows that it catches deliberate mistakes
# What it cannot see: availability, Objective-C rules, Apple-SDK Sendable annotations, linking,
# and anything at run time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.build/apple-check
swiftc=(swiftc -swift-version 6 -parse-as-library -wmo -I "$out")
# Apple's Foundation has these names; every file sees them, as on Apple.
deltas=(-Xfrontend -import-module -Xfrontend AppleFoundationDeltas)
apple=(-package-name CNPinning "${deltas[@]}")
# The libraries' public types say whether they are Sendable, as make build checks on Linux.
explicit=(-Werror ExplicitSendable)
# Snippets are built by SwiftPM without the package's defines, so the Linux-only one spells its
# own condition: `os(Linux) && !CNPINNING_APPLE_CHECK`.
snippet_flags=(-D CNPINNING_APPLE_CHECK "${apple[@]}")

# The sources of each target, relative to the package root, as SwiftPM sees them.
targets_json=$out/../apple-check-targets.json
mkdir -p "$(dirname "$targets_json")"
(cd "$root" && swift package describe --type json) >"$targets_json"
# sources TARGET SOURCES_ROOT: the target's Swift sources under SOURCES_ROOT (the repo, or a mutated copy).
sources() {
  python3 - "$targets_json" "$1" "$2" <<'PY'
import json, sys, os
described, name, root = sys.argv[1], sys.argv[2], sys.argv[3]
target = next(t for t in json.load(open(described))["targets"] if t["name"] == name)
for source in sorted(target["sources"]):
    if source.endswith(".swift"):
        print(os.path.join(root, target["path"], source))
PY
}

build_stubs() {
  rm -rf "$out"
  mkdir -p "$out"
  for module in Security ObjectiveC CryptoKit SwiftUI AppleFoundationDeltas; do
    "${swiftc[@]}" -emit-module -module-name "$module" -emit-module-path "$out/$module.swiftmodule" \
      "$root/AppleCheck/Stubs/$module.swift"
  done
}

# check SOURCES_ROOT: type-checks the package sources under SOURCES_ROOT (the repo, or a mutated copy).
check() {
  # Every step says `|| return 1`: set -e does not apply inside a function called as a condition.
  local sources=$1
  "${swiftc[@]}" -typecheck -module-name CNPinning "${apple[@]}" "${explicit[@]}" $(sources CNPinning "$sources") || return 1
  "${swiftc[@]}" -emit-module -enable-testing -module-name CNPinning "${apple[@]}" \
    -emit-module-path "$out/CNPinning.swiftmodule" $(sources CNPinning "$sources") || return 1
  "${swiftc[@]}" -typecheck -module-name CNPinningSession "${apple[@]}" "${explicit[@]}" \
    $(sources CNPinningSession "$sources") "$sources/AppleCheck/DelegateConformances.swift" \
    "$sources/AppleCheck/DelegateAbsences.swift" ||
    return 1
  "${swiftc[@]}" -typecheck -module-name SeedREADME "${deltas[@]}" -module-alias CNPinning_Apple=CNPinning \
    "$sources/AppleCheck/SeedREADME.swift" || return 1
  # The test targets, as a Mac would build them: what needs the OpenSSL test kit or the Linux
  # transport is guarded out; the platform-neutral tests must compile (and then run on a Mac).
  "${swiftc[@]}" -emit-module -enable-testing -module-name CNPinningSession "${apple[@]}" \
    -emit-module-path "$out/CNPinningSession.swiftmodule" $(sources CNPinningSession "$sources") || return 1
  # The Alamofire adapter, a package of its own (so without -package-name: CNPinning's public API
  # alone), against Alamofire's declarations recorded from its source, and its article's snippet.
  "${swiftc[@]}" -emit-module -module-name Alamofire "${deltas[@]}" -emit-module-path "$out/Alamofire.swiftmodule" \
    "$sources/CNPinningAlamofire/Interfaces/Alamofire.swift" || return 1
  "${swiftc[@]}" -emit-module -module-name CNPinningAlamofire "${deltas[@]}" "${explicit[@]}" \
    -emit-module-path "$out/CNPinningAlamofire.swiftmodule" $(find "$sources/CNPinningAlamofire/Sources" -name '*.swift' | sort) ||
    return 1
  for snippet in "$sources"/CNPinningAlamofire/Snippets/*.swift; do
    swiftc -swift-version 6 -I "$out" -typecheck -module-name Snippet "${deltas[@]}" "$snippet" || return 1
  done
  "${swiftc[@]}" -emit-module -module-name CNPinningTestKit "${apple[@]}" -emit-module-path "$out/CNPinningTestKit.swiftmodule" \
    $(sources CNPinningTestKit "$sources") || return 1
  # cnpin (a tool with a top-level main.swift, so without -parse-as-library); its demo is Linux-only.
  swiftc -swift-version 6 -wmo -I "$out" -emit-module -enable-testing -module-name cnpin "${apple[@]}" \
    -emit-module-path "$out/cnpin.swiftmodule" $(sources cnpin "$sources") || return 1
  # The README's and the DocC articles' snippets (Snippets/, top-level code), as an app on a Mac.
  for snippet in "$sources"/Snippets/*.swift; do
    swiftc -swift-version 6 -I "$out" -typecheck -module-name Snippet "${snippet_flags[@]}" "$snippet" || return 1
  done
  # The SwiftUI example app, with the resource accessor SwiftPM generates for its target.
  printf 'import Foundation\nextension Bundle { static let module = Bundle.main }\n' >"$out/ResourceAccessor.swift"
  "${swiftc[@]}" -typecheck -module-name TestCNPinningApp "${apple[@]}" \
    $(find "$sources/Examples/TestCNPinningApp/Sources" -name '*.swift' | sort) "$out/ResourceAccessor.swift" || return 1
  for target in CNPinningTests CNPinningSessionTests CNPinningTestKitTests cnpinTests; do
    "${swiftc[@]}" -typecheck -module-name "$target" "${apple[@]}" $(sources "$target" "$sources") || return 1
  done
}

build_stubs
check "$root"
echo "apple-check: the Apple code of CNPinning and CNPinningSession, the delegate conformances, the seed README, the snippets, the Alamofire adapter (against Alamofire 5.12.0's recorded declarations), the example app, cnpin and the platform-neutral tests type-check"

if [ "${1:-}" = --self-test ]; then
  # Each mistake must make the check fail: the stubs are only worth something if they refuse
  # what Apple's SDK refuses.
  mistakes=(
    "Sources/CNPinningSession/Verdict/ConnectionVerdict.swift|import CNPinning\n|import CNPinning\nimport CCurl\n|an import of libcurl in the session, outside CNPinningCurl"
    "Sources/CNPinningSession/Transports/URLSession/Apple/PinningChallenges+Security.swift|didReceive challenge: URLAuthenticationChallenge) async|didReceive challenge: URLAuthenticationChallenge, context: Int) async|a delegate method with an extra label"
    "Sources/CNPinning/Apple/CNPolicySigningKey+SecKey.swift|var error: Unmanaged<CFError>?|var error: Unmanaged<CFError>|a non-optional CFError out-parameter"
    "Sources/CNPinning/Apple/CNPinningManager+URLSession.swift|serverTrust: space.serverTrust|serverTrust: space.serverTrusts|a misspelled property"
    "Sources/CNPinningSession/Transports/URLSession/Decisions/URLSessionTransport.swift|willPerformHTTPRedirection response: HTTPURLResponse,|willPerformHTTPRedirection response: URLResponse,|a redirect delegate with a wrong parameter type"
    "Sources/CNPinningSession/Transports/URLSession/Decisions/URLSessionTransport.swift|final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {|final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {\n  func urlSession(\n    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,\n    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void\n  ) { completionHandler(.performDefaultHandling, nil) }|a session-level challenge method on the session delegate, which would take server trust from the pinning task delegate"
    "Sources/CNPinningSession/Transports/URLSession/Decisions/TaskBodyDelegate.swift|dataTask: URLSessionDataTask, didReceive data: Data)|dataTask: URLSessionDataTask, didReceiveData data: Data)|a data delegate method with a misspelled label"
    "AppleCheck/SeedREADME.swift|completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void\n    ) {|completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential) -> Void\n    ) {|a seed delegate with a non-optional credential"
    "Snippets/AppleDelegate.swift|completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void|completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential) -> Void|a README snippet's delegate with a non-optional credential"
    "CNPinningAlamofire/Sources/CNPinningAlamofire/CNPinningServerTrustManager.swift|serverTrustEvaluator(forHost host: String)|serverTrustEvaluator(for host: String)|an Alamofire manager override with a label Alamofire's method does not have"
    "CNPinningAlamofire/Sources/CNPinningAlamofire/CNPinningTrustEvaluator.swift|try trust.af.performValidation(forHost: host)|try trust.af.performHostValidation(forHost: host)|a SecTrust extension Alamofire does not have"
    "CNPinningAlamofire/Snippets/PinnedAlamofireSession.swift|.customEvaluationFailed(let refusal|.customEvaluationFailed(reason: let refusal|the Alamofire snippet matching an error case by a label it does not have"
    "Examples/TestCNPinningApp/Sources/TestCNPinningApp/ContentView.swift|let status = (response as? HTTPURLResponse)?.statusCode ?? 0|let status = response.statusCode|the example app reading statusCode off a URLResponse"
  )
  for mistake in "${mistakes[@]}"; do
    IFS='|' read -r file from to what <<<"$mistake"
    copy=$(mktemp -d)
    cp -r "$root/Sources" "$root/Tests" "$root/AppleCheck" "$root/Snippets" "$root/Examples" "$root/CNPinningAlamofire" "$copy/"
    rm -rf "$copy"/Examples/*/.build
    python3 - "$copy/$file" "$from" "$to" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
text = open(path).read()
if old not in text:
    sys.exit(f"apple-check self-test: {path} no longer contains the text to break: {old!r}")
open(path, "w").write(text.replace(old, new, 1))
PY
    if (check "$copy") >"$copy/log" 2>&1; then
      echo "apple-check self-test: $what was NOT caught" >&2
      exit 1
    fi
    echo "apple-check self-test: caught $what: $(grep -m1 'error:' "$copy/log" | sed 's/.*error: //')"
    rm -rf "$copy"
  done
  build_stubs
fi

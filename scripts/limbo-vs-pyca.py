#!/usr/bin/env python3
"""How another verifier judges x509-limbo's cases: a comparison no compiler makes.

x509-limbo's server cases through pyca/cryptography's verifier, beside this package's ratchets.

Prints pyca's score and, case by case, where pyca and the package's strict mode differ, so that
the strict mode's list of known divergences can be weighed against an independent verifier on
exactly the same cases (issue 30's target: no more wrong verdicts than pyca's).
A measurement aid, not part of `make test`: the figure depends on the cryptography release
installed (`python3 -m pip install cryptography`; 42 or later has the verifier).
Usage: scripts/limbo-vs-pyca.py
"""
import concurrent.futures
import datetime
import ipaddress
import json
import pathlib
import subprocess
import sys

from cryptography import x509
from cryptography.x509 import verification

root = pathlib.Path(__file__).resolve().parent.parent / "Tests/Vectors/x509-limbo"
cases = [c for c in json.loads((root / "limbo.json").read_text())["testcases"] if c["validation_kind"] == "SERVER"]
strict_divergences = json.loads((root / "known-divergences-strict.json").read_text())


def certificates(pems):
    found = []
    for pem in pems:
        found.extend(x509.load_pem_x509_certificates(pem.encode()))
    return found


def pyca_accepts(case):
    """True, False, or None when pyca cannot be given the case (it refuses to parse it: a refusal)."""
    try:
        trusted = certificates(case["trusted_certs"])
        intermediates = certificates(case["untrusted_intermediates"])
        peer = x509.load_pem_x509_certificate(case["peer_certificate"].encode())
        name = case.get("expected_peer_name")
        if name is None:
            return None
        subject = (
            verification.IPAddress(ipaddress.ip_address(name["value"]))
            if name["kind"] == "IP"
            else verification.DNSName(name["value"])
        )
        builder = verification.PolicyBuilder().store(verification.Store(trusted))
        if case.get("validation_time"):
            builder = builder.time(datetime.datetime.fromisoformat(case["validation_time"]))
        if case.get("max_chain_depth") is not None:
            builder = builder.max_chain_depth(case["max_chain_depth"])
        builder.build_server_verifier(subject).verify(peer, intermediates)
        return True
    except verification.VerificationError:
        return False
    except Exception:  # a certificate or name pyca will not read: it cannot accept the case
        return False


# Each case in a process of its own, with a time limit: pyca's path building does not come back
# from some of the pathological cases (a verdict it never gives counts as wrong).
TIME_LIMIT = 20


def verdict_in_child(case_id):
    """pyca's verdict on one case, from a child process killed after TIME_LIMIT seconds."""
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--case", case_id], capture_output=True, text=True, timeout=TIME_LIMIT
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    return done.stdout.strip()


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--case":
    print({True: "accepts", False: "refuses", None: "none"}[pyca_accepts(next(c for c in cases if c["id"] == sys.argv[2]))])
    sys.exit(0)

pyca_wrong = {}
if __name__ == "__main__":
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = dict(zip((c["id"] for c in cases), pool.map(verdict_in_child, (c["id"] for c in cases))))
    for case in cases:
        verdict = verdicts[case["id"]]
        expected = case["expected_result"] == "SUCCESS"
        if verdict == "timeout":
            pyca_wrong[case["id"]] = f"gives no verdict within {TIME_LIMIT} s"
        elif verdict == "none":
            pyca_wrong[case["id"]] = "no peer name to give pyca"
        elif (verdict == "accepts") != expected:
            pyca_wrong[case["id"]] = "accepts it" if verdict == "accepts" else "refuses it"


def tally(wrong, expectations):
    """How many wrong verdicts, of which accepted (expected failure) and refused."""
    accepted = sum(1 for i in wrong if not expectations[i])
    return len(wrong), accepted, len(wrong) - accepted

if __name__ == "__main__":
    expectations = {c["id"]: c["expected_result"] == "SUCCESS" for c in cases}
    total, accepted, refused = tally(pyca_wrong, expectations)
    print(f"pyca/cryptography {__import__('cryptography').__version__}: {len(cases)} server cases, "
          f"{len(cases) - total} as x509-limbo says; {total} wrong ({accepted} accepted that should fail, {refused} refused that should pass)")
    total, accepted, refused = tally(strict_divergences, expectations)
    print(f"CNPinning strict (known-divergences-strict.json): {len(cases) - total} as x509-limbo says; "
          f"{total} wrong ({accepted} accepted that should fail, {refused} refused that should pass)")
    for case_id in sorted(set(pyca_wrong) | set(strict_divergences)):
        ours = "wrong" if case_id in strict_divergences else "right"
        theirs = pyca_wrong.get(case_id, "right")
        print(f"  {case_id}: CNPinning strict {ours}, pyca {theirs}")

#!/usr/bin/env bash
# The system packages a build and its peers need, which SwiftPM cannot install.
# Installs what CNPinning needs beyond the Swift toolchain, when it is missing.
# As root it installs; otherwise it prints the exact command to run and fails.
set -euo pipefail

debian_packages=(libssl-dev libcurl4-openssl-dev pkg-config openssl ca-certificates)
# Peers for tests and benchmarks: nginx (keep-alive, HTTP/2, session tickets, as users run it),
# the curl command-line tool that `make bench-peers` compares against, and a C compiler for its
# libcurl-from-C yardstick.
debian_packages+=(nginx-light curl gcc libc6-dev)
# valgrind's callgrind counts the instructions of the budget `make bench-instructions` holds.
debian_packages+=(valgrind binutils)
# Real proxies for the proxy tests: tinyproxy (HTTP CONNECT) and socat (TLS in front of it).
debian_packages+=(tinyproxy-bin socat)
# The public suffix list, from which `scripts/generate-public-suffixes.py` regenerates the cookie rules' copy.
debian_packages+=(publicsuffix)
# Independent JOSE signers for the enterprise-policy interoperability tests.
python_packages=("PyJWT[crypto]>=2.6")

missing=()
for package in "${debian_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing Debian packages: ${missing[*]}"
    # Packages with a service (nginx) must not start it: tests start their own on loopback.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
      chmod +x /usr/sbin/policy-rc.d
      trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "CNPinning needs these Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v python3 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-pip >/dev/null
  else
    echo "CNPinning's tests need python3: sudo apt-get install -y python3 python3-pip" >&2
    exit 1
  fi
fi
if ! python3 -c "import jwt, cryptography" >/dev/null 2>&1; then
  echo "Installing Python packages: ${python_packages[*]}"
  export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
  python3 -m pip install --quiet "${python_packages[@]}" 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages "${python_packages[@]}" ||
    { echo "Cannot install ${python_packages[*]} with pip; install them for $(command -v python3)." >&2; exit 1; }
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "The Swift toolchain (6.1 or later) is not on PATH; install it from swift.org." >&2
  exit 1
fi

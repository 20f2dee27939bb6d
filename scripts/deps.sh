#!/usr/bin/env bash
# Installs what CNPinning needs beyond the Swift toolchain, when it is missing.
# As root it installs; otherwise it prints the exact command to run and fails.
set -euo pipefail

debian_packages=(libssl-dev libcurl4-openssl-dev pkg-config openssl ca-certificates)

missing=()
for package in "${debian_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "CNPinning needs these Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "The Swift toolchain (6.1 or later) is not on PATH; install it from swift.org." >&2
  exit 1
fi

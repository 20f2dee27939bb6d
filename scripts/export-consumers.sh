#!/usr/bin/env bash
# What `make export-consumers` needs beyond `make deps`: Debian's kotlin, which compiles the
# OkHttp export, and libokhttp-java (OkHttp 3.13.1), which it runs against on loopback
# (Tests/cnpinTests/OkHttpConsumerTests.swift). As root it installs them; otherwise it prints
# the command to run and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(kotlin libokhttp-java)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then missing+=("$package"); fi
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "make export-consumers needs: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

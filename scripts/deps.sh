#!/usr/bin/env bash
# Installs the Debian packages given as arguments when any is missing. As root it runs apt-get;
# otherwise it prints the exact command and fails.
set -euo pipefail
missing=()
for p in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "missing packages: ${missing[*]}; this machine has no apt-get: install them with your package manager" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${missing[*]}. Run as root:" >&2
  echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing ${missing[*]} from Debian's packages..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# scripts/deb-closure refuses what is not a Debian package by name (exit 2), never with a
# traceback, and reads a real package (issue 16: the kit's closure on bad input).
set -euo pipefail
src=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_refused() {  # expect_refused WHAT-IT-SAYS ARGS...
  local says=$1; shift
  local out status=0
  out=$("$src/scripts/deb-closure" "$@" 2>&1) || status=$?
  [ "$status" -eq 2 ] || fail "deb-closure $* exited $status, not 2: $out"
  grep -qF -- "$says" <<<"$out" || fail "deb-closure $* did not say '$says': $out"
  if grep -q Traceback <<<"$out"; then fail "deb-closure $* printed a traceback: $out"; fi
}

expect_refused "missing.deb: not a readable Debian package" "$scratch/missing.deb"
printf 'not an archive' >"$scratch/text.deb"
expect_refused "text.deb: not a readable Debian package" "$scratch/text.deb"
expect_refused "unknown option --bse" --bse

# A real package (built here with dpkg-deb) that depends on the C library, which a minimal
# system has: nothing needs to travel with it.
mkdir -p "$scratch/pkg/DEBIAN"
cat >"$scratch/pkg/DEBIAN/control" <<'CONTROL'
Package: airlock-closure-probe
Version: 1.0
Architecture: all
Maintainer: airlock tests <tests@localhost>
Depends: libc6
Description: a probe for the closure test
CONTROL
dpkg-deb --build --root-owner-group "$scratch/pkg" "$scratch/probe.deb" >/dev/null
out=$("$src/scripts/deb-closure" "$scratch/probe.deb") || fail "a real package was refused"
[ -z "$out" ] || fail "libc6 is in a minimal system, yet the closure listed: $out"
echo "deb-closure: bad input refused by name; a real package read"

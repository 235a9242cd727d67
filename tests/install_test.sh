#!/bin/sh
# An installation (cmake --install) is whole: every program says its version and commit, the
# offline half finds the IDLs installed beside it (share/airlock/idl) with no path given, and
# the binaries look for bundled libraries in lib/airlock first (the offline kit fills it).
#   install_test.sh BUILD_DIR PREFIX
set -eu
build=$1
prefix=$2
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "install test: $*" >&2; exit 1; }
for program in airlock-offline airlock-online airlock-qr; do
  "$prefix/bin/$program" --version | grep -q "^$program [0-9.]* (commit " ||
    fail "$program --version does not name the version and commit"
done
ls "$prefix/share/airlock/idl/"*.json >/dev/null 2>&1 || fail "no IDLs in share/airlock/idl"
"$prefix/bin/airlock-offline" sign --help | grep -q "$prefix/share/airlock/idl" ||
  fail "airlock-offline does not default to the installed IDLs"
readelf -d "$prefix/bin/airlock-offline" | grep -q 'RUNPATH.*\$ORIGIN/../lib/airlock' ||
  fail "airlock-offline does not look in lib/airlock for bundled libraries"
[ -f "$prefix/share/airlock/policy.example.toml" ] || fail "no example policy"
[ -f "$prefix/share/doc/airlock/operator-guide.md" ] || fail "no operator's guide"
echo "install test: whole"

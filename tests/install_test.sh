#!/bin/sh
# An installation (cmake --install) is whole: every program says its version and commit, the
# offline half finds the IDLs and descriptors installed beside it (share/airlock/idl,
# share/airlock/descriptors) with no path given, and
# each package's files go where the packages (cmake/AirlockPackaging.cmake) put them.
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
[ -f "$prefix/share/airlock/descriptors/airlock_vault.json" ] ||
  fail "no descriptor in share/airlock/descriptors"
"$prefix/bin/airlock-offline" sign --help | grep -q "$prefix/share/airlock/descriptors" ||
  fail "airlock-offline does not default to the installed descriptors"
"$prefix/bin/airlock-offline" descriptor check "$prefix/share/airlock/descriptors/airlock_vault.json" |
  grep -q '^\[\[descriptors\]\]' || fail "the installed descriptor does not hold against its IDLs"
if readelf -d "$prefix/bin/airlock-offline" | grep -q 'RPATH\|RUNPATH'; then
  fail "airlock-offline carries a library search path: libraries come from the system"
fi
[ -f "$prefix/share/airlock/policy.example.toml" ] || fail "no example policy"
for package in airlock-offline airlock-online; do
  [ -f "$prefix/share/doc/$package/operator-guide.md" ] || fail "no operator's guide for $package"
done
if [ -x "$prefix/bin/airlock-apisim" ]; then
  [ -f "$prefix/share/airlock-apisim/demo.json" ] || fail "the twin's fixtures are not installed"
fi
echo "install test: whole"

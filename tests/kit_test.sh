#!/usr/bin/env bash
# The offline kit (scripts/offline-kit) installs and signs on a minimal Debian system with no
# network:
#   1. its install.sh accepts the kit as made and refuses, before installing anything, a changed
#      package, a package added beside the others and a missing one;
#   2. no network library is among airlock-offline's dependencies or in the kit;
#   3. its packages unpacked into an empty root (dpkg -x) load every library from that root or
#      from a package of the minimal system (scripts/deb-closure --base);
#   4. the airlock-offline unpacked there, run in a fresh network namespace (scripts/airgapped)
#      with nothing but those libraries, locks itself down without the override, finds its IDLs
#      beside itself, imports the demo key and signs a real request that the twin built; the
#      online half verifies and sends it, and the twin confirms it.
#   kit_test.sh SOURCE_DIR BUILD_DIR SHARED_DIR
# Exit 77 (skipped) where network namespaces are refused.
set -euo pipefail
src=$1
build=$2
shared=$3
work=$(mktemp -d)
# A journal registry of this test's own: another journal's action in flight with an API holds
# every act with it (online/src/journal.cpp), and the user's registry is not the test's.
export AIRLOCK_JOURNAL_REGISTRY="$work/journals"
sim_pid=
act_pid=
cleanup() {
  [ -n "$act_pid" ] && kill "$act_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "kit test: $*" >&2; exit 1; }
expect_refused() {  # expect_refused KIT_COPY TEXT
  local out
  if out=$(sh "$1/install.sh" --check 2>&1); then fail "install.sh accepted $1: $out"; fi
  printf '%s\n' "$out" | grep -q "$2" || fail "install.sh refused $1 without saying '$2': $out"
  printf '%s\n' "$out" | grep -q "nothing installed" || fail "install.sh did not say nothing was installed: $out"
}
"$src/scripts/airgapped" true 2>/dev/null || { echo "kit test: no network namespaces here"; exit 77; }

"$src/scripts/offline-kit" --build "$build" --dist "$work/dist" --quick >"$work/kit.log" 2>&1 ||
  { cat "$work/kit.log" >&2; fail "scripts/offline-kit failed"; }
tar -xzf "$work"/dist/airlock-offline-kit-*.tar.gz -C "$work"
kit=$(ls -d "$work"/airlock-offline-kit-*)
offline_deb=$(ls "$kit"/debs/airlock-offline_*.deb)

# 1. install.sh checks before it installs.
sh "$kit/install.sh" --check | grep -q "every file matches SHA256SUMS" || fail "install.sh --check"
cp -r "$kit" "$work/changed"
printf '\0' | dd of="$(ls "$work"/changed/debs/libsodium*.deb)" bs=1 seek=200 conv=notrunc 2>/dev/null
expect_refused "$work/changed" "does not match"
cp -r "$kit" "$work/added"
cp "$offline_deb" "$work/added/debs/zz-extra.deb"
expect_refused "$work/added" "not in SHA256SUMS: debs/zz-extra.deb"
cp -r "$kit" "$work/missing"
rm "$work"/missing/debs/libcbor*.deb
expect_refused "$work/missing" "does not match SHA256SUMS or is missing"

# 2. No network library, in what airlock-offline asks for or in what the kit brings.
network='^(libcurl|libssl|libnghttp|libgnutls|libssh|libldap|libkrb5|librtmp|libpsl|libcpp-httplib)'
if dpkg-deb -f "$offline_deb" Depends | tr ',' '\n' | sed 's/^ *//' | grep -Eq "$network"; then
  fail "airlock-offline depends on a network library: $(dpkg-deb -f "$offline_deb" Depends)"
fi
for deb in "$kit"/debs/*.deb; do
  package=$(dpkg-deb -f "$deb" Package)
  if echo "$package" | grep -Eq "$network"; then fail "the kit carries $package"; fi
done

# 3. Unpacked into an empty root, every library comes from the root or the minimal system.
root="$work/root"
mkdir "$root"
for deb in "$kit"/debs/*.deb; do dpkg -x "$deb" "$root"; done
libpath=$(find "$root" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)
base=$("$src/scripts/deb-closure" --base)
for program in airlock-offline airlock-qr; do
  LD_LIBRARY_PATH=$libpath ldd "$root/usr/bin/$program" >"$work/ldd" ||
    fail "ldd $program failed"
  if grep -q "not found" "$work/ldd"; then fail "$program lacks a library: $(grep 'not found' "$work/ldd")"; fi
  awk '$2 == "=>" { print $3 }' "$work/ldd" | while read -r lib; do
    case "$lib" in "$root"/*) continue ;; esac
    owner=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null || dpkg -S "${lib#/usr}" 2>/dev/null) ||
      fail "$program loads $lib, which no package owns"
    owner=${owner%%:*}
    printf '%s\n' "$base" | grep -qx "$owner" ||
      fail "$program loads $lib from $owner, which is neither in the kit nor in a minimal system"
  done
done

# 4. A real round: the twin builds a swap, the kit's airlock-offline signs it air-gapped, the
# online half sends it.
vault=CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT
. "$src/scripts/lib/twin.sh"
twin_start "$build/bin/airlock-apisim" "$work/apisim.log" || exit 1
sim_pid=$twin_pid
api=$twin_api
rpc=$twin_rpc
printf 'hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv\n' >"$work/api.key"
"$src/scripts/demo-keypair" "$shared/vectors" "$work/manager.json"
printf 'kit test passphrase\n' >"$work/pass"
printf 'y\n' >"$work/answer"
cat >"$work/policy.toml" <<POLICY
version = 1
manager = "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax"
vaults = ["$vault"]
programs = ["AirLockVau1t1111111111111111111111111111111", "ComputeBudget111111111111111111111111111111"]
max_priority_fee_lamports = 100000
allow_unverified_lookup_tables = true
POLICY
offline() {  # the kit's airlock-offline, air-gapped, with only the kit's and the system's libraries
  "$src/scripts/airgapped" env -i "LD_LIBRARY_PATH=$libpath" "PATH=/usr/bin:/bin" \
    "$root/usr/bin/airlock-offline" "$@"
}
offline --version | grep -q "^airlock-offline " || fail "the unpacked airlock-offline does not run"
# The policy pins the kit's own descriptor and IDLs, as an operator does after reviewing them.
offline descriptor check "$root/usr/share/airlock/descriptors/airlock_vault.json" |
  sed -n '/^\[\[descriptors\]\]/,$p' >>"$work/policy.toml"
grep -q '^sha256 = ' "$work/policy.toml" || fail "the kit's descriptor does not hold"
offline import --keystore "$work/manager.keystore" --keypair "$work/manager.json" \
  --kdf interactive --passphrase-fd 3 3<"$work/pass" >"$work/import.log" 2>&1 ||
  { cat "$work/import.log" >&2; fail "import in the namespace failed"; }

"$build/bin/airlock-online" act aggregator/swap --api "$api" --api-key-file "$work/api.key" \
  --rpc "$rpc" --pace-file none --journal "$work/journal.sqlite" \
  --remaining show \
  --vault "$vault" --source-mint EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v \
  --destination-mint JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN --amount 5000000 \
  --slippage-bps 50 --request-out "$work/req.alreq" --response "$work/res.alres" \
  >"$work/act.log" 2>&1 &
act_pid=$!
for _ in $(seq 300); do [ -f "$work/req.alreq" ] && break; sleep 0.1; done
[ -f "$work/req.alreq" ] || { cat "$work/act.log" >&2; fail "the online half wrote no request"; }
offline sign --keystore "$work/manager.keystore" --policy "$work/policy.toml" \
  --audit-log "$work/audit.log" --passphrase-fd 3 --confirm-fd 4 "$work/req.alreq" \
  --out "$work/res.alres" 3<"$work/pass" 4<"$work/answer" >"$work/sign.log" 2>&1 ||
  { cat "$work/sign.log" >&2; fail "signing in the namespace failed"; }
grep -q "NOT AIR-GAPPED" "$work/sign.log" && fail "the signer ran with the network override"
grep -q "signed; audit head" "$work/sign.log" || { cat "$work/sign.log" >&2; fail "nothing signed"; }
status=0
wait "$act_pid" || status=$?
act_pid=
[ "$status" -eq 0 ] || { cat "$work/act.log" >&2; fail "the online half exited $status"; }
grep -q "confirmed" "$work/act.log" || { cat "$work/act.log" >&2; fail "the swap did not confirm"; }
echo "kit test: $(ls "$kit"/debs | wc -l) packages; checked, unpacked, signed air-gapped, confirmed"

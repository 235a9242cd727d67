#!/usr/bin/env python3
"""Builds candidate preset dictionaries for the dense framing's deflate, into --work.

  dict-public.bin      public constants only: program ids, sysvars, common mints (raw and
                       base58), token-hint CBOR for common tokens, the vault program's (and
                       Jupiter's route, perp venue's) discriminators from offline/idl, the
                       builder actions' names and body field names (from `airlock-online act
                       ACTION --help`), and the envelope's fixed CBOR byte patterns
                       (docs/envelope.md). Nothing is taken from any request.
  dict-public-dep.bin  the same plus the two deployment keys both halves already know from
                       the policy (manager, vault), raw and base58, at the end.
  dict-trained.bin     (deflate) substrings that recur across the training requests in
                       train/ (other amounts, bins, positions, tokens than the measured ones
                       in reqs/), picked by a document-frequency count.
  dict-trained.zstd    (zstd only, if the zstd CLI is present) `zstd --train --maxdict=4096`
                       on the same training set.

A deflate preset dictionary works best with the most frequently matched bytes at its end
(shorter distances), so every dictionary lists the rarer pieces first.

Also writes dict-manifest.txt (each piece, its offset and size, each dictionary's SHA-256) and
dict-public.pieces.json (the public pieces, for ablate.py).

Usage: build_dict.py --root REPO --bin REPO/build/bin --work DIR
"""
import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

from envelope import carried_bytes, pubkey

ROOT = BIN = WORK = None  # set by main()
MAX_DICT = 4096

# --- public constants -------------------------------------------------------------------------

PROGRAMS = {  # well-known Solana program ids and sysvars
    "AddressLookupTable": "AddressLookupTab1e1111111111111111111111111",
    "SysvarClock": "SysvarC1ock11111111111111111111111111111111",
    "SysvarInstructions": "Sysvar1nstructions1111111111111111111111111",
    "SysvarRent": "SysvarRent111111111111111111111111111111111",
    "Memo": "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
    "Token-2022": "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
    "AssociatedToken": "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
    "System": "11111111111111111111111111111111",
}
# Programs named by the IDLs the offline half ships (addresses read from the files below).
IDLS = ["phoenix_v1.json", "jupiter_v6.json", "meteora_dlmm.json", "airlock_vault.json"]
# The two programs every twin transaction calls, plus Token, put last (most frequent).
HOT_PROGRAMS = {
    "Token": "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    "ComputeBudget": "ComputeBudget111111111111111111111111111111",
}
# Common mints with their usual token-list symbol, decimals and name.
MINTS = [
    ("mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So", "mSOL", 9, "Marinade staked SOL (mSOL)"),
    ("J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn", "JitoSOL", 9, "Jito Staked SOL"),
    ("Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", "USDT", 6, "USDT"),
    ("DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", "Bonk", 5, "Bonk"),
    ("JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN", "JUP", 6, "Jupiter"),
    ("So11111111111111111111111111111111111111112", "SOL", 9, "Wrapped SOL"),
    ("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "USDC", 6, "USD Coin"),
]


def cbor_head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | info]) + n.to_bytes(size, "big")
    raise ValueError(n)


def tstr(s):
    b = s.encode()
    return cbor_head(3, len(b)) + b


def bstr(b):
    return cbor_head(2, len(b)) + b


def token_hint(mint, symbol, decimals, name):
    # {1: mint, 2: symbol, 3: decimals, 4: name}, deterministic CBOR as docs/envelope.md
    return (cbor_head(5, 4) + b"\x01" + bstr(pubkey(mint)) + b"\x02" + tstr(symbol)
            + b"\x03" + cbor_head(0, decimals) + b"\x04" + tstr(name))


def actions_and_fields():
    """Builder actions and their body field names, from airlock-online's own help."""
    online = os.path.join(BIN, "airlock-online")
    top = subprocess.run([online, "act", "--help"], capture_output=True, text=True).stdout
    actions = re.findall(r"^  ([a-z]+/[a-z/-]+)$", top, re.M)
    fields = {}
    for a in actions:
        h = subprocess.run([online, "act", a, "--help"], capture_output=True, text=True).stdout
        part = h.split(f"fields of {a}:", 1)[1] if f"fields of {a}:" in h else ""
        names = re.findall(r"^  --([a-z0-9-]+) ", part, re.M)
        fields[a] = [re.sub(r"-([a-z0-9])", lambda m: m.group(1).upper(), n) for n in names]
    return actions, fields


def idl_constants():
    addrs, discs = [], []
    for name in IDLS + ["airlock_perp_venue.json"]:
        d = json.load(open(os.path.join(ROOT, "offline/idl", name)))
        if d.get("address") and d["address"] not in addrs:
            addrs.append(d["address"])
        for ix in d.get("instructions", []):
            # Jupiter: only the route family is used by swaps; Meteora/Phoenix instructions are
            # reached through the vault program, so their discriminators are left out.
            if name in ("airlock_vault.json", "airlock_perp_venue.json") or (
                    name == "jupiter_v6.json" and "route" in ix["name"]):
                discs.append((name, ix["name"], bytes(ix["discriminator"])))
            for acc in ix.get("accounts", []):
                if isinstance(acc, dict) and acc.get("address") and acc["address"] not in addrs:
                    addrs.append(acc["address"])
    return addrs, discs


def public_pieces():
    """(label, bytes) in dictionary order: rare first, frequent last."""
    pieces = []
    actions, fields = actions_and_fields()
    idl_addrs, discs = idl_constants()

    # Intent JSON: every body field name as it appears in compact, key-sorted JSON.
    names = sorted({f for fs in fields.values() for f in fs})
    pieces.append(("intent JSON field names (all builders)",
                   "".join(f'"{n}":' for n in names).encode()))
    # Values the builders take as words.
    pieces.append(("intent JSON word values",
                   b'"spot""curve""bidAsk""long""short""limit""market""bid""ask"'
                   b'"postOnly":false"postOnly":true,"reduceOnly":false,"reduceOnly":true,'))
    # Action names as the envelope carries them (key 6) and as step key 5 (next.path).
    pieces.append(("action names, CBOR key 6 + tstr",
                   b"".join(b"\x06" + tstr(a) for a in actions)))
    # Raw ids of less frequent programs and sysvars.
    rare = [v for v in PROGRAMS.values()] + [a for a in idl_addrs
                                             if a not in PROGRAMS.values()
                                             and a not in HOT_PROGRAMS.values()
                                             and not a.startswith("AirLock")]
    pieces.append(("program ids and sysvars, raw 32 bytes: " + ", ".join(rare),
                   b"".join(pubkey(a) for a in rare)))
    # Discriminators, 8 bytes each, bare (what precedes them in an instruction varies).
    pieces.append(("discriminators: " + ", ".join(f"{n.split('.')[0]}:{i}" for n, i, _ in discs),
                   b"".join(d for _, _, d in discs)))
    # Mints as base58 inside the intent JSON.
    pieces.append(("common mints, base58 in JSON quotes",
                   b"".join(f'"{m}"'.encode() for m, *_ in MINTS)))
    # Token hints: the exact CBOR of {1: mint, 2: symbol, 3: decimals, 4: name}.
    pieces.append(("token-hint CBOR for common mints (raw mint inside)",
                   b"".join(token_hint(*t) for t in MINTS)))
    # Envelope skeleton (docs/envelope.md CDDL, deterministic CBOR): sign-request map head with
    # version and the request-id head, created/deadline heads, manager/vault heads, steps and
    # step map heads, the 64-byte zero signature slot + v0 prefix, the compute-budget
    # instruction shapes (SetComputeUnitLimit u32, SetComputeUnitPrice u64), the step's flag
    # and units fields, hints heads (lookup, token, pool).
    skel = (b"\xaa\x00\x01\x01\x50" + b"\x02\x1a" + b"\x03\x1a" + b"\x04\x58\x20" + b"\x05\x58\x20"
            + b"\x07\x78" + b'{"amount":"' + b'","vault":"' + b'"}'
            + b"\x08\x81\xa4\x01\x59\x02" + b"\x01" + b"\x00" * 64 + b"\x80\x01\x00"
            + b"\x00\x05\x02" + b"\x00\x09\x03" + b"\x02\xf4\x03\xf4\x04\x1a\x00"
            + b"\x02\xf5\x03\xf4\x04\x1a\x00" + b"\x05" + tstr("aggregator/sweep")
            + b"\x09\xa3\x01\x81\xa2\x01\x58\x20" + b"\x02\x82\xa4\x01\x58\x20" + b"\x03\x81\xa3\x01\x58\x20"
            + b"\x02\x58\x20" + b"\x03\x58\x20")
    pieces.append(("envelope / transaction skeleton bytes", skel))
    # The most frequent program ids: in every twin transaction.
    hot = [pubkey(idl_addr) for idl_addr in [a for a in idl_addrs if a.startswith("AirLock")]]
    hot += [pubkey(v) for v in HOT_PROGRAMS.values()]
    pieces.append(("hot program ids raw: Token, ComputeBudget, AirLock vault", b"".join(hot)))
    return pieces


def deployment_pieces():
    policy_manager = "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax"  # demo policy's manager
    vault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT"  # demo policy's vault
    return [("deployment keys from the policy (manager, vault), base58 JSON and raw",
             f'"vault":"{vault}"'.encode() + pubkey(policy_manager) + pubkey(vault))]


# --- trained (deflate): recurring substrings of the training requests ---------------------------

def train_substrings(samples, budget, k=12, min_df=3):
    """Greedy document-frequency trainer.

    Counts k-byte windows by the number of distinct training requests containing them (so a
    blockhash or key repeated inside one batch does not count), keeps windows found in at least min_df
    requests (3 of 19: a pair of requests of one action is not a pattern), grows them into
    maximal segments while they keep the same document frequency, and takes segments by
    (document frequency - 1) * length until the budget is spent. Rarest chosen go first.
    """
    df = {}
    for s in samples:
        seen = set()
        for i in range(len(s) - k + 1):
            seen.add(s[i:i + k])
        for w in seen:
            df[w] = df.get(w, 0) + 1
    chosen, covered = [], set()
    # candidate segments: maximal runs in any sample of windows with df >= min_df
    cands = {}
    for s in samples:
        i = 0
        while i <= len(s) - k:
            d = df.get(s[i:i + k], 0)
            if d < min_df:
                i += 1
                continue
            j = i
            while j + 1 <= len(s) - k and df.get(s[j + 1:j + 1 + k], 0) >= d:
                j += 1
            seg = s[i:j + k]
            cands[seg] = max(cands.get(seg, 0), d)
            i = j + 1
    ranked = sorted(cands.items(), key=lambda kv: (kv[1] - 1) * len(kv[0]), reverse=True)
    total = 0
    for seg, d in ranked:
        if seg in covered or any(seg in c for c, _ in chosen):
            continue
        if total + len(seg) > budget:
            continue
        chosen.append((seg, d))
        covered.add(seg)
        total += len(seg)
    chosen.sort(key=lambda sd: sd[1])  # most frequent last
    return b"".join(s for s, _ in chosen), chosen


def write(name, pieces, manifest):
    data = b"".join(p for _, p in pieces)
    if len(data) > MAX_DICT:
        sys.exit(f"{name}: {len(data)} bytes, over {MAX_DICT}")
    open(os.path.join(WORK, name), "wb").write(data)
    manifest.append(f"== {name}: {len(data)} bytes, SHA-256 {hashlib.sha256(data).hexdigest()}")
    off = 0
    for label, p in pieces:
        manifest.append(f"  @{off:5d} {len(p):5d} B  {label}")
        off += len(p)
    return data


def main():
    global ROOT, BIN, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="the repository (offline/idl)")
    ap.add_argument("--bin", required=True, help="the release binaries (airlock-online)")
    ap.add_argument("--work", required=True, help="train/ is read and everything written here")
    args = ap.parse_args()
    ROOT, BIN, WORK = args.root, args.bin, args.work

    manifest = []
    pub = public_pieces()
    write("dict-public.bin", pub, manifest)
    write("dict-public-dep.bin", pub + deployment_pieces(), manifest)
    with open(os.path.join(WORK, "dict-public.pieces.json"), "w") as f:
        json.dump([[label, p.hex()] for label, p in pub], f, indent=0)

    train_files = sorted(glob.glob(os.path.join(WORK, "train/*.alreq")))
    train = [carried_bytes(f) for f in train_files]
    if not train:
        sys.exit("no training requests in train/")
    data, chosen = train_substrings(train, MAX_DICT)
    write("dict-trained.bin", [(f"{len(chosen)} recurring segments of {len(train)} training "
                                f"requests (df {min(d for _, d in chosen)}..{max(d for _, d in chosen)})",
                                data)], manifest)

    zd = os.path.join(WORK, "dict-trained.zstd")
    if os.path.exists(zd):
        os.remove(zd)
    if shutil.which("zstd") is None:
        manifest.append("== dict-trained.zstd: skipped, no zstd CLI on this machine")
    else:
        cdir = os.path.join(WORK, "train-cbor")
        os.makedirs(cdir, exist_ok=True)
        cfiles = []
        for f, raw in zip(train_files, train):
            out = os.path.join(cdir, os.path.basename(f)[:-len(".alreq")] + ".cbor")
            open(out, "wb").write(raw)
            cfiles.append(out)
        r = subprocess.run(["zstd", "-q", "-f", "--train", "--maxdict=4096", "-o", zd] + cfiles,
                           capture_output=True, text=True)
        if r.returncode != 0:
            manifest.append(f"== dict-trained.zstd: zstd --train failed: {r.stderr.strip()}")
            if os.path.exists(zd):
                os.remove(zd)
        else:
            manifest.append(f"== dict-trained.zstd: {os.path.getsize(zd)} bytes "
                            f"(zstd --train --maxdict=4096 on {len(train)} training requests' CBOR)")
    open(os.path.join(WORK, "dict-manifest.txt"), "w").write("\n".join(manifest) + "\n")
    print("\n".join(manifest))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Measures what a preset dictionary would save in airlock's dense QR framing.

For each request in --reqs (the envelope CBOR the dense framing carries: the .alreq file
without its 4-byte magic, qr_io::content_of_file):

  raw        bytes
  zlib       zlib.compress(level 9) == formats/src/dense.cpp deflate_bytes (compress2,
             Z_BEST_COMPRESSION, zlib wrapper, windowBits 15, memLevel 8); --deflate auto keeps
             it only when smaller than raw
  zlib+D     the same stream with deflateSetDictionary(D) (Python zdict): zlib wrapper with
             FDICT and the 4-byte dictionary id, i.e. what a drop-in change would carry
  zstd       zstd -19 --no-check (no dictionary); zstd+D with -D (a raw-content dictionary for
             the hand-built ones, the formatted trained one for dict-trained.zstd),
             --no-dictID (the dense header would name the dictionary); left out, with a note,
             when the zstd CLI is missing

and for each carried payload: dense fragments at the QR version's byte capacity minus the
34-byte header (fountain nominal_fragment_length), and frames a reader needs (mean, p95) at 10%
frame loss joining at a random point of the first three cycles, simulated with the dense
framing's own fragment chooser (xoshiro256** seeded with SHA-256(seq || CRC-32 of the carried
payload), each fragment with probability 1/2) and a GF(2) rank decoder, as
bench/transport_bench.cpp counts them (frames shown, lost ones included).

Usage: measure.py --bin DIR --work DIR [--reqs DIR] [--check-airlock] [--main-out FILE]
                  [--trials N] [--checksums N] [--versions 17,13,10] > tables.md
(--work holds the dictionaries build_dict.py wrote; --main-out writes the before/after table
for the public dictionary at v17-L.)
"""
import argparse
import glob
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

from envelope import carried_bytes, cbor_decode, parse_tx

QR = None  # airlock-qr, set by main()
HEADER = 34  # dense framing v2 header (docs/envelope.md)
# QR byte-mode capacities at level L (ISO/IEC 18004 table 7); airlock measures the same with
# libqrencode (qr::byte_capacity), and docs/envelope.md states 644 for version 17.
BYTE_CAP_L = {9: 230, 10: 271, 13: 425, 17: 644, 20: 858, 25: 1273}
M64 = (1 << 64) - 1


# --- compressors --------------------------------------------------------------------------------

def zlib9(data, zdict=None):
    if zdict is None:
        return zlib.compress(data, 9)
    c = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, zdict)
    out = c.compress(data) + c.flush()
    # round trip, as the offline half would
    d = zlib.decompressobj(15, zdict)
    assert d.decompress(out) == data
    return out


def zstd19(data, dict_path=None):
    cmd = ["zstd", "-19", "-q", "-c", "--no-check"]
    if dict_path:
        cmd += ["-D", dict_path, "--no-dictID"]
    out = subprocess.run(cmd, input=data, capture_output=True, check=True).stdout
    back = subprocess.run(["zstd", "-d", "-q", "-c"] + (["-D", dict_path] if dict_path else []),
                          input=out, capture_output=True, check=True).stdout
    assert back == data
    return out


def auto(raw, packed):
    """--deflate auto: the packed form only when smaller."""
    return packed if len(packed) < len(raw) else raw


# --- dense framing ------------------------------------------------------------------------------

def fragment_len(message_len, max_fragment_len):
    # fountain.cpp nominal_fragment_length with min_fragment_len 1
    length = message_len
    for count in range(1, message_len + 1):
        length = -(-message_len // count)
        if length <= max_fragment_len:
            break
    return max(length, 1)


def fragments(carried_len, version=17):
    frag = fragment_len(carried_len, BYTE_CAP_L[version] - HEADER)
    return -(-carried_len // frag)


class Xoshiro:
    def __init__(self, seed):
        h = hashlib.sha256(seed).digest()
        self.s = [int.from_bytes(h[8 * i:8 * i + 8], "big") for i in range(4)]

    @staticmethod
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def next_int(self, low, high):
        return int(self.next() / 2.0**64 * (high - low + 1)) + low


def dense_mask(seq, n, checksum):
    """Bit mask of the fragments XORed into code `seq` (fountain.cpp choose_fragments, kDense)."""
    if seq <= n:
        return 1 << (seq - 1)
    rng = Xoshiro(seq.to_bytes(4, "big") + checksum.to_bytes(4, "big"))
    mask = 0
    bits = 0
    for i in range(n):
        if i % 64 == 0:
            bits = rng.next()
        if (bits >> (i % 64)) & 1:
            mask |= 1 << i
    if mask == 0:
        mask = 1 << rng.next_int(0, n - 1)
    return mask


def frames_needed(carried, n, trials, loss=0.10, seed=99):
    """Frames shown until the GF(2) decoder has rank n: mean and p95 over trials."""
    counts = sorted(frames_samples(carried, n, trials, seed, loss))
    return sum(counts) / len(counts), counts[len(counts) * 95 // 100]


def frames_samples(carried, n, trials, seed, loss=0.10):
    """Frames shown until decoded, one count per trial, for this exact carried payload."""
    checksum = zlib.crc32(carried)
    rng = random.Random(seed)
    cache = {}
    counts = []
    for _ in range(trials):
        start = 1 + rng.randrange(3 * n)
        pivots = {}  # lowest set bit -> reduced row
        shown = 0
        seq = start
        while len(pivots) < n:
            shown += 1
            if rng.random() >= loss:
                row = cache.get(seq)
                if row is None:
                    row = cache[seq] = dense_mask(seq, n, checksum)
                while row:
                    low = row & -row
                    if low in pivots:
                        row ^= pivots[low]
                    else:
                        pivots[low] = row
                        break
            seq += 1
        counts.append(shown)
    return counts


def frames_by_n(n, checksums, trials_each, seed=7):
    """Frames for n fragments averaged over random CRC-32s (each request's id is random, so its
    CRC, and with it the exact sequence of mixed codes, is too): mean and p95 of all trials."""
    rng = random.Random(seed * 1000 + n)
    counts = []
    for _ in range(checksums):
        fake = rng.getrandbits(32).to_bytes(4, "big")
        # frames_needed takes the payload to derive the CRC; give it bytes with a random CRC
        counts += frames_samples(fake, n, trials_each, rng.randrange(1 << 30))
    counts.sort()
    return sum(counts) / len(counts), counts[len(counts) * 95 // 100]


def airlock_fragments(path):
    """Fragment count airlock-qr itself reports for the file (dense, v17 L, deflate auto)."""
    with tempfile.TemporaryDirectory(prefix="airlock-dict-qr.") as d:
        r = subprocess.run([QR, "encode", path, "--qr-png", d, "--frames", "1"],
                           capture_output=True, text=True)
    m = re.search(r"in (\d+) fragments", r.stderr + r.stdout)
    return int(m.group(1)) if m else None


# --- main ---------------------------------------------------------------------------------------

def random_floor(raw, known):
    """Bytes of a request no dictionary of constants can predict: the request id, non-zero
    signature slots (keys of new positions sign at build time), and each distinct 32-byte key
    or blockhash (transaction keys, lookup-hint and pool-hint addresses) not in `known`.
    A lower bound for any compressor, ignoring amounts, bin ids and lengths."""
    e = cbor_decode(raw)
    seen = set(known)
    total = 16
    def key(k):
        nonlocal total
        if k not in seen:
            seen.add(k)
            total += 32
    key(e[4])
    key(e[5])
    for st in e[8]:
        tx = st[1]
        t = parse_tx(tx)
        total += sum(64 for i in range(t["nsig"]) if any(tx[1 + 64 * i:65 + 64 * i]))
        for k in t["keys"] + [t["blockhash"]]:
            key(k)
    hints = e.get(9, {})
    for table in hints.get(1, []):
        key(table[1])
        for _, addr in table[2]:
            key(addr)
    for pool in hints.get(3, []):
        for f in (1, 2, 3):
            key(pool[f])
    return total


def main():
    global QR
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the release binaries (airlock-qr)")
    ap.add_argument("--work", required=True, help="the folder build_dict.py wrote")
    ap.add_argument("--main-out", help="write the before/after table (public dictionary) here")
    ap.add_argument("--trials", type=int, default=400, help="trials per checksum")
    ap.add_argument("--checksums", type=int, default=100, help="random CRC-32s per fragment count")
    ap.add_argument("--check-airlock", action="store_true",
                    help="compare baseline fragment counts with airlock-qr encode")
    ap.add_argument("--versions", default="17,13,10")
    ap.add_argument("--reqs", help="the requests (default: WORK/reqs)")
    args = ap.parse_args()
    QR = os.path.join(args.bin, "airlock-qr")
    reqs_dir = args.reqs or os.path.join(args.work, "reqs")
    versions = [int(v) for v in args.versions.split(",")]
    if 17 not in versions:
        versions.insert(0, 17)

    dicts = {
        "P": os.path.join(args.work, "dict-public.bin"),
        "PD": os.path.join(args.work, "dict-public-dep.bin"),
        "T": os.path.join(args.work, "dict-trained.bin"),
    }
    ztrained = os.path.join(args.work, "dict-trained.zstd")
    have_zstd = shutil.which("zstd") is not None
    have_zstd_t = have_zstd and os.path.exists(ztrained)
    zd = {k: open(v, "rb").read() for k, v in dicts.items()}
    # 32-byte windows of the public dictionary: keys it would predict (for the floor column)
    known = {zd["P"][i:i + 32] for i in range(len(zd["P"]) - 31)}

    order = ["vault-claim-fee", "perp-onboard", "perp-order", "dlmm-claim-fee", "dlmm-remove",
             "dlmm-add", "swap", "dlmm-open-2", "dlmm-open-20"]
    files = sorted(glob.glob(os.path.join(reqs_dir, "*.alreq")),
                   key=lambda f: (order.index(os.path.basename(f)[:-6])
                                  if os.path.basename(f)[:-6] in order else 99, f))
    if not files:
        sys.exit(f"no .alreq files in {reqs_dir}")
    rows = []
    for f in files:
        name = os.path.basename(f)[:-6]
        raw = carried_bytes(f)
        variants = {
            "none": raw,
            "zlib": auto(raw, zlib9(raw)),
            "zlib+P": auto(raw, zlib9(raw, zd["P"])),
            "zlib+PD": auto(raw, zlib9(raw, zd["PD"])),
            "zlib+T": auto(raw, zlib9(raw, zd["T"])),
        }
        if have_zstd:
            variants["zstd"] = auto(raw, zstd19(raw))
            variants["zstd+P"] = auto(raw, zstd19(raw, dicts["P"]))
        if have_zstd_t:
            variants["zstd+T"] = auto(raw, zstd19(raw, ztrained))
        row = {"name": name, "steps": len(cbor_decode(raw)[8]), "variants": {},
               "floor": random_floor(raw, known)}
        for vname, carried in variants.items():
            row["variants"][vname] = {
                "bytes": len(carried),
                "frags_v": {v: fragments(len(carried), v) for v in versions},
            }
        if args.check_airlock:
            row["airlock_frags"] = airlock_fragments(f)
        rows.append(row)
        print(f"measured {name}", file=sys.stderr)
    vnames = list(rows[0]["variants"])
    if not have_zstd:
        notes = ["No zstd CLI on this machine: the zstd columns are left out."]
    elif not have_zstd_t:
        notes = ["No dict-trained.zstd (zstd --train failed): the zstd+T column is left out."]
    else:
        notes = []

    ns = sorted({r["variants"][v]["frags_v"][17] for r in rows for v in vnames})
    frames = {n: frames_by_n(n, args.checksums, args.trials) for n in ns}
    print("simulated frames", file=sys.stderr)

    cap = BYTE_CAP_L[17] - HEADER
    out = [f"Fragment payload at QR v17-L: {BYTE_CAP_L[17]} - {HEADER} = {cap} bytes."] + notes
    out.append("")
    out.append("### Bytes carried (the envelope CBOR; --deflate auto keeps the packed form only when smaller)")
    out.append("")
    out.append("| request | steps | " + " | ".join(vnames) + " | floor |")
    out.append("|---|---:|" + "---:|" * (len(vnames) + 1))
    for r in rows:
        base = r["variants"]["zlib"]["bytes"]
        cells = []
        for v in vnames:
            b = r["variants"][v]["bytes"]
            cells.append(f"{b}" if v in ("none", "zlib") else f"{b} ({100 * (b - base) / base:+.0f}%)")
        out.append(f"| {r['name']} | {r['steps']} | " + " | ".join(cells) + f" | {r['floor']} |")
    out.append("")
    out.append("### Dense fragments at v17-L, and frames a reader needs at 10% loss (mean / p95)")
    out.append("")
    out.append("| request | " + " | ".join(vnames) + " | floor |")
    out.append("|---|" + "---|" * (len(vnames) + 1))
    for r in rows:
        cells = []
        for v in vnames:
            n = r["variants"][v]["frags_v"][17]
            cells.append(f"**{n}** ({frames[n][0]:.1f} / {frames[n][1]})")
        out.append(f"| {r['name']} | " + " | ".join(cells) + f" | {-(-r['floor'] // cap)} |")
    out.append("")
    out.append(f"Frames by fragment count (exact dense chooser, {args.checksums} random CRC-32s x "
               f"{args.trials} trials, reader joins in the first three cycles, 10% of frames lost):")
    out.append("")
    out.append("| fragments | " + " | ".join(str(n) for n in ns) + " |")
    out.append("|---|" + "---:|" * len(ns))
    out.append("| mean frames | " + " | ".join(f"{frames[n][0]:.2f}" for n in ns) + " |")
    out.append("| p95 frames | " + " | ".join(str(frames[n][1]) for n in ns) + " |")
    if args.check_airlock:
        out.append("")
        ok = all(r["airlock_frags"] == r["variants"]["zlib"]["frags_v"][17] for r in rows)
        out.append("Check against `airlock-qr encode` (dense, v17 L, deflate auto) fragment counts: "
                   + ", ".join(f"{r['name']} {r['airlock_frags']}" for r in rows)
                   + (" -- all equal to this script's `zlib` column."
                      if ok else " -- MISMATCH with this script's `zlib` column!"))
    if len(versions) > 1:
        out.append("")
        out.append("### Fragments at other maximum QR versions (level L)")
        out.append("")
        after = ["zlib+P", "zlib+PD", "zlib+T"] + (["zstd+T"] if have_zstd_t else [])
        label = "zlib → " + " / ".join(a.replace("zlib", "") for a in after)
        out.append("| request | " + " | ".join(
            f"v{v} ({BYTE_CAP_L[v] - HEADER} B): {label}" for v in versions) + " |")
        out.append("|---|" + "---|" * len(versions))
        for r in rows:
            cells = []
            for v in versions:
                g = lambda k: r["variants"][k]["frags_v"][v]
                cells.append(f"{g('zlib')} → " + " / ".join(str(g(a)) for a in after))
            out.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    print("\n".join(out))

    if args.main_out:
        m = ["Public dictionary (dict-public.bin) at QR version 17, level L: airlock today "
             "(zlib-9, deflate auto) → with the dictionary. Frames: a reader joining in the "
             "first three cycles, 10% of frames lost, mean / p95.", "",
             "| request | steps | bytes carried | fragments | frames mean | frames p95 |",
             "|---|---:|---|---|---|---|"]
        for r in rows:
            b0, b1 = r["variants"]["zlib"]["bytes"], r["variants"]["zlib+P"]["bytes"]
            n0, n1 = r["variants"]["zlib"]["frags_v"][17], r["variants"]["zlib+P"]["frags_v"][17]
            m.append(f"| {r['name']} | {r['steps']} | {b0} → {b1} | {n0} → {n1} | "
                     f"{frames[n0][0]:.2f} → {frames[n1][0]:.2f} | {frames[n0][1]} → {frames[n1][1]} |")
        with open(args.main_out, "w") as f:
            f.write("\n".join(m) + "\n")


if __name__ == "__main__":
    main()

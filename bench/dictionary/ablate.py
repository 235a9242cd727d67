#!/usr/bin/env python3
"""Which pieces of the public dictionary do the work: zlib-9 bytes of each request in WORK/reqs
with no dictionary, with the whole public dictionary, and with each piece left out (the rest in
the same order). Reads the pieces build_dict.py wrote to WORK/dict-public.pieces.json.

Usage: ablate.py --work DIR > ablation.md
"""
import argparse
import glob
import json
import os
import zlib

from envelope import carried_bytes


def size(data, zdict):
    if not zdict:
        return len(zlib.compress(data, 9))
    c = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, zdict)
    return len(c.compress(data) + c.flush())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    reqs = {os.path.basename(f)[:-len(".alreq")]: carried_bytes(f)
            for f in sorted(glob.glob(os.path.join(args.work, "reqs/*.alreq")))}
    pieces = [(label, bytes.fromhex(h)) for label, h in
              json.load(open(os.path.join(args.work, "dict-public.pieces.json")))]
    names = list(reqs)
    print("| dictionary | bytes | " + " | ".join(names) + " | total |")
    print("|---|---:|" + "---:|" * (len(names) + 1))

    def row(label, d):
        s = [size(reqs[n], d) for n in names]
        print(f"| {label} | {len(d)} | " + " | ".join(map(str, s)) + f" | {sum(s)} |")

    row("none (airlock today)", b"")
    row("whole public dictionary", b"".join(p for _, p in pieces))
    for i, (label, _) in enumerate(pieces):
        row("without: " + label.split(":")[0], b"".join(p for j, (_, p) in enumerate(pieces) if j != i))


if __name__ == "__main__":
    main()

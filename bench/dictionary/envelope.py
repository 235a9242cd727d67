"""Small readers for airlock sign requests, enough to look inside them.

Only what the measurement needs: the bytes the dense framing carries (the envelope CBOR,
i.e. the .alreq file without its 4-byte magic), a minimal CBOR decoder, and a reader of
version-0 Solana messages (static account keys, instructions).
"""

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58decode(s: str) -> bytes:
    n = 0
    for c in s:
        n = n * 58 + B58.index(c)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    pad = len(s) - len(s.lstrip("1"))
    return b"\0" * pad + raw


def b58encode(b: bytes) -> str:
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + out


def pubkey(s: str) -> bytes:
    k = b58decode(s)
    if len(k) != 32:
        raise ValueError(f"{s}: {len(k)} bytes, not 32")
    return k


def carried_bytes(path: str) -> bytes:
    """The bytes the dense framing deflates and carries: the envelope CBOR without magic."""
    data = open(path, "rb").read()
    if data[:4] not in (b"ALQ1", b"ALS1"):
        raise ValueError(f"{path}: not an airlock envelope file")
    return data[4:]


def cbor_decode(b: bytes):
    def item(i):
        ib = b[i]
        major, info = ib >> 5, ib & 31
        i += 1
        if info < 24:
            val = info
        elif info in (24, 25, 26, 27):
            n = 1 << (info - 24)
            val = int.from_bytes(b[i:i + n], "big")
            i += n
        else:
            raise ValueError("unsupported CBOR head")
        if major == 0:
            return val, i
        if major == 1:
            return -1 - val, i
        if major == 2:
            return b[i:i + val], i + val
        if major == 3:
            return b[i:i + val].decode(), i + val
        if major == 4:
            out = []
            for _ in range(val):
                v, i = item(i)
                out.append(v)
            return out, i
        if major == 5:
            out = {}
            for _ in range(val):
                k, i = item(i)
                v, i = item(i)
                out[k] = v
            return out, i
        if major == 7:
            return {20: False, 21: True, 22: None}[info], i
        raise ValueError("unsupported CBOR major type")

    v, end = item(0)
    if end != len(b):
        raise ValueError("trailing bytes")
    return v


def parse_tx(tx: bytes):
    """Signatures count, static keys and instructions of a version-0 transaction."""

    def cu16(i):
        v = s = 0
        while True:
            c = tx[i]
            i += 1
            v |= (c & 0x7F) << s
            s += 7
            if not c & 0x80:
                return v, i

    nsig, i = cu16(0)
    i += 64 * nsig
    if tx[i] & 0x80:
        i += 1  # version prefix
    i += 3  # header
    nkeys, i = cu16(i)
    keys = [tx[i + 32 * k:i + 32 * k + 32] for k in range(nkeys)]
    i += 32 * nkeys
    blockhash = tx[i:i + 32]
    i += 32
    nix, i = cu16(i)
    ixs = []
    for _ in range(nix):
        prog = tx[i]
        i += 1
        na, i = cu16(i)
        accts = list(tx[i:i + na])
        i += na
        nd, i = cu16(i)
        ixs.append((prog, accts, tx[i:i + nd]))
        i += nd
    return {"nsig": nsig, "keys": keys, "blockhash": blockhash, "ixs": ixs}

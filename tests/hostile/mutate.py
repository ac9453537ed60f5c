#!/usr/bin/python3
"""tests/hostile/mutate.py: seeded mutants of real profiles for tests/hostile/mutate.sh.

    python3 mutate.py N OUTDIR PROFILE...

Writes N mutants of each PROFILE to OUTDIR (NAME.K.xplane.pb) and prints one
line per mutant: its path, a tab, what was done. The kinds cycle in this
order, each at offsets drawn from random.Random(f"{name}:{k}"):
  flip       1 to 8 bytes XORed with a random nonzero byte
  truncate   the file cut at a random length (at least 1 byte)
  duplicate  a chunk of up to 4096 bytes repeated in place
  varint     the length of a length-delimited field (tag 0x0a, 0x12, 0x1a, 0x22,
             0x2a) replaced by 2^63 - 1 in 9 bytes: far past the file
  int64      the file decoded along schema/xplane.proto's nesting (XSpace >
             XPlane > XLine > XEvent > XStat) and re-encoded with one value
             set to an extreme, the framing kept valid: a random event's
             offset_ps or duration_ps, or a line's timestamp_ns, set to
             INT64_MAX, INT64_MIN or -1
  metaid     the same with a random event's metadata_id, or a stat's
             metadata_id or ref_value, set to 2^40: an id that points nowhere
Each mutant is written as it was made: none is checked for being different
from a valid profile (a flip inside a name still parses).
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace import varint  # noqa: E402  (the tests' own wire encoder)

KINDS = ["flip", "truncate", "duplicate", "varint", "int64", "metaid"]


def replace_varint_after(data, rnd, tags, new):
    """Replace the varint after a random byte in `tags` by `new`."""
    offsets = [i for i in range(len(data) - 1) if data[i] in tags]
    if not offsets:
        return data, "no such tag: unchanged"
    i = rnd.choice(offsets)
    j = i + 1
    while j < len(data) and data[j] & 0x80:
        j += 1
    return data[:i + 1] + new + data[j + 1:], "at byte %d" % i


# Submessage fields along the path the mutations walk: (message, field) -> message
NESTED = {("space", 1): "plane", ("plane", 3): "line", ("line", 4): "event", ("event", 4): "stat"}


def read_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def decode(b, kind):
    """A message as a list of [field, wire, value]; known submessages decoded."""
    out, i = [], 0
    while i < len(b):
        key, i = read_varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = read_varint(b, i)
        elif w == 2:
            n, i = read_varint(b, i)
            v = b[i:i + n]
            i += n
            sub = NESTED.get((kind, f))
            if sub:
                v = (sub, decode(v, sub))
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        out.append([f, w, v])
    return out


def encode(msg):
    out = bytearray()
    for f, w, v in msg:
        out += varint(f << 3 | w)
        if w == 0:
            out += varint(v)
        elif w == 2:
            body = encode(v[1]) if isinstance(v, tuple) else v
            out += varint(len(body)) + body
        else:
            out += v
    return bytes(out)


def fields(msg, kind, want):
    """Every [field, wire, value] entry of messages of kind want[0] with field in want[1]."""
    for e in msg:
        f, w, v = e
        if isinstance(v, tuple):
            yield from fields(v[1], v[0], want)
        if kind == want[0] and f in want[1] and w == 0:
            yield e


def set_field(data, rnd, targets, values):
    msg = decode(data, "space")
    cands = [(t, e) for t in targets for e in fields(msg, "space", t)]
    if not cands:
        return data, "no such field: unchanged"
    (kind, fs), e = rnd.choice(cands)
    e[2] = rnd.choice(values) & ((1 << 64) - 1)
    return encode(msg), "%s field %d = %d" % (kind, e[0], e[2] - (1 << 64) if e[2] >= 1 << 63 else e[2])


def mutate(data, kind, rnd):
    n = len(data)
    if kind == "flip":
        b = bytearray(data)
        where = sorted(rnd.randrange(n) for _ in range(rnd.randint(1, 8)))
        for i in where:
            b[i] ^= rnd.randint(1, 255)
        return bytes(b), "bytes " + ",".join(map(str, where))
    if kind == "truncate":
        k = rnd.randrange(1, n)
        return data[:k], "to %d of %d bytes" % (k, n)
    if kind == "duplicate":
        a = rnd.randrange(n)
        ln = rnd.randint(1, min(4096, n - a))
        return data[:a + ln] + data[a:a + ln] + data[a + ln:], "%d bytes at %d" % (ln, a)
    if kind == "varint":
        return replace_varint_after(data, rnd, (0x0A, 0x12, 0x1A, 0x22, 0x2A), varint((1 << 63) - 1))
    if kind == "int64":
        return set_field(data, rnd, [("event", (2, 3)), ("line", (3,))], [(1 << 63) - 1, -(1 << 63), -1])
    if kind == "metaid":
        return set_field(data, rnd, [("event", (1,)), ("stat", (1, 7))], [1 << 40])
    raise ValueError(kind)


def main():
    count, out = int(sys.argv[1]), sys.argv[2]
    for path in sys.argv[3:]:
        data = open(path, "rb").read()
        name = os.path.basename(path)[: -len(".xplane.pb")]
        for k in range(count):
            kind = KINDS[k % len(KINDS)]
            m, what = mutate(data, kind, random.Random("%s:%d" % (name, k)))
            dst = os.path.join(out, "%s.%d.xplane.pb" % (name, k))
            with open(dst, "wb") as f:
                f.write(m)
            print("%s\t%s %s" % (dst, kind, what))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""tests/hostile/xspace.py: write hostile XSpace profiles for tests/hostile/*.sh.

    python3 tests/hostile/xspace.py KIND N OUT

A minimal protobuf wire encoder written from the field numbers of
schema/xplane.proto (independent of the extension's decoder). KIND:
  planes N       N empty planes (2 bytes each: tag 0x0a, length 0)
  lines N        a plane /device:GPU:0 with metadata {1: "fusion.1"}, one
                 line (id 1) holding one op (offset 0, 1000 ps), then N empty
                 lines with ids 2..N+1
  seq_ids N      a plane with N event metadata entries, ids 1..N
  crafted_ids N  the same with N ids whose old 64-bit hash (x ^= x >> 33;
                 x *= 0xff51afd7ed558ccd; x ^= x >> 33) has 16 low zero bits:
                 every id lands in one slot of the id map's table
  kernels N      a plane /device:GPU:0 whose `XLA Ops` line holds N ops
                 (fusion.1, 1000 ps apart, 1000 ps each), each with a
                 kernel_details stat referring (ref_value) to one interned
                 string of 1000 tokens `regs:K` (about 7 KB)
  memory N       a plane /device:GPU:0 with N ops as `kernels` (no stats),
                 and a plane /host:CPU whose line holds N/20 MemoryAllocation
                 events, event k at k*1000 ps with bytes_allocated k+1 and
                 allocator_name `a<k>`: N/20 allocators
  events SPEC    a plane /device:GPU:0 (metadata {1: "fusion.1"}), one line
                 per ';'-separated part of SPEC: `TS_NS:OFF/DUR,OFF/DUR...`,
                 the line's timestamp_ns and its events' offset_ps/duration_ps
                 (e.g. "0:0/4611686018427387904,0/4611686018427387904")
  stats N        the one-op profile of `lines 0` whose op carries N int64
                 stats, all with stat metadata id 2 ("s"), values 0..N-1
  ops N          the plane of `lines 0` with one line of N ops, each 10 ps,
                 back to back (offsets 0, 10, 20, ...)
  named_ops N    the plane of `lines 0` with one line of N ops (10 ps each,
                 back to back), each its own name "op<i>" (metadata id i+1)
                 and a str stat tf_op (stat id N+1) of 1,000 characters, its
                 own ("<i>" then 'x's)
  utf8 0         a plane "/device:GPU:0" whose event name (id 1), stat name
                 (id 2), line name and one str stat value hold BAD_UTF8 (below)
                 between ASCII; one line, one op (offset 0, 1000 ps) with that
                 stat. `python3 xspace.py bad_utf8` prints BAD_UTF8 in hex.
  line_names 0   a plane /device:GPU:0 (metadata {1: "fusion.1"}) whose five
                 lines share id 7 (one thread), named "a" 0xff, "a" U+FFFD
                 (what the ill-formed one reads as once repaired), "b" NUL "x",
                 "b" NUL "y" (alike up to the NUL) and "c"; line k holds two
                 events of 1000 ps at offsets 10000k and 10000k + 2000 ps
  names 0        names that are hostile where they are printed (HOSTILE
                 below: markup, a script, quotes, table pipes, newlines,
                 backticks, ANSI and OSC escapes, a bell, invalid UTF-8, a
                 NUL) in an op name each, a line name, a plane name and the
                 host name: a plane /device:GPU:0 whose line 1 "Stream #1("
                 HOSTILE[1] ")" holds op k (k = 0..8) named HOSTILE[k], at
                 offset 10000k ps lasting 1000(k + 1) ps, each with an hlo_op
                 str stat equal to its name; a plane "/host:CPU" HOSTILE[4]
                 (id 1) whose line 2 "python" HOSTILE[2] holds one event
                 HOSTILE[3] (offset 0, 5000 ps); hostnames = ["h" HOSTILE[0]].
                 `python3 xspace.py hostile` prints HOSTILE, one name per
                 line, in hex.
  bigstat MIB    the one-op profile of `lines 0` whose op carries one str stat
                 ("blob", id 2) of MIB MiB of 'a', written in 1 MiB pieces
  bigstat0 MIB   the same with MIB MiB of NUL bytes, written as a hole (a
                 sparse file: no disk blocks, no time)
"""
import sys

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def key(field, wt):
    return varint(field << 3 | wt)

def f_int(field, v):
    return key(field, 0) + varint(v)

def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b

M = (1 << 64) - 1

def unxorshift33(y):
    # inverse of x ^= x >> 33 on 64 bits
    return y ^ (y >> 33)

def crafted(i):
    c = 0xFF51AFD7ED558CCD
    cinv = pow(c, -1, 1 << 64)
    y = (i << 16) & M              # the hash's low 16 bits are zero
    x = unxorshift33(y)
    x = (x * cinv) & M
    x = unxorshift33(x)
    return x - (1 << 64) if x >= 1 << 63 else x

def meta_entry(mid, name):
    return f_bytes(4, f_int(1, mid) + f_bytes(2, f_int(1, mid) + f_bytes(2, name)))

# Ill-formed UTF-8, one of each kind of Unicode's table 3-7 (a lone
# continuation byte, bytes never used, overlong forms, a surrogate, past
# U+10FFFF, truncated sequences), with well-formed 2- and 4-byte characters
# between them that must survive.
BAD_UTF8 = (b"a\x80b\xffc\xc0\xafd\xe0\x80\xafe\xed\xa0\x80f\xf4\x90\x80\x80g"
            b"\xf0\x9f\x98h\xc3\xa9i\xf0\x9f\x98\x80j\xe2\x82k\xc3")

def utf8_profile():
    stat = f_bytes(4, f_int(1, 2) + f_bytes(5, b"v" + BAD_UTF8))
    ev = f_bytes(4, f_int(1, 1) + f_int(2, 0) + f_int(3, 1000) + stat)
    line = f_bytes(3, f_int(1, 1) + f_bytes(2, b"XLA Ops") + f_bytes(11, b"line" + BAD_UTF8) + ev)
    smeta = f_bytes(5, f_int(1, 2) + f_bytes(2, f_int(1, 2) + f_bytes(2, b"note" + BAD_UTF8)))
    plane = f_bytes(2, "/device:GPU:0") + meta_entry(1, b"fusion." + BAD_UTF8) + smeta + line
    return f_bytes(1, plane)

# Hostile names (see `names` above). Each carries the marker that a test
# looks for: a script that runs sets data-pwned on the document's body.
HOSTILE = [
    b"<script>document.body.setAttribute('data-pwned','1')</script>",
    b"<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">",
    b"pipe|in|name\nnew | line",
    b"tick`s ```fence``` and *stars* _under_ [link](javascript:alert(1))",
    b"ansi\x1b[31mRED\x1b[0m\x1b]0;title\x07bell\x07\x1b[2J",
    b"quote'\"; DROP TABLE x; --",
    b"bad\xff\xfeutf8\xc3",
    b"nul\x00after",
    b"back\\slash\ttab\rreturn",
]

def names_profile():
    hlo = 2
    smeta = f_bytes(5, f_int(1, hlo) + f_bytes(2, f_int(1, hlo) + f_bytes(2, "hlo_op")))
    metas = b"".join(meta_entry(k + 1, nm) for k, nm in enumerate(HOSTILE))
    evs = b"".join(f_bytes(4, f_int(1, k + 1) + f_int(2, 10000 * k) + f_int(3, 1000 * (k + 1)) +
                           f_bytes(4, f_int(1, hlo) + f_bytes(5, nm)))
                   for k, nm in enumerate(HOSTILE))
    line = f_bytes(3, f_int(1, 1) + f_bytes(2, b"Stream #1(" + HOSTILE[1] + b")") + evs)
    dev = f_bytes(1, f_int(1, 1) + f_bytes(2, "/device:GPU:0") + metas + smeta + line)
    hev = f_bytes(4, f_int(1, 1) + f_int(2, 0) + f_int(3, 5000))
    hline = f_bytes(3, f_int(1, 2) + f_bytes(2, b"python" + HOSTILE[2]) + hev)
    host = f_bytes(1, f_int(1, 2) + f_bytes(2, b"/host:CPU" + HOSTILE[4]) + meta_entry(1, HOSTILE[3]) + hline)
    return dev + host + f_bytes(4, b"h" + HOSTILE[0])

def write_bigstat(mib, out, sparse=False):
    """Written in pieces: the stat's length prefixes come first."""
    piece = b"a" * (1 << 20)
    n = mib << 20
    value = key(5, 2) + varint(n)                    # str_value header
    stat_n = len(f_int(1, 2)) + len(value) + n
    stat_hdr = key(4, 2) + varint(stat_n) + f_int(1, 2) + value
    ev_body_pre = f_int(1, 1) + f_int(2, 0) + f_int(3, 1000)
    ev_n = len(ev_body_pre) + len(stat_hdr) + n
    ev_hdr = key(4, 2) + varint(ev_n) + ev_body_pre + stat_hdr
    line_pre = f_int(1, 1) + f_bytes(2, "XLA Ops")
    line_n = len(line_pre) + len(ev_hdr) + n
    line_hdr = key(3, 2) + varint(line_n) + line_pre + ev_hdr
    smeta = f_bytes(5, f_int(1, 2) + f_bytes(2, f_int(1, 2) + f_bytes(2, "blob")))
    plane_pre = f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + smeta
    plane_n = len(plane_pre) + len(line_hdr) + n
    with open(out, "wb") as f:
        f.write(key(1, 2) + varint(plane_n) + plane_pre + line_hdr)
        if sparse:
            f.truncate(f.tell() + n)
            return
        for _ in range(mib):
            f.write(piece)

def main():
    if sys.argv[1] == "bad_utf8":
        print(BAD_UTF8.hex())
        return
    if sys.argv[1] == "hostile":
        print("\n".join(nm.hex() for nm in HOSTILE))
        return
    if sys.argv[1] in ("bigstat", "bigstat0"):
        write_bigstat(int(sys.argv[2]), sys.argv[3], sys.argv[1] == "bigstat0")
        return
    kind, out = sys.argv[1], sys.argv[3]
    n = 0 if kind == "events" else int(sys.argv[2])
    if kind == "planes":
        data = b"\x0a\x00" * n
    elif kind == "lines":
        ev = f_bytes(4, f_int(1, 1) + f_int(2, 0) + f_int(3, 1000))
        lines = [f_bytes(3, f_int(1, 1) + f_bytes(2, "XLA Ops") + ev)]
        lines += [f_bytes(3, f_int(1, i + 2)) for i in range(n)]
        plane = f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + b"".join(lines)
        data = f_bytes(1, plane)
    elif kind in ("seq_ids", "crafted_ids"):
        ids = [i + 1 for i in range(n)] if kind == "seq_ids" else [crafted(i + 1) for i in range(n)]
        plane = f_bytes(2, "/host:CPU") + b"".join(meta_entry(i, "m%d" % k) for k, i in enumerate(ids))
        data = f_bytes(1, plane)
    elif kind == "events":
        lines = b""
        for k, part in enumerate(sys.argv[2].split(";")):
            ts, evspec = part.split(":")
            evs = b""
            for e in filter(None, evspec.split(",")):
                off, dur = (int(x) for x in e.split("/"))
                evs += f_bytes(4, f_int(1, 1) + f_int(2, off) + f_int(3, dur))
            lines += f_bytes(3, f_int(1, k + 1) + f_bytes(2, "XLA Ops") + f_int(3, int(ts)) + evs)
        plane = f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + lines
        data = f_bytes(1, plane)
    elif kind == "stats":
        stats = b"".join(f_bytes(4, f_int(1, 2) + f_int(4, i)) for i in range(n))
        ev = f_bytes(4, f_int(1, 1) + f_int(2, 0) + f_int(3, 1000) + stats)
        smeta = f_bytes(5, f_int(1, 2) + f_bytes(2, f_int(1, 2) + f_bytes(2, "s")))
        line = f_bytes(3, f_int(1, 1) + f_bytes(2, "XLA Ops") + ev)
        data = f_bytes(1, f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + smeta + line)
    elif kind == "ops":
        evs = b"".join(f_bytes(4, f_int(1, 1) + f_int(2, 10 * i) + f_int(3, 10)) for i in range(n))
        line = f_bytes(3, f_int(1, 1) + f_bytes(2, "XLA Ops") + evs)
        data = f_bytes(1, f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + line)
    elif kind == "named_ops":
        tf = n + 1
        evs = b"".join(f_bytes(4, f_int(1, i + 1) + f_int(2, 10 * i) + f_int(3, 10) +
                               f_bytes(4, f_int(1, tf) + f_bytes(5, (str(i) + "x" * 1000)[:1000])))
                       for i in range(n))
        metas = b"".join(meta_entry(i + 1, "op%d" % i) for i in range(n))
        smeta = f_bytes(5, f_int(1, tf) + f_bytes(2, f_int(1, tf) + f_bytes(2, "tf_op")))
        line = f_bytes(3, f_int(1, 1) + f_bytes(2, "XLA Ops") + evs)
        data = f_bytes(1, f_bytes(2, "/device:GPU:0") + metas + smeta + line)
    elif kind == "utf8":
        data = utf8_profile()
    elif kind == "names":
        data = names_profile()
    elif kind == "line_names":
        names = [b"a\xff", "a\ufffd".encode(), b"b\x00x", b"b\x00y", b"c"]
        lines = b"".join(
            f_bytes(3, f_int(1, 7) + f_bytes(2, nm) +
                    b"".join(f_bytes(4, f_int(1, 1) + f_int(2, 10000 * k + d) + f_int(3, 1000)) for d in (0, 2000)))
            for k, nm in enumerate(names))
        data = f_bytes(1, f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + lines)
    elif kind in ("kernels", "memory"):
        stats = b""
        if kind == "kernels":
            stats = f_bytes(4, f_int(1, 1) + f_int(7, 2))
        ev = lambda k: f_bytes(4, f_int(1, 1) + f_int(2, k * 1000) + f_int(3, 1000) + stats)
        details = " ".join("regs:%d" % (k % 100) for k in range(1000))
        smeta = b""
        if kind == "kernels":
            smeta = (f_bytes(5, f_int(1, 1) + f_bytes(2, f_int(1, 1) + f_bytes(2, "kernel_details"))) +
                     f_bytes(5, f_int(1, 2) + f_bytes(2, f_int(1, 2) + f_bytes(2, details))))
        line = f_bytes(3, f_int(1, 1) + f_bytes(2, "XLA Ops") + b"".join(ev(k) for k in range(n)))
        data = f_bytes(1, f_bytes(2, "/device:GPU:0") + meta_entry(1, "fusion.1") + smeta + line)
        if kind == "memory":
            smeta = (f_bytes(5, f_int(1, 1) + f_bytes(2, f_int(1, 1) + f_bytes(2, "bytes_allocated"))) +
                     f_bytes(5, f_int(1, 2) + f_bytes(2, f_int(1, 2) + f_bytes(2, "allocator_name"))))
            mev = lambda k: f_bytes(4, f_int(1, 1) + f_int(2, k * 1000) + f_int(3, 0) +
                                    f_bytes(4, f_int(1, 1) + f_int(4, k + 1)) +
                                    f_bytes(4, f_int(1, 2) + f_bytes(5, "a%d" % k)))
            line = f_bytes(3, f_int(1, 7) + f_bytes(2, "python") + b"".join(mev(k) for k in range(n // 20)))
            data += f_bytes(1, f_int(1, 1) + f_bytes(2, "/host:CPU") + meta_entry(1, "MemoryAllocation") + smeta + line)
    else:
        sys.exit("unknown kind " + kind)
    with open(out, "wb") as f:
        f.write(data)

if __name__ == "__main__":
    main()

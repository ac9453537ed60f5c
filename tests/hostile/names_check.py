#!/usr/bin/python3
"""tests/hostile/names_check.py: checks of tests/hostile/names.sh on what the
xplane command prints for a profile whose names are hostile (xspace.py
`names`: HOSTILE there).

    python3 names_check.py KIND FILE [DOM]

Prints one line per failed check ("FAIL ...") and exits 1 on any, else 0.
KIND:
  text   any output: valid UTF-8, no control character but newline (and tab
         where a format allows it: none of ours), no DEL, no C1 control
         (U+0080..U+009F: U+009B is a terminal's CSI), no bidi override
  md     text, and every GFM table's rows have the header's cell count
         (cells split at unescaped `|`); each hostile op name found in the
         first cell of a table row decodes (CommonMark code span: the
         delimiter run, one space stripped on each side when both are
         there, `\\|` a pipe) to its printable form (below); every hostile
         op name is found
  html   text, and the DOM that headless Chromium dumped after running the
         page (DOM) has no body attribute data-pwned (set by the hostile
         names' script and onerror handler if either ran); each printable
         op name is the text of a <code> or <title> element of FILE
  html-doc  html, for a page built from the profile_summary.v1 document
         (report --html --format reference): a name read back from that
         JSON is cut at its first NUL (SQLite's JSON functions return text
         up to an escaped \u0000), so the name is expected up to its NUL
  json   valid JSON (strict: no raw control character in a string); each
         hostile op name occurs as a string, decoded as Python's
         bytes.decode('utf-8', 'replace')
  jsonvalid  valid JSON and text (a document that need not name the ops:
         a comparison of a profile with itself lists no op change)
The printable form is written here from the rule of core/escape.h (an
independent implementation): ill-formed UTF-8 as U+FFFD (Python's
decoder, Unicode's maximal-subpart practice), C0 controls as U+2400 + c,
DEL as U+2421, C1 controls and bidi controls as U+FFFD.
"""
import html.parser
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace import HOSTILE  # noqa: E402

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL " + msg)


def printable(raw):
    out = []
    for ch in raw.decode("utf-8", "replace"):
        c = ord(ch)
        if c < 0x20:
            out.append(chr(0x2400 + c))
        elif c == 0x7F:
            out.append("\u2421")
        elif 0x80 <= c <= 0x9F or 0x202A <= c <= 0x202E or 0x2066 <= c <= 0x2069:
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def check_text(path, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{path}: not valid UTF-8: {e}")
        return None
    for k, ch in enumerate(text):
        c = ord(ch)
        if (c < 0x20 and ch != "\n") or c == 0x7F or 0x80 <= c <= 0x9F or 0x202A <= c <= 0x202E \
                or 0x2066 <= c <= 0x2069:
            line = text.count("\n", 0, k) + 1
            fail(f"{path}: control character U+{c:04X} on line {line}")
            return text
    return text


def split_cells(row):
    """A GFM table row's cells: split at `|` not escaped by a backslash."""
    body = row.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return re.split(r"(?<!\\)\|", body)


def code_span(cell):
    """The text of a cell that is one CommonMark code span, else None."""
    cell = cell.strip().replace("\\|", "|")
    m = re.fullmatch(r"(`+)(.*?)(`+)", cell, re.S)
    if not m or len(m.group(1)) != len(m.group(3)):
        return None
    inner = m.group(2)
    if ("`" * len(m.group(1))) in re.sub(r"`{%d,}" % (len(m.group(1)) + 1), "", inner):
        return None  # the delimiter run occurs inside: not one span
    if len(inner) >= 2 and inner[0] == " " and inner[-1] == " " and inner.strip(" "):
        inner = inner[1:-1]
    return inner


def check_md(path, text):
    want = {printable(n) for n in HOSTILE}
    found = set()
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        if lines[k].startswith("|") and k + 1 < len(lines) and re.fullmatch(r"\|(:?-+:?\|)+", lines[k + 1]):
            n = len(split_cells(lines[k]))
            k += 2
            while k < len(lines) and lines[k].startswith("|"):
                cells = split_cells(lines[k])
                if len(cells) != n:
                    fail(f"{path}: line {k + 1}: {len(cells)} cells, the header has {n}: {lines[k][:120]!r}")
                span = code_span(cells[0])
                if span in want:
                    found.add(span)
                k += 1
            continue
        k += 1
    for name in sorted(want - found):
        fail(f"{path}: no table row's first cell reads {name!r}")


class Texts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.texts = [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append([tag, ""])

    def handle_endtag(self, tag):
        while self.stack:
            t, s = self.stack.pop()
            if t in ("code", "title"):
                self.texts.append(s)
            if self.stack:
                self.stack[-1][1] += s
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][1] += data


def check_html(path, text, dom_path, nul_cut=False):
    dom = open(dom_path, encoding="utf-8", errors="replace").read()
    if "<body" not in dom:
        fail(f"{dom_path}: Chromium dumped no DOM")
    if re.search(r"<body[^>]*data-pwned", dom):
        fail(f"{path}: a script from a name ran (body has data-pwned)")
    p = Texts()
    p.feed(text)
    texts = p.texts
    for name in (printable(n.split(b"\0")[0] if nul_cut else n) for n in HOSTILE):
        if not any(name in t for t in texts):
            fail(f"{path}: no <code> or <title> text holds {name!r}")


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def check_json(path, data, names=True):
    try:
        doc = json.loads(data.decode("utf-8"), strict=True)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(f"{path}: not valid JSON: {e}")
        return
    if not names:
        return
    have = set(strings(doc))
    for raw in HOSTILE:
        name = raw.decode("utf-8", "replace")
        if name not in have:
            fail(f"{path}: no string equals {name!r}")


def main():
    kind, path = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    if kind in ("json", "jsonvalid"):
        check_json(path, data, kind == "json")
        check_text(path, data)
    else:
        text = check_text(path, data)
        if text is not None and kind == "md":
            check_md(path, text)
        if text is not None and kind in ("html", "html-doc"):
            check_html(path, text, sys.argv[3], kind == "html-doc")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

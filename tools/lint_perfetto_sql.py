#!/usr/bin/env python3
"""tools/lint_perfetto_sql.py: check a PerfettoSQL package against the
conventions of Perfetto's standard library.

  /usr/bin/python3 tools/lint_perfetto_sql.py tp_plugin/xplane [PACKAGE_NAME]

PACKAGE_NAME defaults to the directory's name; module `<package>.<file>` is
the file `<file>.sql`. Prints one line per problem, `file:line: message`,
and exits 1 when there is any (0 otherwise). The rules:

- every file starts with a comment (what the module is, how to use it);
- objects (CREATE PERFETTO TABLE / VIEW / FUNCTION / MACRO / INDEX) are
  named `<package>_...` (public) or `_<package>_...` (private, `_` first);
  no plain CREATE TABLE / VIEW / TRIGGER / INDEX and no DROP anywhere;
- every public object has a comment right above it, and every column of a
  public table or view and every argument of a public function has a
  comment line right above it; a public function says what it returns
  (the comment above the object);
- column and argument types are PerfettoSQL's: TIMESTAMP, DURATION, ID,
  JOINID(table.column), ID(table.column), ARGSETID, LONG, DOUBLE, STRING,
  BOOL, BYTES;
- no WHERE term is a subquery alone (`WHERE (SELECT flag FROM t)`, `AND
  NOT (SELECT ...)`): SQLite tests such a constant term row by row, after
  trace processor has already filtered (and for a GROUP BY or ORDER BY,
  sorted) every row of its table, so it switches nothing off; a statement
  is switched off by `LIMIT (SELECT ...)` giving 0, which ends it before
  its first row is read;
- INCLUDEs match what is used: a module that uses an object defined by
  another module of the package includes that module itself, and every
  module it includes defines an object it uses (`<package>.reports`-style
  modules that only gather others, with no object of their own, may include
  any).
"""
import os
import re
import sys

TYPES = re.compile(r"^(TIMESTAMP|DURATION|ID|ARGSETID|LONG|DOUBLE|STRING|BOOL|BYTES|"
                   r"(JOINID|ID)\(\w+\.\w+\))$")
CREATE = re.compile(r"^CREATE\s+PERFETTO\s+(TABLE|VIEW|FUNCTION|MACRO|INDEX)\s+(\w+)", re.I | re.M)
PLAIN = re.compile(r"^[ \t]*CREATE\s+(TEMP\s+|TEMPORARY\s+)?(TABLE|VIEW|TRIGGER|INDEX)\b", re.I | re.M)
DROP = re.compile(r"\bDROP\s+(TABLE|VIEW|INDEX|TRIGGER|PERFETTO)\b", re.I)
GATE = re.compile(r"\b(WHERE|AND|OR)\s+(NOT\s+)?\(\s*SELECT\b[^()]*\bFROM\s+\w+\s*\)", re.I)
INCLUDE = re.compile(r"^INCLUDE\s+PERFETTO\s+MODULE\s+([\w.]+)\s*;", re.I | re.M)


def strip_comments_and_strings(text):
    """The text with comments and string literals blanked (lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "'":
            j = i + 1
            while j < n:
                if text[j] == "'" and text.startswith("''", j):
                    j += 2
                elif text[j] == "'":
                    break
                else:
                    j += 1
            out.append("'" + re.sub(r"[^\n]", " ", text[i + 1:j]) + "'")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def declared_list(code, start):
    """From '(' at start, the text inside the matching parentheses and the end."""
    depth = 0
    for j in range(start, len(code)):
        if code[j] == "(":
            depth += 1
        elif code[j] == ")":
            depth -= 1
            if depth == 0:
                return code[start + 1:j], j
    return None, len(code)


def lint(directory, package):
    problems = []
    files = sorted(f for f in os.listdir(directory) if f.endswith(".sql"))
    defined = {}   # object -> module
    texts = {}
    for f in files:
        module = package + "." + f[:-4]
        text = open(os.path.join(directory, f), encoding="utf-8").read()
        texts[module] = (f, text)
        for m in CREATE.finditer(text):
            defined[m.group(2).lower()] = module

    for module, (f, text) in texts.items():
        code = strip_comments_and_strings(text)
        lines = text.split("\n")

        def bad(pos_or_line, msg, is_line=False):
            ln = pos_or_line if is_line else line_of(text, pos_or_line)
            problems.append("%s:%d: %s" % (f, ln, msg))

        if not lines or not lines[0].startswith("--"):
            bad(1, "the file does not start with a comment saying what the module is", True)
        for m in PLAIN.finditer(code):
            bad(m.start(), "plain CREATE %s: use CREATE PERFETTO TABLE / VIEW / FUNCTION" % m.group(2).upper())
        for m in DROP.finditer(code):
            bad(m.start(), "DROP: a module never drops objects")
        for m in GATE.finditer(code):
            bad(m.start(), "a subquery alone as a WHERE term reads every row all the same: "
                           "switch the statement off with LIMIT (SELECT ...) instead")

        for m in CREATE.finditer(code):
            kind, name = m.group(1).upper(), m.group(2)
            public = not name.startswith("_")
            if not re.match(r"^_?%s_\w+$" % re.escape(package), name):
                bad(m.start(), "%s %s: name it %s_... (public) or _%s_... (private)" % (kind, name, package, package))
            ln = line_of(text, m.start())
            if public and (ln < 2 or not lines[ln - 2].lstrip().startswith("--")):
                bad(m.start(), "public %s %s has no comment above it" % (kind, name))
            if kind == "INDEX":
                continue
            paren = code.find("(", m.end())
            body, end = declared_list(code, paren) if paren >= 0 and code[m.end():paren].strip() == "" else (None, 0)
            if body is None:
                if public and kind in ("TABLE", "VIEW"):
                    bad(m.start(), "public %s %s declares no columns" % (kind, name))
                continue
            # entries of the list: split on ',' at depth 0
            depth, start = 0, 0
            entries = []
            for j, c in enumerate(body + ","):
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                elif c == "," and depth == 0:
                    entries.append((start, body[start:j]))
                    start = j + 1
            for off, entry in entries:
                words = entry.split()
                if not words:
                    continue
                col, typ = words[0], "".join(words[1:])
                pos = paren + 1 + off + (len(entry) - len(entry.lstrip()))
                what = "argument" if kind in ("FUNCTION", "MACRO") else "column"
                if kind != "MACRO" and not TYPES.match(typ):
                    bad(pos, "%s %s.%s: type %r is not a PerfettoSQL type" % (what, name, col, typ))
                cl = line_of(text, pos)
                if public and not lines[cl - 2].lstrip().startswith("--"):
                    bad(pos, "%s %s.%s of a public %s has no comment above it" % (what, name, col, kind.lower()))

        # INCLUDEs against what is used
        includes = {}
        for m in INCLUDE.finditer(code):
            includes[m.group(1)] = m.start()
        used = set()
        own = {n for n, mod in defined.items() if mod == module}
        for w in set(re.findall(r"\b_?%s_\w+\b" % re.escape(package), code, re.I)):
            w = w.lower()
            if w in defined and defined[w] != module:
                used.add(defined[w])
        for mod in sorted(used):
            if mod not in includes:
                names = sorted(n for n in set(re.findall(r"\b_?%s_\w+\b" % re.escape(package), code, re.I))
                               if defined.get(n.lower()) == mod)
                bad(1, "uses %s (module %s) without INCLUDE PERFETTO MODULE %s" % (", ".join(names), mod, mod), True)
        for mod, pos in includes.items():
            if mod.startswith(package + ".") and mod not in texts:
                bad(pos, "INCLUDE of %s: no such module in the package" % mod)
            elif mod.startswith(package + ".") and mod not in used and own:
                bad(pos, "INCLUDE of %s: nothing of it is used here" % mod)
    return problems


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tools/lint_perfetto_sql.py PACKAGE_DIR [PACKAGE_NAME]")
    directory = sys.argv[1]
    package = sys.argv[2] if len(sys.argv) > 2 else os.path.basename(os.path.normpath(directory))
    problems = lint(directory, package)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

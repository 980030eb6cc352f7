#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mount-options-man.py MD VERSION: print the 9p2000(5) man page made from
docs/mount-options.md, so that the page and the reference cannot drift apart.

Only the Markdown that file uses is understood: one '#' title, '##' sections,
paragraphs, fenced code blocks, '-' lists, tables, inline `code` and
**bold**. A table row becomes a tagged paragraph: the first cell is the tag,
the other cells follow, each but the last headed by its column's name.
Anything else is an error, so a new construct in the source fails the build
instead of coming out garbled.
"""
import re
import sys

NAME = r"9p2000 \- mount options of the 9P file system (9p2000.ko)"


def esc(text):
    """Escape plain text for troff (not the start of a line)."""
    return text.replace("\\", "\\e")


def inline(text):
    """Markdown inline markup to troff font changes."""
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)]+)\)", text):
        out.append(esc(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append(r"\fB" + esc(m.group(1)).replace("-", r"\-") + r"\fR")
        elif m.group(2) is not None:
            out.append(r"\fB" + esc(m.group(2)) + r"\fR")
        else:
            out.append(esc(m.group(3)))
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def line(text):
    """A text line: protect a leading control character."""
    if text.startswith((".", "'")):
        return r"\&" + text
    return text


def cells(row):
    """Cells of a table row; '\\|' is a literal bar."""
    row = row.strip()
    if not (row.startswith("|") and row.endswith("|")):
        raise ValueError("malformed table row: " + row)
    parts = re.split(r"(?<!\\)\|", row[1:-1])
    return [p.strip().replace("\\|", "|") for p in parts]


def table(rows, out):
    head = cells(rows[0])
    if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", rows[1].strip()):
        raise ValueError("table without a separator row: " + rows[1])
    for row in rows[2:]:
        c = cells(row)
        if len(c) != len(head):
            raise ValueError("table row with %d cells, header has %d: %s"
                             % (len(c), len(head), row))
        out.append(".TP")
        out.append(line(inline(c[0]) if c[0] else r"\&"))
        body = []
        for i in range(1, len(c)):
            if not c[i]:
                continue
            if i == len(c) - 1 and head[i] == "Meaning":
                body.append(inline(c[i]))
            else:
                body.append(r"\fI" + esc(head[i].replace("`", "")) + r":\fR " + inline(c[i]))
        for j, b in enumerate(body):
            if j:
                out.append(".br")
            out.append(line(b))


def convert(md, version):
    src = md.split("\n")
    out = [
        r'.\" SPDX-License-Identifier: GPL-2.0',
        r'.\" Generated from mount-options.md by mount-options-man.py: edit that file.',
        '.TH 9P2000 5 "" "v9fs %s" "File Formats Manual"' % version,
        ".SH NAME",
        NAME,
    ]
    i = 0
    section = None      # None: before the first '##'
    synopsis_done = False
    para = []

    def flush():
        if para:
            out.append(".PP")
            out.extend(line(inline(p)) for p in para)
            para.clear()

    while i < len(src):
        s = src[i]
        if s.startswith("# "):
            if i:
                raise ValueError("a second title at line %d" % (i + 1))
            i += 1
            continue
        if s.startswith("## "):
            flush()
            section = s[3:].strip()
            out.append(".SH " + inline(section.upper()))
            i += 1
            continue
        if s.startswith("#"):
            raise ValueError("unsupported heading at line %d: %s" % (i + 1, s))
        if s.startswith("```"):
            flush()
            i += 1
            block = []
            while i < len(src) and not src[i].startswith("```"):
                block.append(src[i])
                i += 1
            if i == len(src):
                raise ValueError("unterminated code block")
            i += 1
            if section is None and not synopsis_done:
                # the first block, before any section, is the synopsis
                out.extend([".SH SYNOPSIS", ".nf"])
                out.extend(line(esc(b).replace("-", r"\-")) for b in block)
                out.extend([".fi", ".SH DESCRIPTION"])
                synopsis_done = True
            else:
                out.extend([".PP", ".RS", ".nf"])
                out.extend(line(esc(b).replace("-", r"\-")) for b in block)
                out.extend([".fi", ".RE"])
            continue
        if s.startswith("|"):
            flush()
            rows = []
            while i < len(src) and src[i].startswith("|"):
                rows.append(src[i])
                i += 1
            table(rows, out)
            continue
        if s.startswith("- "):
            flush()
            item = [s[2:]]
            i += 1
            while i < len(src) and src[i].startswith("  ") and src[i].strip():
                item.append(src[i].strip())
                i += 1
            out.append(r".IP \(bu 2")
            out.extend(line(inline(p)) for p in item)
            continue
        if not s.strip():
            flush()
            i += 1
            continue
        if s.startswith((" ", "\t", ">", "*", "+")) or re.match(r"\d+\. ", s):
            raise ValueError("unsupported markup at line %d: %s" % (i + 1, s))
        para.append(s)
        i += 1
    flush()
    out.extend([
        ".SH SEE ALSO",
        r".BR mount (8),",
        r".BR fstab (5),",
        r".BR mount.9P (8),",
        r".BR v9fsd (8),",
        r".BR dkms (8)",
    ])
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mount-options-man.py MD VERSION")
    with open(sys.argv[1], encoding="ascii") as f:
        md = f.read()
    try:
        sys.stdout.write(convert(md, sys.argv[2]))
    except ValueError as e:
        sys.exit("mount-options-man.py: %s: %s" % (sys.argv[1], e))


if __name__ == "__main__":
    main()

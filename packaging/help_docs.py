#!/usr/bin/env python3
"""Manual pages and bash completion generated from a program's own --help text, so that neither
can drift from what the program says. Used at build time (packaging/CMakeLists.txt) and by the
packaging.help_docs test.

  help_docs.py man PROGRAM SECTION HELP EXTRA.txt OUT.1[.gz] [--summary TEXT]
  help_docs.py completion PROGRAM HELP OUT.bash

HELP is a file holding the help text, or exe:PATH to run PATH --help. OUT.1.gz is written
gzip-compressed without a name or time stamp; the page's date is $SOURCE_DATE_EPOCH's (else today).

The help text is read as paragraphs (blank-line separated):
  - the first holds the usage lines (SYNOPSIS) and the description (DESCRIPTION);
  - a line "commands:", "options:", "Options:" or "Arguments:" starts that section; a heading such
    as "MODEL OPTIONS (predict, train):" starts a subsection of OPTIONS, with text on its line or
    below;
  - an indented paragraph in COMMANDS is one entry: its usage lines (those before the first
    indented prose line) and its prose;
  - an indented "-x, --flag VALUE   text" line (two spaces or more before the text) is an option
    item; any other indented text is kept as written;
  - other unindented paragraphs are NOTES.
EXTRA.txt adds hand-written sections ("FILES", "ENVIRONMENT", "SEE ALSO"...): lines "## NAME"
start a section, the rest is roff-escaped prose, one paragraph per blank-line-separated block.
"""
import datetime
import gzip
import os
import re
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9-]*")
HEADINGS = {"commands": "COMMANDS", "options": "OPTIONS", "arguments": "ARGUMENTS"}
OPTION_ITEM = re.compile(r"^\s{1,6}(-[^\s].*?)(?:\s{2,}(\S.*))?$")


def esc(text):
    """roff-escape one line of text."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def paragraphs(text):
    """Blank-line separated blocks; a heading line (see heading()) also starts a new block."""
    block = []
    for line in text.splitlines():
        if block and (not line.strip() or heading(line)):
            yield block
            block = []
        if line.strip():
            block.append(line.rstrip())
    if block:
        yield block


def indent(line):
    return len(line) - len(line.lstrip(" "))


def heading(line):
    """("OPTIONS", subsection or None, rest of the line) for a heading line, else None."""
    if indent(line) > 0:
        return None
    m = re.match(r"^([A-Za-z]+):\s*$", line)
    if m and m.group(1).lower() in HEADINGS:
        return HEADINGS[m.group(1).lower()], None, ""
    m = re.match(r"^([A-Z][A-Z ]*OPTIONS(?: \([^)]*\))?):\s*(.*)$", line)
    if m:
        return "OPTIONS", m.group(1), m.group(2)
    return None


def is_prose(line):
    return indent(line) >= 4 and not re.match(r"^\s*[\[-]", line)


class Page:
    def __init__(self):
        self.synopsis, self.description = [], []
        self.sections = {}  # name -> list of roff lines
        self.order = []

    def add(self, section, lines):
        if section not in self.sections:
            self.sections[section] = []
            self.order.append(section)
        self.sections[section] += lines


def nofill(lines):
    base = min(indent(line) for line in lines)
    return [".nf"] + [esc(line[base:]) for line in lines] + [".fi"]


def option_items(lines):
    """.TP items when every line is an option item or its continuation, else None."""
    if not lines or not OPTION_ITEM.match(lines[0]) or not lines[0].lstrip().startswith("-"):
        return None
    items = []
    item_indent = indent(lines[0])
    for line in lines:
        if indent(line) == item_indent and line.lstrip().startswith("-"):
            m = OPTION_ITEM.match(line)
            if m.group(2) and m.group(2).startswith("-"):  # several flags on one line, no prose
                items += [[chunk, []] for chunk in re.split(r"\s{2,}", line.strip())]
            else:
                items.append([m.group(1).strip(), [m.group(2)] if m.group(2) else []])
        elif indent(line) > item_indent:
            items[-1][1].append(line.strip())
        else:
            return None
    out = []
    for term, text in items:
        out += [".TP", "\\fB" + esc(term) + "\\fR"] + ([esc(" ".join(text))] if text else [])
    return out


def command_entry(lines):
    usage = [lines[0]]
    k = 1
    while k < len(lines) and not is_prose(lines[k]):
        usage.append(lines[k])
        k += 1
    out = [".PP"] + nofill(usage)
    if k < len(lines):
        out += [".RS 4", esc(" ".join(line.strip() for line in lines[k:])), ".RE"]
    return out


def parse(text):
    page = Page()
    blocks = list(paragraphs(text))
    first = blocks.pop(0) if blocks else []
    for line in first:
        (page.synopsis if line.lower().startswith("usage:") or (page.synopsis and not page.description and indent(line) > 0)
         else page.description).append(line)
    section = None
    for block in blocks:
        head = heading(block[0])
        if head:
            section, sub, rest = head
            body = ([rest] if rest else []) + block[1:]
            if sub:
                page.add(section, [".SS " + esc(sub)])
            if not body:
                continue
            block = ["  " + body[0].strip()] + body[1:] if rest else body
        if indent(block[0]) == 0 or section is None:
            page.add("NOTES", [".PP", esc(" ".join(line.strip() for line in block))])
            continue
        items = option_items(block)
        if items is not None:
            page.add(section, items)
        elif section == "COMMANDS":
            page.add(section, command_entry(block))
        else:
            page.add(section, [".PP"] + nofill(block))
    return page


def extra_sections(text):
    sections, name, block = [], None, []
    for line in text.splitlines() + ["## END"]:
        if line.startswith("## "):
            if name:
                sections.append((name, block))
            name, block = line[3:].strip(), []
        elif name:
            block.append(line)
    out = []
    for name, lines in sections:
        out.append(".SH " + esc(name))
        for para in paragraphs("\n".join(lines)):
            out += [".PP", esc(" ".join(line.strip() for line in para))]
    return out


def man(program, section, help_text, extra_text, summary, date):
    # Qt's help names the program as it was started (argv[0]): a build-tree path here.
    help_text = re.sub(r"\S*/" + re.escape(program) + r"\b", program, help_text)
    page = parse(help_text)
    out = [f'.TH {esc(program.upper())} {section} "{date}" "Graphormer Studio" "User Commands"',
           ".\\\" Generated from `" + program + " --help` by packaging/help_docs.py; do not edit.",
           ".SH NAME", f"{esc(program)} \\- {esc(summary)}", ".SH SYNOPSIS"]
    for line in page.synopsis:
        out += [".br" if out[-1] != ".SH SYNOPSIS" else ".PP", esc(re.sub(r"^(?i:usage:)\s*", "", line.strip()))]
    if page.description:
        out += [".SH DESCRIPTION", esc(" ".join(line.strip() for line in page.description))]
    for name in page.order:
        out += [".SH " + name] + page.sections[name]
    out += extra_sections(extra_text)
    return "\n".join(out) + "\n"


def help_flags(help_text):
    return sorted(set(FLAG.findall(help_text)))


# ---- bash completion ------------------------------------------------------------------------

def usage_lines(page_text):
    """(command words, usage text) per command usage in COMMANDS; sub-commands ("screen run")
    are two words. A usage line that names another program (graphormer-...) documents that
    program and is skipped."""
    out, in_commands = [], False
    for block in paragraphs(page_text):
        head = heading(block[0])
        if head:
            in_commands = head[0] == "COMMANDS"
            block = block[1:]
        if not in_commands or not block or indent(block[0]) == 0:
            continue
        current = None
        for line in block:
            if indent(line) == 2 and re.match(r"^\s{2}[a-z]+\b(?!:)", line):
                words = line.split()
                if any(w.startswith("graphormer-") for w in words):
                    current = None
                    continue
                cmd = words[0] + (" " + words[1] if len(words) > 1 and re.fullmatch(r"[a-z]+", words[1]) else "")
                current = [cmd, line]
                out.append(current)
            elif current and not is_prose(line):
                current[1] += " " + line.strip()
            else:
                current = None
    return out


def group_flags(help_text):
    """Flags of each 'XXX OPTIONS' group: the ones that start an item (not those named in prose)."""
    groups = {}
    for block in paragraphs(help_text):
        head = heading(block[0])
        if not head or not head[1]:
            continue
        members = groups.setdefault(head[1].split(" (")[0], set())
        for line in [head[2]] + block[1:]:
            members.update(re.findall(r"(?:^\s*|\s{2,})(--[a-z0-9-]+)", line))
    return groups


def flag_values(help_text):
    """--flag a|b|c in the help: the closed choices (lower-case words) a flag takes."""
    values = {}
    for flag, choice in re.findall(r"(--[a-z0-9-]+) ([^\s|\])]+(?:\|[^\s|\])]+)+)", help_text):
        words = [w for w in choice.split("|") if re.fullmatch(r"[a-z0-9][a-z0-9.-]*", w)]
        if len(words) >= 2:
            values.setdefault(flag, set()).update(words)
    return values


def completion(program, help_text):
    groups = group_flags(help_text)
    commands = {}
    for cmd, usage in usage_lines(help_text):
        flags = set(FLAG.findall(re.sub(r"'[^']*'", "", usage)))  # not the flags quoted as a value
        for group, members in groups.items():
            if "[" + group + "]" in usage:
                flags |= members
        commands.setdefault(cmd, set()).update(flags)
    top = sorted({c.split()[0] for c in commands})
    subs = {}
    for c in commands:
        if " " in c:
            subs.setdefault(c.split()[0], set()).add(c.split()[1])
    fn = "_" + re.sub(r"\W", "_", program)
    out = [f"# bash completion for {program}; generated from `{program} --help` by packaging/help_docs.py.",
           f"{fn}() {{",
           "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} flags=''",
           "  if ((COMP_CWORD == 1)); then",
           f"    COMPREPLY=($(compgen -W '{' '.join(top)} --help --version' -- \"$cur\"))",
           "    return",
           "  fi",
           "  case ${COMP_WORDS[1]} in"]
    for word in top:
        out.append(f"    {word})")
        if word in subs:
            out += ["      if ((COMP_CWORD == 2)); then",
                    f"        COMPREPLY=($(compgen -W '{' '.join(sorted(subs[word]))}' -- \"$cur\")); return",
                    "      fi",
                    "      case ${COMP_WORDS[2]} in"]
            for sub in sorted(subs[word]):
                out.append(f"        {sub}) flags='{' '.join(sorted(commands[word + ' ' + sub]))}' ;;")
            out += ["      esac ;;"]
        else:
            out.append(f"      flags='{' '.join(sorted(commands.get(word, set())))}' ;;")
    out += ["  esac", "  case $prev in"]
    for flag, choices in sorted(flag_values(help_text).items()):
        out.append(f"    {flag}) COMPREPLY=($(compgen -W '{' '.join(sorted(choices))}' -- \"$cur\")); return ;;")
    out += ["  esac",
            "  if [[ $cur == -* ]]; then",
            "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))",
            "  else",
            "    COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    compopt -o filenames 2> /dev/null",
            "  fi",
            "}",
            f"complete -F {fn} {program}", ""]
    return "\n".join(out)


def read_help(source):
    if not source.startswith("exe:"):
        return open(source).read()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([source[4:], "--help"], capture_output=True, text=True, env=env, timeout=120)
    if run.returncode != 0 or not run.stdout.strip():
        sys.exit(f"help_docs: {source[4:]} --help failed ({run.returncode}): {run.stderr.strip()}")
    return run.stdout


def write(path, text):
    data = text.encode()
    if path.endswith(".gz"):
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)


def main(argv):
    if len(argv) >= 7 and argv[1] == "man":
        program, section, source, extra_path, out_path = argv[2:7]
        opts = dict(zip(argv[7::2], argv[8::2]))
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        day = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date() if epoch else datetime.date.today()
        text = man(program, section, read_help(source), open(extra_path).read(), opts.get("--summary", program), day.isoformat())
    elif len(argv) == 5 and argv[1] == "completion":
        program, source, out_path = argv[2:5]
        text = completion(program, read_help(source))
    else:
        sys.exit(__doc__)
    write(out_path, text)


if __name__ == "__main__":
    main(sys.argv)

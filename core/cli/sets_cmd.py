"""`python -m core sets list|cutover NAME|rollback|delete NAME`: what the Chunk sets page does.

``list`` prints the sets as a JSON array (name, documents, chunks, active, created, strategy,
embedder, where it ran, dimension);
the others print one sentence.
"""

from __future__ import annotations

import argparse
import json

from core.operations.ingest.chunk_sets import chunk_set_rows, cutover, delete, rollback
from core.store import ChunkStore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    actions.add_parser("list", help="print every chunk set as JSON")
    actions.add_parser("cutover", help="make a set the one retrieval uses").add_argument("name")
    actions.add_parser("rollback", help="make the previously active set active again")
    actions.add_parser("delete", help="delete a set and its chunks").add_argument("name")


def run(args: argparse.Namespace) -> int:
    store = ChunkStore()
    if args.action == "list":
        rows = [row.model_dump() for row in chunk_set_rows(store)]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    elif args.action == "cutover":
        print(cutover(store, args.name))
    elif args.action == "rollback":
        print(rollback(store))
    else:
        print(delete(store, args.name))
    return 0

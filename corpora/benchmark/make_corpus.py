"""Write the retrieval benchmark corpus: three long documents and ``questions.csv``.

Usage, from the repository root: ``.venv/bin/python -m corpora.benchmark.make_corpus [--check]``
(``--check`` writes nothing and exits 1 when a file on disk differs from what would be written).

The documents are written for this project: a water utility's operations and customer policy
manual (prose), a depot asset register (small tables with notes) and a year of planning
committee transcripts. Their text lives in ``sources/`` (TOML): hand-written paragraph
templates whose phrasings (``{a|b}``) and facts (``$name``) vary per district, depot or
application, and the names and word lists they draw from. This module draws the facts with a
seeded random generator, in a fixed order, so the output never changes. Each template carries
the questions a user would ask of it, worded in their own terms, and the question's reference
is the whole paragraph, table or speaker turn that answers it, as in Chroma's protocol (a few
hundred characters). Offsets are found in the converted text that every chunk and metric uses,
and checked.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
import sys
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from core.documents import convert

OUT = Path(__file__).resolve().parent
SOURCES = OUT / "sources"
QUESTIONS = "questions.csv"
SEED = 15
PER_DOCUMENT = 90  # questions kept per document, at most one per paragraph


def _source(name: str) -> dict[str, Any]:
    with (SOURCES / f"{name}.toml").open("rb") as file:
        return tomllib.load(file)


NAMES = _source("names")
WATER = _source("water_manual")
REGISTER = _source("asset_register")
HEARINGS = _source("transcripts")


@dataclass
class Doc:
    """A document being written: its text, and the questions whose reference is a piece of it."""

    name: str
    parts: list[str] = field(default_factory=list)
    questions: list[tuple[str, str, str]] = field(default_factory=list)  # question, piece, kind

    def add(self, piece: str, asks: Sequence[str] = (), kind: str = "text") -> None:
        self.parts.append(piece)
        self.questions += [(q, piece, kind) for q in asks]

    @property
    def text(self) -> str:
        return "\n\n".join(self.parts) + "\n"


def pick(rng: random.Random, template: str) -> str:
    """``{a|b|c}`` alternatives chosen at random (innermost first)."""
    inner = re.compile(r"\{([^{}]*)\}")
    while inner.search(template):
        template = inner.sub(lambda m: rng.choice(m.group(1).split("|")), template)
    return template


def fill(template: str, values: dict[str, Any]) -> str:
    """``$name`` (or ``${name}``) replaced by its value."""
    return Template(template).substitute(values)


def add(doc: Doc, rng: random.Random, piece: dict[str, Any], values: dict[str, Any],
        kind: str = "text") -> None:
    """A source piece (its ``text`` filled in, then its phrasings picked) with its questions."""
    doc.add(pick(rng, fill(piece["text"], values)),
            [fill(q, values) for q in piece["asks"]], kind)


# ------------------------------------------------------------------ the water utility manual

def _water_values(rng: random.Random, district: str, source: str,
                  street: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(heading, values) of the sections every district chapter has, drawn in the generator's
    order: a section's values are drawn after the previous section's phrasings were picked."""
    choices = WATER["choices"]
    place = {"district": district, "source": source, "street": street}
    hours = rng.choice([6, 8, 12, 24])
    plant = rng.choice(choices["plants"])
    megalitres = rng.randrange(8, 95)
    hardness = rng.randrange(40, 320)
    _, hardness_class, advice = next(h for h in choices["hardness"] if hardness < h[0])
    yield "Source and treatment", {**place, "hours": hours, "plant": plant,
                                   "megalitres": megalitres, "hardness": hardness,
                                   "hardness_class": hardness_class, "hardness_advice": advice}
    target = rng.randrange(18, 35)
    yield "Pressure management", {**place, "target": target,
                                  "night": target - rng.randrange(4, 9),
                                  "valves": rng.randrange(6, 40),
                                  "jug_seconds": rng.randrange(6, 12),
                                  "test_days": rng.choice([3, 5, 7, 10])}
    yield "Leaks and bursts", {**place, "response": rng.choice([2, 4, 6]),
                               "fix": rng.choice([24, 48, 72]),
                               "contractor": rng.choice(NAMES["contractors"]),
                               "metres": rng.randrange(3, 12)}
    yield "Charges", {**place, "standing": rng.randrange(11, 24),
                      "volume": f"{rng.randrange(140, 260) / 100:.2f}",
                      "sewer": f"{rng.randrange(180, 330) / 100:.2f}",
                      "percent": rng.choice([90, 92, 95]),
                      "period": rng.choice(choices["billing_periods"]),
                      "instalments": rng.choice(choices["instalments"])}
    yield "Help with bills", {**place, "cap": rng.randrange(180, 420),
                              "days": rng.choice([10, 15, 20]), "matched": rng.choice([1, 2])}
    fee = rng.randrange(900, 2400, 10)
    weeks = rng.randrange(4, 13)
    yield "New connections", {**place, "fee": f"{fee:,}", "weeks": weeks,
                              "metres": rng.randrange(5, 20),
                              "closure_weeks": weeks + rng.randrange(3, 7),
                              "homes": rng.choice([5, 10, 20]), "plot": rng.randrange(300, 700)}
    year = rng.randrange(2026, 2034)
    yield "Lead pipes", {**place, "year": year, "homes": f"{rng.randrange(120, 2600):,}",
                         "contribution": rng.randrange(400, 1200, 50)}
    yield "Drought restrictions", {**place, "level": rng.randrange(35, 70),
                                   "weeks": rng.randrange(3, 19),
                                   "year": rng.randrange(2012, 2025)}
    first, second = rng.sample(choices["flushing_months"], 2)
    yield "Mains flushing and discoloured water", {
        **place, "first_month": first, "second_month": second,
        "minutes": rng.choice([10, 15, 20]), "laundry": rng.choice([150, 200, 250, 300])}
    yield "Water meters", {**place, "share": rng.randrange(48, 93),
                           "days": rng.choice([60, 90]),
                           "reading": rng.choice(choices["meter_readings"]),
                           "months": rng.choice([12, 24]), "assessed": rng.randrange(290, 520)}
    yield "Sewer flooding", {**place, "properties": rng.randrange(3, 60),
                             "hours": rng.choice([4, 6, 12]),
                             "refund": rng.choice([1000, 1500, 2000])}
    yield "Planned interruptions", {**place, "notice": rng.choice([2, 3, 5]),
                                    "hours": rng.choice([4, 6, 8]),
                                    "outage": rng.choice([12, 18]),
                                    "station": rng.choice(choices["water_stations"])}
    yield "Complaints", {**place, "officer": rng.choice(NAMES["officers"]),
                         "ack_days": rng.choice([2, 3, 5]),
                         "answer_days": rng.choice([10, 15, 20]),
                         "missed": rng.choice([20, 30, 40]), "hours": rng.choice([12, 16, 24]),
                         "credit": rng.choice([30, 50, 60])}


def water_manual(rng: random.Random) -> Doc:
    doc = Doc("water_operations_manual.md")
    doc.add(WATER["title"])
    doc.add(WATER["introduction"])
    doc.add("## General policy")
    for paragraph in WATER["general"]:
        doc.add(paragraph["text"], paragraph["asks"])
    for district, source, street in NAMES["districts"]:
        doc.add(f"## {district}")
        for heading, values in _water_values(rng, district, source, street):
            doc.add(f"### {heading}")
            add(doc, rng, WATER["sections"][heading], values)
    return doc


# ------------------------------------------------------------------ the depot asset register

COST_LINES = list(REGISTER["costs"])


def _plate(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNOPRSTVWXY"
    return (rng.choice(letters) + rng.choice(letters) + str(rng.choice([19, 20, 21, 22, 23, 24, 71, 72, 73]))
            + " " + "".join(rng.choice(letters) for _ in range(3)))


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _add_table(doc: Doc, piece: dict[str, Any], depot: str, rows: list[list[str]]) -> None:
    values = {"depot": depot}
    doc.add(fill(piece["caption"], values) + "\n\n" + _table(piece["columns"], rows),
            [fill(q, values) for q in piece["asks"]], kind="table")


def _depot(doc: Doc, rng: random.Random, depot: str) -> None:
    choices = REGISTER["choices"]
    doc.add(fill(REGISTER["heading"], {"depot": depot}))
    add(doc, rng, REGISTER["depot"], {
        "depot": depot, "manager": rng.choice(NAMES["officers"]), "staff": rng.randrange(9, 60),
        "hours": rng.choice(choices["opening_hours"]), "yard": rng.choice(choices["yards"])})
    count = rng.randrange(4, 7)
    rows = []
    for vehicle, kind in rng.sample(choices["vehicles"], count):
        year = rng.randrange(2014, 2025)
        miles = rng.randrange(3, 24) * (2025 - year + 1) * 1000 + rng.randrange(0, 999)
        status = rng.choice(choices["statuses"])
        rows.append([_plate(rng), f"{vehicle} ({kind})", str(year), f"{miles:,}", status])
    _add_table(doc, REGISTER["vehicles"], depot, rows)
    oldest = min(rows, key=lambda r: int(r[2]))
    budget = [rng.randrange(4, 90) * 1000 for _ in COST_LINES]
    spent = [int(b * rng.uniform(0.7, 1.45)) // 10 * 10 for b in budget]
    cost_rows = [[line, f"£{b:,}", f"£{s:,}", f"{100 * (s - b) / b:+.0f}%"]
                 for line, b, s in zip(COST_LINES, budget, spent, strict=True)]
    cost_rows.append([REGISTER["running_costs"]["total"], f"£{sum(budget):,}",
                      f"£{sum(spent):,}",
                      f"{100 * (sum(spent) - sum(budget)) / sum(budget):+.0f}%"])
    _add_table(doc, REGISTER["running_costs"], depot, cost_rows)
    worst = COST_LINES[max(range(len(COST_LINES)), key=lambda i: spent[i] - budget[i])]
    add(doc, rng, REGISTER["note"], {
        "depot": depot, "cost_line": worst.lower(), "reason": REGISTER["costs"][worst],
        "vehicle": oldest[1], "plate": oldest[0], "year": rng.randrange(2026, 2030),
        "replacement": rng.choice(choices["replacements"]),
        "charging": rng.choice(choices["charging"])})
    jobs = []
    for _ in range(rng.randrange(4, 7)):
        plate, _vehicle = rng.choice(rows)[:2]
        work, low, high = rng.choice(choices["repairs"])
        day = f"{rng.randrange(1, 29)} {rng.choice(choices['repair_months'])}"
        jobs.append([day, plate, work, f"£{rng.randrange(low, high):,}", f"{rng.randrange(1, 15)}"])
    _add_table(doc, REGISTER["work_orders"], depot, jobs)
    add(doc, rng, REGISTER["safety"], {
        "depot": depot, "incidents": rng.randrange(0, 6),
        "injured": rng.choice(choices["injuries"]),
        "refresher_vehicle": rng.choice(choices["refresher_vehicles"]),
        "months": rng.choice([12, 18, 24, 36]), "score": rng.randrange(62, 97),
        "compared": rng.choice(choices["telematics"])})


def asset_register(rng: random.Random) -> Doc:
    doc = Doc("depot_asset_register.md")
    doc.add(REGISTER["title"])
    doc.add(REGISTER["introduction"])
    for district, _, _ in NAMES["districts"]:
        _depot(doc, rng, district)
    return doc


# ------------------------------------------------------------ the planning committee transcripts

Turn = tuple[str, list[str]]


def _turn(rng: random.Random, name: str, values: dict[str, Any]) -> Turn:
    piece = HEARINGS["turns"][name]
    return pick(rng, fill(piece["text"], values)), [fill(q, values) for q in piece["asks"]]


def _application(rng: random.Random, number: int, street: str, what_kind: str) -> list[Turn]:
    """The speaker turns about one planning application: (turn text, questions) pairs."""
    h = HEARINGS
    kind = h["kinds"][what_kind]
    n = rng.randrange(6, 140) if what_kind == "housing" else rng.randrange(30, 210)
    old = rng.choice(h["former_uses"])
    new = rng.choice(h["new_uses"])
    what = fill(kind["what"], {"n": n, "old": old, "new": new, "h": rng.randrange(15, 30)})
    address = f"{rng.randrange(2, 90)} {street}"
    ref = (f"{rng.choice([24, 25])}/{rng.randrange(100, 2999):04d}/"
           f"{rng.choice(h['reference_kinds'])}")
    letters = rng.randrange(2, 160)
    support = rng.randrange(0, 40)
    issue = rng.choice(kind["issues"])
    drawn = {"spaces": rng.randrange(4, 40), "trips": rng.randrange(40, 400),
             "oaks": rng.randrange(2, 14)}
    about = h["issues"][issue]
    concern = fill(about["concern"], drawn)
    officer = rng.choice(NAMES["officers"])
    recommendation = rng.choice(h["recommendations"])
    v = {"number": number, "what": what, "address": address, "ref": ref, "officer": officer,
         "street": street, "issue": issue, "concern": concern, "recommendation": recommendation}
    turns = [_turn(rng, "chair", v)]
    affordable = rng.randrange(20, 41)
    drawn = {"n": n, "old": old, "affordable": affordable, "storeys": rng.choice(h["storeys"]),
             "projects": rng.randrange(3, 7), "ridge": rng.randrange(5, 8),
             "empty_years": rng.randrange(2, 12), "classrooms": rng.randrange(4, 9)}
    because = h["because"]["refuse" if recommendation == h["refusal"] else "approve"]
    turns.append(_turn(rng, "officer", {
        **v, "detail": fill(kind["detail"], drawn), "letters": letters, "support": support,
        "because": fill(because, v)}))
    objector = rng.choice(h["objectors"])
    ask = rng.choice(h["objector_asks"])
    turns.append(_turn(rng, "objector", {**v, "objector": objector, "ask": ask,
                                         "years": rng.randrange(3, 41),
                                         "complaint": about["complaint"]}))
    agent = rng.choice(h["agents"])
    drawn = {"extra_spaces": rng.randrange(2, 9), "tank": rng.randrange(40, 400),
             "contribution": rng.randrange(20, 150), "saplings": rng.randrange(10, 40),
             "delivery_hour": rng.choice(h["delivery_hours"])}
    extra = fill(h["extra"]["housing" if what_kind == "housing" else "other"],
                 {"affordable": affordable})
    turns.append(_turn(rng, "agent", {**v, "agent": agent, "offer": fill(about["offer"], drawn),
                                      "extra": extra,
                                      "start_years": rng.choice(h["start_years"])}))
    councillor = rng.choice(h["councillors"])
    turns.append(_turn(rng, "councillor", {**v, "councillor": councillor,
                                           "consultee": about["consultee"],
                                           "visited": rng.choice(h["site_visits"]),
                                           "seen": about["seen"]}))
    answer = rng.choice(h["consultee_answers"])
    turns.append((fill(h["turns"]["consultee"]["text"], {
        **v, "Consultee": about["consultee"].capitalize(), "answer": answer}), []))
    votes_for = rng.randrange(3, 10)
    votes_against = rng.randrange(0, 7)
    vote = h["vote"]
    turns.append(_turn(rng, "vote", {
        **v, "votes_for": votes_for, "votes_against": votes_against,
        "abstentions": vote["abstentions"] if rng.random() < 0.4 else "",
        "outcome": vote["carried" if votes_for > votes_against else "falls"]}))
    return turns


def transcripts(rng: random.Random) -> Doc:
    h = HEARINGS
    doc = Doc("planning_committee_transcripts.txt")
    doc.add(h["header"])
    streets = [f"{name} {kind}" for name in h["street_names"]
               for kind in rng.sample(h["street_kinds"], 3)]
    rng.shuffle(streets)
    months = h["months"]
    for m, month in enumerate(months):
        day = rng.randrange(3, 27)
        doc.add(fill(h["meeting"], {"day": day, "month": month.upper()}))
        doc.add(fill(h["welcome"], {"month": month, "apologies": rng.choice(h["apologies"])}))
        for item in range(1, rng.randrange(7, 11) + 1):
            street = streets.pop()
            for turn, asks in _application(rng, item, street, rng.choice(list(h["kinds"]))):
                doc.add(turn, asks)
        doc.add(fill(h["closing"], {"month": month,
                                    "next_month": months[(m + 1) % len(months)]}))
    return doc


# ------------------------------------------------------------------ writing and checking

BUILDERS: list[Callable[[random.Random], Doc]] = [water_manual, asset_register, transcripts]


def build(seed: int = SEED) -> dict[str, bytes]:
    """Every file of the corpus by name: the documents and the question CSV (another ``seed``
    writes other facts and phrasings in the same shape: a larger corpus for benches)."""
    rng = random.Random(seed)
    files: dict[str, bytes] = {}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["question", "references", "corpus_id", "kind"])
    for builder in BUILDERS:
        doc = builder(rng)
        data = doc.text.encode("utf-8")
        files[doc.name] = data
        text = convert(data, doc.name).text
        at = 0
        located: dict[str, tuple[int, int]] = {}
        for part in doc.parts:
            start = text.index(part, at)
            located.setdefault(part, (start, start + len(part)))
            at = start + len(part)
        one_each = {piece: (q, piece, kind) for q, piece, kind in
                    rng.sample(doc.questions, len(doc.questions))}
        kept = sorted(rng.sample(list(one_each.values()), min(PER_DOCUMENT, len(one_each))),
                      key=lambda row: located[row[1]])
        for question, piece, kind in kept:
            start, end = located[piece]
            assert text[start:end] == piece
            reference = [{"content": piece, "start_index": start, "end_index": end}]
            writer.writerow([question, json.dumps(reference, ensure_ascii=False), doc.name, kind])
    files[QUESTIONS] = buffer.getvalue().encode("utf-8")
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk")
    args = parser.parse_args()
    files = build()
    if args.check:
        stale = [n for n, data in files.items()
                 if not (OUT / n).is_file() or (OUT / n).read_bytes() != data]
        if stale:
            sys.exit(f"out of date: {', '.join(stale)}")
        return
    for name, data in files.items():
        (OUT / name).write_bytes(data)
        print(f"{name}: {len(data):,} bytes")


if __name__ == "__main__":
    main()

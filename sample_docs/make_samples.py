#!/usr/bin/env python3
# ruff: noqa: E501  (table rows in the sample texts cannot be wrapped)
"""Generate ChunkLab's sample documents: original text written for this project.

Usage: ``python sample_docs/make_samples.py [OUT_DIR]`` (default: the folder of this script).

Most content is written once in a small Markdown-like notation (``#`` headings, paragraphs,
``- `` and ``1. `` lists, pipe tables, ``Table N: ...`` captions, code fences) and rendered per
format, so every sample carries real structure: Word heading styles, captions and tables; HTML
headings and ``<table>``/``<caption>``; PDF headings in larger bold type and ruled tables.

Output is byte-for-byte deterministic: zip-based formats (DOCX, XLSX, PPTX) are rewritten with
fixed entry timestamps and fixed core properties, and the PDF gets a fixed creation date.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import re
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FIXED_DATETIME = dt.datetime(2024, 11, 4, 9, 30, 0)
FIXED_ZIP_DATE = (2024, 11, 4, 9, 30, 0)
FIXED_ISO = b"2024-11-04T09:30:00Z"
AUTHOR = "ChunkLab sample generator"

# --------------------------------------------------------------------------------------------
# Notation parser
# --------------------------------------------------------------------------------------------

CAPTION_RE = re.compile(r"^(Table|Figure) \d+[.:]")
NUMBERED_RE = re.compile(r"^\d+\. ")
TABLE_RULE_RE = re.compile(r"^\|[\s:|-]+\|$")
HEADING_RE = re.compile(r"^(#{1,4}) (.+)$")
INLINE_RE = re.compile(r"(\*\*[^*]+\*\*|`[^`]+`)")


@dataclass(frozen=True)
class Block:
    """One structural element of a sample: heading, paragraph, caption, list, table or code."""

    kind: str
    text: str = ""
    level: int = 0
    items: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


def _is_list_line(line: str) -> bool:
    return line.startswith("- ") or bool(NUMBERED_RE.match(line))


def parse_blocks(source: str) -> list[Block]:
    """Parse the notation; blocks are separated by blank lines, list items may wrap."""
    lines = source.strip("\n").split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("```"):
            end = lines.index("```", i + 1)
            blocks.append(Block("code", "\n".join(lines[i + 1 : end]), items=(line[3:].strip(),)))
            i = end + 1
        elif match := HEADING_RE.match(line):
            blocks.append(Block("heading", match.group(2).strip(), level=len(match.group(1))))
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not TABLE_RULE_RE.match(lines[i].strip()):
                    cells = lines[i].strip().strip("|").split("|")
                    rows.append(tuple(cell.strip() for cell in cells))
                i += 1
            blocks.append(Block("table", rows=tuple(rows)))
        elif _is_list_line(line):
            kind = "bullets" if line.startswith("- ") else "numbers"
            items: list[str] = []
            while i < len(lines) and lines[i].strip():
                if _is_list_line(lines[i]):
                    items.append(lines[i].split(" ", 1)[1].strip())
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            blocks.append(Block(kind, items=tuple(items)))
        else:
            para = []
            block_starts = ("#", "|", "```")
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(block_starts):
                para.append(lines[i].strip())
                i += 1
            text = " ".join(para)
            blocks.append(Block("caption" if CAPTION_RE.match(text) else "paragraph", text))
    return blocks


def inline_runs(text: str) -> Iterator[tuple[str, str]]:
    """Split text into (run, style) pairs; style is "", "bold" or "code"."""
    for part in INLINE_RE.split(text):
        if part.startswith("**") and part.endswith("**") and len(part) > 4:
            yield part[2:-2], "bold"
        elif part.startswith("`") and part.endswith("`") and len(part) > 2:
            yield part[1:-1], "code"
        elif part:
            yield part, ""


def plain(text: str) -> str:
    return "".join(run for run, _ in inline_runs(text))


# --------------------------------------------------------------------------------------------
# Deterministic containers
# --------------------------------------------------------------------------------------------


def freeze_zip(path: Path) -> None:
    """Rewrite an Office zip with fixed entry dates and fixed created/modified properties."""
    with zipfile.ZipFile(path) as source:
        entries = [(info.filename, source.read(info)) for info in source.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in entries:
            if name == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*", rb"\g<1>" + FIXED_ISO, data
                )
            info = zipfile.ZipInfo(name, FIXED_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            target.writestr(info, data)
    path.write_bytes(buffer.getvalue())


# --------------------------------------------------------------------------------------------
# Renderers
# --------------------------------------------------------------------------------------------


def render_docx(blocks: list[Block], path: Path, title: str) -> None:
    """Word document: '#' -> Title, '##'..'####' -> Heading 1..3, captions in style Caption."""
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from docx.shared import Pt

    document = docx.Document()
    properties = document.core_properties
    properties.author = AUTHOR
    properties.last_modified_by = AUTHOR
    properties.title = title
    properties.created = FIXED_DATETIME
    properties.modified = FIXED_DATETIME
    properties.revision = 1
    document.styles["Normal"].font.name = "Calibri"
    document.styles["Normal"].font.size = Pt(11)

    def add_runs(paragraph, text: str) -> None:
        for run_text, style in inline_runs(text):
            run = paragraph.add_run(run_text)
            run.bold = style == "bold" or None
            if style == "code":
                run.font.name = "Consolas"

    for block in blocks:
        if block.kind == "heading":
            if block.level == 1:
                document.add_paragraph(block.text, style="Title")
            else:
                document.add_heading(block.text, level=block.level - 1)
        elif block.kind == "paragraph":
            add_runs(document.add_paragraph(), block.text)
        elif block.kind == "caption":
            add_runs(document.add_paragraph(style="Caption"), block.text)
        elif block.kind in ("bullets", "numbers"):
            style = "List Bullet" if block.kind == "bullets" else "List Number"
            for item in block.items:
                add_runs(document.add_paragraph(style=style), item)
        elif block.kind == "table":
            table = document.add_table(rows=len(block.rows), cols=len(block.rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(block.rows):
                for c, value in enumerate(row):
                    cell_paragraph = table.cell(r, c).paragraphs[0]
                    add_runs(cell_paragraph, f"**{value}**" if r == 0 else value)
            header_properties = table.rows[0]._tr.get_or_add_trPr()
            repeat = OxmlElement("w:tblHeader")
            repeat.set(qn("w:val"), "true")
            header_properties.append(repeat)
        elif block.kind == "code":
            paragraph = document.add_paragraph()
            run = paragraph.add_run(block.text)
            run.font.name = "Consolas"
        else:
            raise ValueError(f"unknown block kind {block.kind}")
    document.save(path)
    freeze_zip(path)


HTML_STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 46rem; margin: 2rem auto;
       padding: 0 1rem; line-height: 1.55; color: #222; }
h1, h2, h3 { font-family: 'Helvetica Neue', Arial, sans-serif; color: #5a2d0c; }
table { border-collapse: collapse; margin: 1rem 0; width: 100%; }
caption { font-style: italic; text-align: left; padding-bottom: .4rem; }
th, td { border: 1px solid #b9a48f; padding: .35rem .5rem; vertical-align: top; text-align: left; }
th { background: #f3e9df; }
.warning { border-left: 4px solid #b3261e; padding-left: .75rem; }
.note { border-left: 4px solid #8a6d3b; padding-left: .75rem; }
footer { margin-top: 3rem; font-size: .85rem; color: #666; }
""".strip("\n")


def _html_inline(text: str) -> str:
    parts = []
    for run, style in inline_runs(text):
        escaped = html.escape(run, quote=False)
        parts.append({"bold": f"<strong>{escaped}</strong>", "code": f"<code>{escaped}</code>"}.get(
            style, escaped))
    return "".join(parts)


def _html_row(cells: tuple[str, ...], tag: str) -> str:
    return "    <tr>" + "".join(f"<{tag}>{_html_inline(c)}</{tag}>" for c in cells) + "</tr>"


def render_html(blocks: list[Block], title: str, footer: str) -> str:
    """HTML5 page; a caption right before a table becomes that table's <caption>."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>\n{HTML_STYLE}\n</style>",
        "</head>",
        "<body>",
        "<main>",
    ]
    pending_caption: str | None = None
    for block in blocks:
        if block.kind == "caption":
            pending_caption = block.text
            continue
        if pending_caption is not None and block.kind != "table":
            out.append(f"<p>{_html_inline(pending_caption)}</p>")
            pending_caption = None
        if block.kind == "heading":
            out.append(f"<h{block.level}>{_html_inline(block.text)}</h{block.level}>")
        elif block.kind == "paragraph":
            label = plain(block.text).split(":", 1)[0].lower()
            css = {"warning": "warning", "caution": "warning", "note": "note", "tip": "note"}
            attr = f' class="{css[label]}"' if label in css else ""
            out.append(f"<p{attr}>{_html_inline(block.text)}</p>")
        elif block.kind in ("bullets", "numbers"):
            tag = "ul" if block.kind == "bullets" else "ol"
            out.append(f"<{tag}>")
            out.extend(f"  <li>{_html_inline(item)}</li>" for item in block.items)
            out.append(f"</{tag}>")
        elif block.kind == "table":
            out.append("<table>")
            if pending_caption is not None:
                out.append(f"  <caption>{_html_inline(pending_caption)}</caption>")
                pending_caption = None
            header, *body = block.rows
            out += ["  <thead>", _html_row(header, "th"), "  </thead>", "  <tbody>"]
            out += [_html_row(row, "td") for row in body]
            out.append("  </tbody>")
            out.append("</table>")
        elif block.kind == "code":
            out.append(f"<pre><code>{html.escape(block.text, quote=False)}</code></pre>")
        else:
            raise ValueError(f"unknown block kind {block.kind}")
    out += ["</main>", f"<footer><p>{html.escape(footer)}</p></footer>", "</body>", "</html>", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# 1. Homeowners policy (DOCX)
# --------------------------------------------------------------------------------------------

INSURANCE_POLICY = """
# Harborline Mutual Insurance Company: Homeowners Policy HM-3 (Special Form)

This policy is a legal contract between you and Harborline Mutual Insurance Company. It is
written in plain language so that you can read it from beginning to end, but please read it
carefully: it tells you what property and liability we cover, the limits that apply, the
deductible you pay on each claim, the losses we do not cover, and what you and we must do when
something goes wrong. The Declarations, this policy form and any endorsements listed in the
Endorsement Schedule together make up your complete policy.

## Declarations

The Declarations identify who is insured, where the insured home is, which coverages you have
bought and what each of them costs. If anything shown in the Declarations is wrong or changes
during the policy period, such as a new mortgage lender, an addition to the house or a new
household member, tell your agent promptly so that we can correct the record.

Table 1: Policy declarations

| Item | Details |
|---|---|
| Policy number | HLM-HO3-0488217 |
| Policy period | March 1, 2025 to March 1, 2026, 12:01 a.m. standard time at the residence premises |
| Named insured | Marguerite A. Ellery and Tomas J. Ellery |
| Residence premises | 27 Gannet Ridge Road, Port Alder, Kestrel County |
| Construction | Two-story wood frame, fiber-cement siding, built 1998, 2,340 square feet |
| Roof | Architectural asphalt shingle, replaced in 2019 |
| Fire protection | Protection class 4; fire station 1.6 miles; hydrant within 600 feet |
| First mortgagee | Tidemark Savings Bank, its successors and assigns, loan 7702-33851 |
| Producing agent | Corliss & Vane Insurance Agency, Port Alder |
| Total annual premium | $2,186.00, payable in full or in four installments |

The premium shown includes a claims-free credit of 8 percent, a protective device credit of 5
percent for the central-station fire and burglar alarm, and a 3 percent credit for the impact-
resistant roof covering. These credits continue at renewal only while the conditions that
earned them remain true.

## Agreement and Definitions

### Our Agreement With You

In return for the premium and your compliance with the policy conditions, we agree to provide
the insurance described in this policy. Coverage applies only to losses that occur during the
policy period shown in the Declarations. When a word or phrase appears in bold in this policy
it has the special meaning given in the definitions below; other words have their ordinary
meaning.

### Definitions

**You** and **your** mean the named insured shown in the Declarations and a spouse or domestic
partner who lives in the same household. **We**, **us** and **our** mean Harborline Mutual
Insurance Company.

**Insured** means you and residents of your household who are your relatives, or other persons
under the age of 21 who are in the care of you or a resident relative. A full-time student who
was a resident of your household before moving out to attend school remains an insured until
the student turns 24. Under Section II, insured also includes any person legally responsible for
animals or watercraft to which this policy applies, but only while using them with your
permission and not in the course of any business.

**Residence premises** means the one-family dwelling where you live, shown in the Declarations,
together with the other structures and grounds at that location.

**Insured location** means the residence premises; any other premises you acquire during the
policy period for use as a residence; any premises not owned by an insured where an insured is
temporarily residing; vacant land owned by or rented to an insured, other than farm land; and
individual or family cemetery plots.

**Occurrence** means an accident, including continuous or repeated exposure to substantially the
same generally harmful conditions, which results during the policy period in bodily injury or
property damage.

**Bodily injury** means bodily harm, sickness or disease, including required care, loss of
services and death that results. **Property damage** means physical injury to, destruction of,
or loss of use of tangible property.

**Business** means a trade, profession or occupation engaged in on a full-time, part-time or
occasional basis, or any other activity engaged in for money or other compensation, except
volunteer work for a not-for-profit organization, providing home day care for which no
compensation is received other than the mutual exchange of such services, and occasional sales
by an insured whose total receipts in the twelve months before the policy period did not exceed
$3,000.

**Actual cash value** means the cost to repair or replace damaged property with material of like
kind and quality, less a fair deduction for physical depreciation based on age, condition and
remaining useful life. **Replacement cost** means the cost to repair or replace with material of
like kind and quality, without any deduction for depreciation.

**Flood** means a general and temporary condition of partial or complete inundation of normally
dry land from the overflow of inland or tidal waters, from the unusual and rapid accumulation or
runoff of surface waters from any source, or from storm surge.

## Section I: Property Coverages

Section I pays for direct physical loss to your home, your other structures and your belongings,
and for the extra living expenses you incur while your home cannot be lived in. The amount we
pay is limited by the limits of liability in Table 2 and by the deductibles in Table 4.

Table 2: Coverage limits

| Coverage | Limit of liability | Notes |
|---|---|---|
| Coverage A: Dwelling | $425,000 | Replacement cost. Extended Replacement Cost endorsement HM 04 20 adds up to 25 percent ($106,250) if rebuilding costs exceed the limit |
| Coverage B: Other Structures | $42,500 | 10 percent of Coverage A; includes the detached workshop, fencing and the garden shed |
| Coverage C: Personal Property | $212,500 | 50 percent of Coverage A; replacement cost under endorsement HM 20 15; special limits in Table 3 |
| Coverage D: Loss of Use | $85,000 | 20 percent of Coverage A; additional living expense for up to 24 months |
| Coverage E: Personal Liability | $300,000 each occurrence | Includes defense costs, which are paid in addition to the limit |
| Coverage F: Medical Payments to Others | $5,000 each person | Applies regardless of fault; expenses incurred within three years of the accident |
| Debris removal | Additional 5 percent of the limit that applies to the damaged property | Available when the loss plus debris removal exceeds the limit |
| Trees, shrubs and plants | 5 percent of Coverage A | No more than $750 for any one tree, shrub or plant |
| Ordinance or law | 10 percent of Coverage A ($42,500) | Additional amount; not subject to a separate deductible |
| Fungi, wet rot or bacteria | $10,000 aggregate | Only when caused by a covered water loss |
| Water back-up and sump discharge | $10,000 | Endorsement HM 22 08 |
| Fire department service charge | $1,000 | No deductible applies |
| Credit card, forgery and counterfeit money | $1,000 | No deductible applies |
| Loss assessment | $1,000 | Per assessment, for assessments charged by an owners' association |

### Coverage A: Dwelling

Coverage A protects the house itself. It is usually the largest coverage on the policy and the
one most people have in mind when they talk about insuring their home.

#### What Coverage A includes

We cover the dwelling on the residence premises shown in the Declarations, including structures
attached to the dwelling such as an attached garage, a porch or a deck fastened to the house. We
also cover materials and supplies located on or next to the residence premises that are used to
construct, alter or repair the dwelling or other structures on the residence premises. Built-in
appliances, wall-to-wall carpeting, permanently installed cabinets, central heating and cooling
equipment, plumbing, wiring, and fixtures that are permanently attached to the structure are part
of the dwelling rather than personal property.

#### What Coverage A does not include

Coverage A does not include land, including the land on which the dwelling is located, and it
does not pay to replace, rebuild, stabilize or otherwise restore the land. It does not cover
structures that are separated from the dwelling by clear space, which belong under Coverage B,
or structures connected only by a fence, utility line or similar connection, which are also
treated as other structures.

#### How dwelling losses are settled

We settle losses to the dwelling at replacement cost without deduction for depreciation,
provided that at the time of loss the Coverage A limit is at least 80 percent of the full cost to
replace the dwelling. If the limit is lower than that, we pay the larger of the actual cash value
of the damage or the proportion of the replacement cost that the Coverage A limit bears to 80
percent of the full replacement cost. Until the repair or replacement is complete we pay no more
than the actual cash value of the damage, unless the damage is less than 5 percent of the
Coverage A limit and less than $2,500. You may make a claim on an actual cash value basis and then
make a further claim for the difference within 180 days after the loss.

Because construction costs in coastal towns can rise sharply after a regional storm, this policy
includes Extended Replacement Cost endorsement HM 04 20. If the cost to rebuild the dwelling after
a covered loss exceeds the Coverage A limit, we pay up to an additional 25 percent of that limit,
or $106,250, provided you have told us within 90 days of any alteration that increased the
dwelling's value by $5,000 or more.

### Coverage B: Other Structures

We cover other structures on the residence premises that are set apart from the dwelling by
clear space, such as a detached garage, a workshop, a shed, a gazebo, fences, driveways and
retaining walls. The limit is 10 percent of Coverage A. We do not cover other structures rented
or held for rental to anyone who is not a tenant of the dwelling, other structures used in whole
or in part for business, or gravemarkers, except as provided under Additional Coverages.

### Coverage C: Personal Property

#### Property we cover

We cover personal property owned or used by an insured while it is anywhere in the world. At
your request, we will also cover personal property owned by others while it is on the part of the
residence premises occupied by an insured, and property of a guest or a residence employee while
it is in any residence occupied by an insured. Personal property usually located at an insured's
residence other than the residence premises, such as a holiday cottage, is limited to 10 percent
of the Coverage C limit or $1,000, whichever is greater.

#### Special limits of liability

Certain kinds of property are attractive to thieves or hard to value, so the policy sets a lower
limit for them. Each special limit is the most we pay for each loss for all property in that
category; it does not increase the Coverage C limit. Items worth more than the special limit can
be insured for their full value on the Scheduled Personal Property endorsement.

Table 3: Special limits of liability for Coverage C

| Category of property | Special limit | Comment |
|---|---|---|
| Money, bank notes, gold other than goldware, coins and stored-value cards | $250 | Applies to loss by any peril |
| Securities, deeds, manuscripts, passports and tickets | $1,500 | Includes the cost to research and replace records |
| Watercraft, including trailers, furnishings, equipment and outboard engines | $1,500 | Applies to loss by any peril |
| Trailers and semitrailers not used with watercraft | $1,500 | Applies to loss by any peril |
| Jewelry, watches, furs and precious stones | $1,500 | Theft only; the engagement ring is scheduled separately |
| Firearms and related equipment | $2,500 | Theft only |
| Silverware, goldware, platinumware and pewterware | $2,500 | Theft only |
| Business property on the residence premises | $2,500 | Includes a home office computer used for business |
| Business property away from the residence premises | $1,500 | Does not include electronic apparatus |
| Portable electronic apparatus in or upon a motor vehicle | $1,500 | Only if the apparatus can be powered by the vehicle's electrical system |

#### Property we do not cover

We do not cover articles separately described and specifically insured elsewhere; animals,
birds or fish; motor vehicles and their equipment, except vehicles used to service the residence
premises that are not licensed for road use and motorized wheelchairs; aircraft and drones
designed to carry people or cargo; property of roomers and boarders who are not related to you;
property in an apartment regularly rented to others; business data stored in books or on
electronic media; and credit cards, except as provided under Additional Coverages.

#### How personal property losses are settled

Because endorsement HM 20 15 is attached, personal property losses are settled at replacement
cost. We pay the smaller of the replacement cost at the time of loss, the full cost of repair, or
the applicable limit. Until the property is actually replaced we pay actual cash value. Antiques,
fine art, collectibles and items that cannot be replaced with new items of like kind are settled
at market value rather than replacement cost.

### Coverage D: Loss of Use

If a covered loss makes the residence premises unfit to live in, we pay additional living
expense: any necessary increase in living expenses you incur so that your household can maintain
its normal standard of living. Examples are temporary rent, extra mileage to work or school, the
cost of storing furniture, and the difference between restaurant meals and your usual grocery
bill. Payment lasts for the shortest time required to repair or replace the damage or, if you
permanently relocate, the shortest time for your household to settle elsewhere, and in no case
longer than 24 months. If a civil authority prohibits you from using the residence premises
because of direct damage to neighboring premises by a covered peril, we pay for up to two weeks.
The expiration of the policy period does not end Coverage D for a loss that began during it.

### Additional Coverages

The following additional coverages are subject to the deductible unless the description says
otherwise.

- **Debris removal.** We pay the reasonable expense to remove debris of covered property after a
  covered loss. If the loss plus the debris removal expense is more than the limit, an additional
  5 percent of that limit is available. We also pay up to $1,000 to remove trees felled by
  windstorm, hail or the weight of ice, snow or sleet that block a driveway or damage a covered
  structure, with no more than $500 for any one tree.
- **Reasonable repairs.** We pay the reasonable cost you incur for necessary measures taken
  solely to protect covered property from further damage, such as boarding a broken window or
  placing a tarpaulin over a damaged roof.
- **Trees, shrubs and other plants.** We cover trees, shrubs, plants and lawns on the residence
  premises for loss by fire, lightning, explosion, riot, aircraft, vehicles not owned by a
  resident, vandalism and theft, up to 5 percent of Coverage A and no more than $750 per plant.
- **Fire department service charge.** We pay up to $1,000 for your liability under a contract or
  agreement for fire department charges when the fire department is called to save or protect
  covered property. No deductible applies.
- **Collapse.** We cover the abrupt falling down or caving in of a building or part of a building
  caused by hidden decay, hidden insect or vermin damage, the weight of ice or snow, or defective
  materials used during construction if the collapse occurs during construction.
- **Glass or safety glazing material.** We cover breakage of glass that is part of a covered
  building, storm door or storm window, and damage to covered property by broken glass.
- **Ordinance or law.** We pay up to 10 percent of Coverage A for the increased costs you incur
  because a building code or ordinance requires you to demolish, rebuild or upgrade an undamaged
  part of the building after a covered loss.

## Section I: Perils Insured Against

### Coverage A and Coverage B

We insure against direct physical loss to property described in Coverages A and B. This is
sometimes called open-perils coverage: a loss is covered unless it is excluded or limited
elsewhere in the policy. The burden is on us to show that an exclusion applies. Loss caused by
freezing of a plumbing, heating or air-conditioning system is covered only if you used
reasonable care to maintain heat in the building, or shut off the water supply and drained the
system. Theft in or to a dwelling under construction is not covered until the dwelling is
finished and occupied.

### Coverage C

Personal property is covered against direct physical loss caused by the named perils listed
below. Unlike Coverages A and B, a loss to personal property is covered only if you can show
that one of these perils caused it.

- Fire or lightning.
- Windstorm or hail, including damage to property inside a building when the wind or hail first
  makes an opening in the roof or a wall.
- Explosion.
- Riot or civil commotion.
- Aircraft, including self-propelled missiles and spacecraft.
- Vehicles.
- Smoke, meaning sudden and accidental damage from smoke, including the emission of soot from a
  fireplace or furnace, but not smoke from agricultural smudging or industrial operations.
- Vandalism or malicious mischief.
- Theft, including attempted theft and loss of property from a known place when it is likely
  that the property has been stolen.
- Falling objects.
- Weight of ice, snow or sleet that causes damage to property contained in a building.
- Accidental discharge or overflow of water or steam from a plumbing, heating, air-conditioning
  or automatic fire-protective sprinkler system or from a household appliance.
- Sudden and accidental tearing apart, cracking, burning or bulging of a steam or hot-water
  heating system or a water heater.
- Freezing of a plumbing, heating, air-conditioning or sprinkler system or household appliance.
- Sudden and accidental damage from artificially generated electrical current.
- Volcanic eruption, other than loss caused by earthquake, land shock waves or tremors.

### Deductibles

A deductible is the part of each covered loss that you pay yourself. We subtract the deductible
once from the total amount of a covered loss in any one occurrence, and then pay the rest up to
the applicable limit. When a single occurrence triggers more than one deductible, such as a
storm that causes both wind damage and a sewer back-up, only the highest of the applicable
deductibles is applied. Percentage deductibles are calculated from the Coverage A limit shown in
the Declarations, not from the amount of the loss.

Table 4: Deductibles

| Peril | Deductible | Applies to |
|---|---|---|
| All other perils | $1,000 per occurrence | Coverages A, B and C for any covered loss not listed below |
| Windstorm or hail | 2 percent of Coverage A ($8,500) | Wind or hail damage from any storm that is not a named hurricane |
| Named hurricane | 5 percent of Coverage A ($21,250) | Damage during a hurricane watch or warning issued for Kestrel County, until 72 hours after it ends |
| Water back-up and sump discharge | $2,500 | Losses paid under endorsement HM 22 08 |
| Glass breakage | $250 | Breakage of glass or safety glazing, when no other damage occurs |
| Theft | $1,000 | Includes theft of scheduled property away from the residence premises |
| Identity fraud expense | $250 | Expenses under endorsement HM 24 90 |
| Earthquake | 10 percent of Coverage A | Only if endorsement HM 54 10 is shown; not purchased on this policy |
| Coverage D, fire department service charge, Section II | No deductible | Loss of use, service charges, and all liability and medical payments coverages |

For example, if a windstorm in October tears off part of the roof and the repair costs $14,200,
the windstorm deductible of $8,500 applies and we pay $5,700. If a frozen pipe bursts in January
and causes $6,300 of water damage to floors and furniture, the all other perils deductible of
$1,000 applies and we pay $5,300, plus any additional living expense under Coverage D without a
deductible.

## Section I: Exclusions

We do not insure for loss caused directly or indirectly by any of the excluded events below.
Such a loss is excluded regardless of any other cause or event that contributes to the loss at
the same time or in any sequence. Where an exclusion names an exception, the exception restores
coverage only for the loss it describes, and only to the extent of the limits and deductibles
shown elsewhere in this policy.

Table 5: Exclusions

| Exclusion | What is excluded | Exceptions and remaining coverage |
|---|---|---|
| Earth movement | Earthquake, landslide, mudflow, subsidence, sinkhole, erosion and the sinking, rising or shifting of land | Ensuing fire, explosion or glass breakage is covered; earthquake cover requires endorsement HM 54 10 |
| Flood and surface water | Flood, surface water, waves, tidal water, storm surge and spray from any of these, whether or not driven by wind | Ensuing fire, explosion or theft is covered; flood insurance must be bought separately |
| Water below the surface | Water that seeps or leaks through a foundation, basement wall, floor, driveway, sidewalk or swimming pool | Sudden discharge from a plumbing system inside the dwelling is covered |
| Water back-up | Water or sewage that backs up through sewers or drains or overflows from a sump pump | Covered up to $10,000 under endorsement HM 22 08 |
| Ordinance or law | Enforcement of any ordinance or law regulating construction, repair or demolition | Covered up to 10 percent of Coverage A under the Ordinance or Law additional coverage |
| Power failure | Failure of power or other utility service that originates away from the residence premises | A covered peril that ensues on the residence premises is covered |
| Neglect | Failure of an insured to use all reasonable means to save and preserve property at and after a loss | None |
| War and nuclear hazard | Declared or undeclared war, insurrection, and any nuclear reaction, radiation or contamination | None; fire caused by a nuclear hazard is also excluded |
| Intentional loss | Any loss arising out of an act an insured commits or conspires to commit with the intent to cause a loss | An insured who did not take part in the act may recover their share of the loss |
| Governmental action | Destruction, confiscation or seizure of property by order of any governmental or public authority | Acts ordered to prevent the spread of a fire are covered |
| Wear and tear | Wear and tear, marring, deterioration, latent defect, mechanical breakdown, rust, corrosion, smog and settling or cracking of pavements, foundations and walls | Water damage that results from a sudden failure of a plumbing or heating system is covered |
| Fungi, wet rot and bacteria | Presence, growth or spread of mold, fungi, wet rot or bacteria | Covered up to $10,000 aggregate when caused by a covered water loss |
| Continuous seepage | Leakage or seepage of water or steam over a period of 14 days or more | None |
| Animals and vermin | Birds, rodents, insects and animals owned or kept by an insured | Breakage of glass and collapse caused by hidden insect damage are covered |
| Vacancy | Vandalism, malicious mischief and glass breakage if the dwelling was vacant more than 60 consecutive days before the loss | A dwelling under construction is not considered vacant |

Weather conditions are excluded only when they contribute in any way with an excluded event
above to produce the loss. Faulty planning, design, workmanship or maintenance is excluded, but
any ensuing loss to property described in Coverages A and B that is not otherwise excluded is
covered. The flood exclusion is the one our customers most often ask about: a homeowners policy
is not designed to pay for rising water, and homes on Gannet Ridge Road lie partly in a mapped
coastal flood zone. Your agent can arrange a separate flood policy.

## Section I: Conditions

### Duties After Loss

In case of a loss to covered property, we have no duty to provide coverage under this policy if
the failure to comply with the following duties is prejudicial to us. These duties must be
performed by you, by an insured seeking coverage, or by a representative of either.

1. Give prompt notice to us or to your agent; the claims line at 1-800-555-0142 is staffed
   every day of the year.
2. Notify the police in case of loss by theft, and the credit card company or bank in case of
   loss under the credit card coverage.
3. Protect the property from further damage, make reasonable and necessary repairs to protect
   it, and keep an accurate record of the repair expenses.
4. Prepare an inventory of damaged personal property showing the quantity, description, actual
   cash value and amount of loss, with bills, receipts and related documents that justify the
   figures.
5. As often as we reasonably require, show the damaged property, provide records and documents
   we request, and submit to examination under oath, while not in the presence of another
   insured, and sign the same.
6. Send us, within 60 days after our request, a signed, sworn proof of loss that states the
   time and cause of loss, the interests of all insureds and all others in the property, and
   other insurance that may cover the loss.

### Loss Payment and Appraisal

We adjust all losses with you and pay you unless another payee is named in the policy or is
legally entitled to receive payment. Loss is payable 60 days after we receive your proof of loss
and either reach an agreement with you, a court enters a final judgment, or an appraisal award is
filed with us. If you and we fail to agree on the amount of loss, either may demand an
appraisal. Each party chooses a competent and impartial appraiser within 20 days; the two
appraisers choose an umpire. A decision agreed to by any two of the three sets the amount of
loss. Each party pays its own appraiser and shares the umpire's expenses equally.

### Mortgage Clause

If a mortgagee is named in the Declarations, a loss payable under Coverage A or B is paid to the
mortgagee and you, as interests appear. If we deny your claim, that denial does not apply to a
valid claim of the mortgagee, provided the mortgagee notifies us of any change in ownership,
occupancy or substantial change in risk of which it is aware, pays any premium due on demand if
you have neglected to pay, and submits a signed, sworn statement of loss within 60 days after
receiving notice from us of your failure to do so. If we decide to cancel or not to renew this
policy, the mortgagee is notified at least 10 days before the date cancellation or nonrenewal
takes effect.

### Other Insurance and Service Agreements

If a loss covered by this policy is also covered by other insurance, we pay only the proportion
of the loss that the limit of liability under this policy bears to the total amount of
insurance covering the loss. This insurance is excess over any amounts payable under a service
agreement, such as a home warranty or an appliance protection plan, even if the agreement is
described as insurance.

## Section II: Liability Coverages

### Coverage E: Personal Liability

If a claim is made or a suit is brought against an insured for damages because of bodily injury
or property damage caused by an occurrence to which this coverage applies, we will pay up to our
limit of liability for the damages for which an insured is legally liable, and we will provide a
defense at our expense by counsel of our choice, even if the suit is groundless, false or
fraudulent. We may investigate and settle any claim or suit that we decide is appropriate. Our
duty to settle or defend ends when our limit of liability for the occurrence has been exhausted
by payment of a judgment or settlement. The limit for Coverage E is $300,000 each occurrence,
regardless of the number of insureds, claims made or persons injured.

### Coverage F: Medical Payments to Others

We pay the necessary medical expenses that are incurred or medically ascertained within three
years from the date of an accident causing bodily injury, up to $5,000 for each person. Medical
expenses means reasonable charges for medical, surgical, x-ray, dental, ambulance, hospital,
professional nursing, prosthetic devices and funeral services. This coverage does not apply to
you or to regular residents of your household other than residence employees. It applies to a
person on the insured location with the permission of an insured, and to a person off the
insured location if the injury arises out of a condition on the insured location, is caused by
the activities of an insured, is caused by a residence employee in the course of employment, or
is caused by an animal owned by or in the care of an insured. Payment under Coverage F is not an
admission of liability by you or by us.

### Section II Additional Coverages

In addition to the limits of liability, we pay claim expenses we incur and costs taxed against
an insured in any suit we defend; premiums on bonds required in a suit we defend, up to $250 per
bond; reasonable expenses an insured incurs at our request, including actual loss of earnings up
to $250 a day for assisting us in the investigation or defense of a claim; and post-judgment
interest. We also pay expenses for first aid to others at the time of a bodily injury covered
under this policy, and up to $1,000 per occurrence at replacement cost for property damage to
property of others caused by an insured, even though the insured is not legally liable.

### Section II Exclusions

Coverages E and F do not apply to the following. Each exclusion is stated in full in the policy
jacket; the summary here explains its purpose.

- **Motor vehicle liability.** Bodily injury or property damage arising out of the ownership,
  maintenance, use, loading or unloading of motor vehicles, except vehicles in dead storage on an
  insured location, golf carts while used for golfing, and vehicles designed to assist the
  handicapped. Your auto policy is where this risk belongs.
- **Watercraft liability.** Watercraft with inboard or inboard-outdrive engines of more than 50
  horsepower owned by an insured, and sailing vessels 26 feet or more in length owned by or
  rented to an insured. Canoes, kayaks and the family's 16-foot sailing dinghy remain covered.
- **Aircraft and hovercraft liability.** Any aircraft or hovercraft, except model aircraft and
  small unmanned aircraft flown for recreation.
- **Expected or intended injury.** Bodily injury or property damage which is expected or intended
  by an insured, even if the resulting injury is of a different kind or degree than expected.
- **Business and professional services.** Liability arising out of or in connection with a
  business conducted from an insured location or engaged in by an insured, and the rendering of
  or failure to render professional services.
- **Communicable disease.** Bodily injury or property damage which arises out of the transmission
  of a communicable disease by an insured.
- **Sexual molestation, corporal punishment, or physical or mental abuse.**
- **Controlled substances.** The use, sale, manufacture, delivery, transfer or possession by any
  person of a controlled substance, other than the legitimate use of prescription drugs by a
  person following the orders of a licensed health care professional.
- **Contractual liability and property owned by an insured.** Liability assumed under a contract
  other than a written contract directly relating to the ownership, maintenance or use of an
  insured location, and property damage to property owned by an insured.

## Section II: Conditions

The most we pay for all damages resulting from any one occurrence is the Coverage E limit shown
in the Declarations. All bodily injury and property damage resulting from any one accident or
from continuous or repeated exposure to substantially the same general harmful conditions is
considered to be the result of one occurrence. In case of an accident or occurrence, the insured
must give us written notice as soon as is practical, promptly forward every notice, demand,
summons or other process relating to the accident, and at our request help us make settlement,
enforce any right of contribution, attend hearings and trials, and secure and give evidence. No
insured shall, except at their own cost, voluntarily make payment, assume obligation or incur
expense other than for first aid to others at the time of the bodily injury.

## General Conditions Applying to Sections I and II

### Cancellation and Nonrenewal

You may cancel this policy at any time by returning it to us or by letting us know in writing of
the date cancellation is to take effect. We may cancel only for the reasons stated here, by
letting you know in writing of the date cancellation takes effect. When you have not paid the
premium, we may cancel at any time by letting you know at least 10 days before the date
cancellation takes effect. When this policy has been in effect for less than 60 days and is not a
renewal with us, we may cancel for any reason with 10 days' notice. When this policy has been in
effect for 60 days or more, or at any time if it is a renewal with us, we may cancel only for
material misrepresentation of fact which, if known to us, would have caused us not to issue the
policy, or if the risk has changed substantially since the policy was issued; in that case we
give at least 30 days' notice. We may decide not to renew this policy by delivering to you, or
mailing to you at your mailing address shown in the Declarations, written notice at least 30
days before the expiration date. When this policy is cancelled, the premium for the period from
the date of cancellation to the expiration date will be refunded pro rata.

### Concealment or Fraud

We provide coverage to no insured under this policy if, whether before or after a loss, an
insured has intentionally concealed or misrepresented any material fact or circumstance, engaged
in fraudulent conduct, or made false statements relating to this insurance. This condition
applies only to the insured who acted; other insureds keep their coverage.

### Subrogation and Assignment

An insured may waive in writing before a loss all rights of recovery against any person. If not
waived, we may require an assignment of rights of recovery for a loss to the extent that payment
is made by us. Assignment of this policy is not valid unless we give our written consent.

### Policy Period and Renewal

This policy applies only to loss in Section I, or bodily injury or property damage in Section
II, which occurs during the policy period. At each renewal we review the Coverage A limit against
current local construction costs and may propose an inflation adjustment, which takes effect
only if you accept it by paying the renewal premium.

## Endorsement Schedule

The following endorsements form part of this policy. Where an endorsement and the policy form
disagree, the endorsement controls for the coverage it describes.

Table 6: Endorsement schedule

| Form | Title | Annual premium | Effect on this policy |
|---|---|---|---|
| HM 00 03 | Homeowners 3 Special Form | Included in base premium | The main policy form described in this document |
| HM 04 20 | Extended Replacement Cost | $48 | Adds up to 25 percent of Coverage A when rebuilding costs exceed the limit |
| HM 20 15 | Personal Property Replacement Cost | $112 | Settles Coverage C losses at replacement cost instead of actual cash value |
| HM 22 08 | Water Back-Up and Sump Discharge | $95 | $10,000 limit with a $2,500 deductible for sewer and drain back-up |
| HM 04 61 | Scheduled Personal Property | $84 | Insures the engagement ring for $8,400, worldwide, with no deductible |
| HM 03 52 | Named Hurricane Deductible | No charge | Sets the 5 percent named hurricane deductible shown in Table 4 |
| HM 24 90 | Identity Fraud Expense | $25 | Pays up to $15,000 of expenses to restore your identity records |
| HM 04 95 | Refrigerated Property | $15 | Pays up to $500 for spoiled food after an off-premises power outage or a freezer breakdown, with a $100 deductible |

Questions about this policy, a change of address or a claim can be directed to your agent,
Corliss & Vane Insurance Agency, or to Harborline Mutual customer service. Please keep this
policy with your important papers and review your limits with your agent whenever you renovate,
make a major purchase or change how the home is used.
"""


# --------------------------------------------------------------------------------------------
# 2. Engineering handbook (Markdown, written out verbatim)
# --------------------------------------------------------------------------------------------

TECHNICAL_HANDBOOK = """
# Tidewater Operations Handbook

Tidewater is the internal message-queue service that carries order events, inventory updates and
notification jobs between roughly forty production services. This handbook is for the engineers
who run it: the platform on-call rotation, the teams who own producers and consumers, and anyone
preparing a change to a broker cluster. It explains how the system is put together, how to
install and configure it, what to watch, and what to do when something breaks. It reflects
release 4.3 of the broker and release 2.8 of the `tidectl` command-line tool.

If you only have five minutes, read the section on incident procedures and keep the alert
runbooks bookmarked. Everything else can wait until your first quiet afternoon on call.

## 1. Architecture Overview

A Tidewater deployment is a cluster of three to nine broker processes plus a small coordinator
quorum. Producers write messages to named queues; consumers read them, process them and
acknowledge them. Every queue is split into partitions, and every partition is copied to several
brokers so that the loss of one machine does not lose data or stop traffic.

### Brokers, partitions and replicas

A partition is an ordered, append-only log of messages stored in segment files on a broker's
data disk. Each partition has one leader replica, which accepts writes and serves reads, and a
number of follower replicas, which copy the leader's log. The set of replicas that are fully
caught up with the leader is called the in-sync set. A write is considered durable when it has
been stored by at least `min_insync_replicas` members of the in-sync set, and the producer
receives its acknowledgement only then.

Ordering is guaranteed within a partition and nowhere else. Producers that need related events
to stay in order, such as all updates to one order, must send them with the same partition key.
The broker hashes the key to choose the partition, so the mapping stays stable as long as the
partition count does not change. Raising the partition count of a busy queue therefore breaks
ordering for in-flight keys for a short time; plan such changes with the owning team.

### The coordinator quorum

Three or five coordinator processes hold the cluster metadata: which brokers are alive, which
queues exist, which replica leads each partition and which consumer group owns which partition.
They agree on changes with a leader-election protocol and need a majority to make progress. A
cluster with three coordinators tolerates the loss of one; a cluster with five tolerates two. The
coordinators are small and quiet, but when they cannot form a majority no leader can be elected
for any partition, so their health is watched as closely as the brokers'.

### The write path

1. The producer client looks up the partition leader from its cached metadata and sends a batch
   of messages to that broker.
2. The leader validates the batch, assigns offsets and appends it to the active segment of the
   partition log.
3. Followers fetch the new data and append it to their own copies; each fetch tells the leader
   how far the follower has come.
4. Once enough in-sync replicas hold the batch, the leader advances the partition's commit
   offset and acknowledges the producer.
5. If the acknowledgement does not arrive within `ack.timeout.ms`, the producer retries. Because
   producers are idempotent by default, a retried batch is never stored twice.

### The read path and consumer groups

Consumers join a consumer group, and the coordinator assigns each partition of the subscribed
queues to exactly one member of the group. A consumer reads committed messages from the leader,
processes them and periodically commits its position. When a consumer stops sending heartbeats
for longer than `consumer.session.timeout.ms`, the coordinator revokes its partitions and hands
them to the remaining members. This rebalance pauses consumption for the whole group for a few
seconds, which is why a consumer that restarts in a crash loop can hurt throughput far more than
its own share of the work suggests.

Messages that a consumer rejects, or fails to acknowledge within the visibility timeout, are
redelivered. After `dead_letter.max_redeliveries` attempts the broker moves the message to the
queue's dead-letter queue, named after the original queue with the suffix `.dlq`. Nothing is
ever dropped silently.

## 2. Installing and Upgrading

### Hardware sizing

Tidewater is mostly limited by disk throughput and network bandwidth, not by CPU. Use local
NVMe storage for data directories; network-attached volumes work but add tail latency that shows
up directly in producer acknowledgement times. Size the disks for the retention you need plus
40 percent headroom, because compaction and segment rolls briefly need extra space.

| Profile | Brokers | vCPU per broker | Memory per broker | Data disk per broker | Typical load |
|---|---|---|---|---|---|
| Development | 3 | 2 | 8 GiB | 100 GiB | Under 1,000 messages per second |
| Standard | 3 | 8 | 32 GiB | 2 TiB NVMe | Up to 50,000 messages per second |
| Large | 6 | 16 | 64 GiB | 4 TiB NVMe | Up to 250,000 messages per second |
| Archive | 9 | 16 | 64 GiB | 12 TiB | Long retention, replay-heavy workloads |

Give the broker JVM no more than 8 GiB of heap. The rest of the memory is more useful as the
operating system's page cache, which is what makes reads of recent messages cheap.

### Installing a new cluster

New clusters are created from the infrastructure repository, never by hand. The `tidectl`
bootstrap command validates the inventory, generates broker identities and certificates, and
starts the coordinators before the brokers.

```bash
tidectl cluster init --inventory inventories/orders-prod.yaml --dry-run
tidectl cluster init --inventory inventories/orders-prod.yaml
tidectl cluster status orders-prod --wait-healthy --timeout 10m
```

Review the dry-run output with a second engineer before running the real command. The dry run
prints every broker's data directory, listener address and rack label; mistakes in rack labels
are the most common cause of replicas landing on the same failure domain.

### Rolling upgrades

Brokers are upgraded one at a time so that every partition keeps a leader throughout. A full
rolling upgrade of a six-broker cluster takes about forty minutes.

1. Check that the cluster is healthy: no under-replicated partitions, no offline partitions and
   consumer lag within normal bounds.
2. Announce the change in the platform channel and pause any scheduled partition reassignment.
3. For each broker, run `tidectl broker drain` so that it hands its leaderships to other
   replicas, wait until it leads no partitions, then stop it, upgrade the package and start it.
4. Wait until the broker has caught up and rejoined the in-sync set of all its partitions before
   moving on to the next one.
5. When every broker runs the new release, raise the cluster's protocol version with
   `tidectl cluster set-protocol`. This step cannot be undone, so leave a day between the
   package upgrade and the protocol change.

```bash
tidectl broker drain orders-prod --broker 3 --wait
sudo systemctl stop tidewater-broker
sudo apt-get install tidewater-broker=4.3.2-1
sudo systemctl start tidewater-broker
tidectl broker wait-in-sync orders-prod --broker 3 --timeout 15m
```

## 3. Configuration Reference

### The broker configuration file

Each broker reads `/etc/tidewater/broker.yaml` at start-up. Most settings can also be changed at
run time with `tidectl config set`, in which case the new value is stored in the coordinator
quorum and overrides the file until it is removed. Keep the file and the stored overrides in
agreement: an override forgotten after an incident is the classic cause of one broker behaving
differently from its siblings months later.

```yaml
broker.id: 3
listeners: "internal://0.0.0.0:7420,tls://0.0.0.0:7421"
data_dirs: ["/srv/tidewater/data0", "/srv/tidewater/data1"]
rack: "eu-west-1b"
replication.factor: 3
min_insync_replicas: 2
retention.hours: 168
segment.bytes: 1073741824
tls.enabled: true
metrics.port: 9308
```

### Parameter reference

The table below lists every broker parameter that operators are expected to touch. Values are
shown as they appear in `broker.yaml`. Sizes are in bytes and durations in the unit named by the
parameter unless the description says otherwise.

| Parameter | Default | Range | Description |
|---|---|---|---|
| `broker.id` | none (required) | 0 to 65535 | Unique numeric identity of the broker within the cluster; never reuse the id of a retired broker. |
| `rack` | empty | any string | Failure domain label; replicas of a partition are spread across different racks. |
| `listeners` | `internal://0.0.0.0:7420` | comma-separated URIs | Addresses and protocols the broker listens on. |
| `advertised_listeners` | same as `listeners` | comma-separated URIs | Addresses given to clients in metadata responses; set when brokers sit behind NAT. |
| `data_dirs` | `/srv/tidewater/data` | one or more paths | Directories holding partition logs; partitions are spread across them by free space. |
| `replication.factor` | 3 | 1 to 7 | Default number of replicas for new queues. |
| `min_insync_replicas` | 2 | 1 to replication factor | Replicas that must store a write before it is acknowledged. |
| `ack.timeout.ms` | 30000 | 1000 to 300000 | How long the leader waits for in-sync replicas before failing a write. |
| `segment.bytes` | 1073741824 | 16 MiB to 4 GiB | Size at which the active log segment is closed and a new one started. |
| `segment.ms` | 604800000 | 60000 to 2592000000 | Age at which the active segment is rolled even if it is not full. |
| `retention.hours` | 168 | 1 to 8760 | How long closed segments are kept before deletion. |
| `retention.bytes` | -1 (unlimited) | -1 or at least 1 GiB | Size limit per partition; the oldest segments are deleted first. |
| `max.message.bytes` | 1048576 | 1 KiB to 16 MiB | Largest accepted batch after compression. |
| `compression.type` | `producer` | producer, none, lz4, zstd | Codec used to store batches; `producer` keeps the client's choice. |
| `flush.interval.messages` | unset | 1 to 2^63 | Forces an fsync after this many messages; normally left to replication. |
| `flush.interval.ms` | unset | 10 to 3600000 | Forces an fsync after this much time; normally left to replication. |
| `num.network.threads` | 3 | 1 to 64 | Threads that read requests from and write responses to sockets. |
| `num.io.threads` | 8 | 1 to 256 | Threads that perform disk operations for requests. |
| `socket.send.buffer.bytes` | 102400 | -1 or 8 KiB to 16 MiB | TCP send buffer; -1 uses the operating system default. |
| `socket.receive.buffer.bytes` | 102400 | -1 or 8 KiB to 16 MiB | TCP receive buffer; -1 uses the operating system default. |
| `consumer.session.timeout.ms` | 45000 | 6000 to 300000 | Silence after which a consumer is removed from its group. |
| `consumer.heartbeat.interval.ms` | 3000 | 500 to 30000 | Expected interval between consumer heartbeats; keep below a third of the session timeout. |
| `visibility.timeout.ms` | 60000 | 1000 to 43200000 | Time a delivered message stays invisible to other consumers while it awaits acknowledgement. |
| `dead_letter.max_redeliveries` | 5 | 1 to 100 | Deliveries before a message is moved to the dead-letter queue. |
| `dead_letter.queue_suffix` | `.dlq` | any valid queue name suffix | Suffix used to name dead-letter queues. |
| `compaction.enabled` | false | true or false | Keeps only the latest message per key instead of deleting by age. |
| `compaction.min_dirty_ratio` | 0.5 | 0.1 to 0.9 | Share of uncompacted data that triggers a compaction pass. |
| `quota.producer.bytes_per_sec` | unlimited | 1 KiB/s to 10 GiB/s | Default produce bandwidth per client identity. |
| `quota.consumer.bytes_per_sec` | unlimited | 1 KiB/s to 10 GiB/s | Default fetch bandwidth per client identity. |
| `disk.high_watermark_percent` | 85 | 50 to 98 | Disk usage at which the broker stops accepting new partitions and raises an alert. |
| `disk.critical_percent` | 95 | 60 to 99 | Disk usage at which the broker rejects writes to protect its own log. |
| `tls.enabled` | false | true or false | Enables the TLS listener and inter-broker encryption. |
| `tls.min_version` | `1.2` | 1.2 or 1.3 | Oldest TLS version accepted from clients. |
| `auth.mechanism` | `none` | none, mtls, scram-sha-512 | How clients authenticate. |
| `coordinator.election_timeout_ms` | 2000 | 500 to 10000 | Time without a coordinator leader before a new election starts. |
| `snapshot.interval_minutes` | 60 | 5 to 1440 | How often queue metadata and offsets are written to the snapshot store. |
| `metrics.port` | 9308 | 1024 to 65535 | Port of the Prometheus metrics endpoint. |
| `log.level` | `info` | debug, info, warn, error | Verbosity of the broker's own log. |

### Per-queue overrides

Retention, segment size, compaction, maximum message size and the dead-letter settings can be
overridden for a single queue. Queue owners request overrides through the platform service
catalogue; the on-call engineer applies them with `tidectl queue configure` and records the
ticket number in the change description.

```bash
tidectl queue configure orders-prod payments.settled \\
    --set retention.hours=720 \\
    --set dead_letter.max_redeliveries=10 \\
    --reason "FIN-2231 longer replay window for month-end reconciliation"
```

A few combinations are refused by the broker because they cannot work: compaction on a queue
without message keys, a `min_insync_replicas` higher than the queue's replication factor, and a
`retention.bytes` smaller than one segment.

## 4. Monitoring and Alerting

### Key metrics

Every broker exposes Prometheus metrics on its metrics port. The platform dashboards are built
from a small number of them, and the alerts below are the ones that page a human.

| Metric | Warning | Critical | What it tells you |
|---|---|---|---|
| `tidewater_under_replicated_partitions` | above 0 for 5 minutes | above 0 for 20 minutes | A follower has fallen out of the in-sync set. |
| `tidewater_offline_partitions` | never | above 0 | A partition has no leader; writes to it fail. |
| `tidewater_produce_latency_p99_ms` | above 150 | above 500 | Time from receiving a batch to acknowledging it. |
| `tidewater_consumer_lag_seconds` | above 300 | above 1800 | How far the slowest member of a group is behind. |
| `tidewater_disk_used_percent` | above 80 | above 90 | Fullness of the busiest data directory. |
| `tidewater_dlq_messages_total` rate | above 1 per minute | above 50 per minute | Messages are failing processing repeatedly. |

### Dashboards

The cluster overview dashboard shows one row per broker with request rate, produce latency, disk
usage and network throughput, followed by a row of cluster-wide panels for partition health and
coordinator leadership changes. The consumer dashboard is organised by consumer group; it plots
lag in seconds rather than messages, because a lag of ten thousand messages means very different
things for a queue that receives ten messages a second and one that receives ten thousand.

### Alert runbooks

Every alert links to a runbook page. A good runbook answers three questions in its first
paragraph: what the alert means for users, how to confirm it is real, and the safest first
action. The runbooks live next to the alert rules in the monitoring repository, and a change to
an alert without a matching runbook change fails review.

## 5. Incident Procedures

### A broker will not start

Start with the broker log, which is usually explicit. The three common causes are a full data
disk, a corrupted segment after a power loss, and a configuration override that refers to a
directory or certificate that no longer exists.

- If the disk is full, do not delete segment files by hand. Lower retention on the largest
  queue with a temporary override, start the broker and let it delete segments itself.
- If a segment is corrupt, the broker names the file. Move the partition's directory aside and
  let the broker rebuild the replica from the leader; this is safe as long as another in-sync
  replica exists, which `tidectl partition describe` confirms.
- If an override is wrong, list the stored overrides with `tidectl config list --broker N`,
  remove the bad one and start again.

### Consumer lag keeps growing

Lag is almost always a consumer problem, not a broker problem. Check the group's member count
first: a group that keeps rebalancing shows a saw-tooth pattern of members joining and leaving.
Then compare the processing time per message with the arrival rate. If the consumer simply
cannot keep up, the owning team can add members up to the number of partitions; beyond that,
adding members does nothing, because each partition is read by only one member of a group.

### The disk is almost full

At 85 percent the broker stops accepting new partitions; at 95 percent it rejects writes. Buy
time first, then fix the cause.

1. Identify the largest partitions with `tidectl broker disk-usage --broker N --top 20`.
2. Apply a temporary retention override to the queue that is growing fastest and note the
   override in the incident channel so that it is removed later.
3. If the growth comes from one producer, apply a produce quota to its client identity.
4. Once usage is below 75 percent, plan the real fix: more disk, more brokers, or a retention
   agreement with the queue's owner.

### Split brain after a network partition

The coordinator quorum prevents two leaders for the same partition from accepting writes at the
same time, so a true split brain cannot happen while the quorum works as designed. What people
usually mean by split brain is a minority side of a network partition where clients keep
retrying against brokers that can no longer acknowledge writes. Those clients see timeouts, not
data loss. When the network heals, followers on the minority side truncate any unacknowledged
tail of their logs and catch up. Do not restart brokers during the partition; it only adds leader
elections once the network returns.

## 6. Backup, Retention and Recovery

### Snapshots

Message data is protected by replication, not by backup; copying terabytes of logs that are
deleted a week later would achieve little. What is backed up is the metadata: queue definitions,
configuration overrides, access control lists and consumer group offsets. The coordinators write
a snapshot to object storage every `snapshot.interval_minutes` minutes, and the last 14 days of
snapshots are kept.

### Restoring a queue after accidental deletion

Deleting a queue removes its data immediately, and no snapshot brings the messages back. What a
snapshot can restore is the queue's definition, overrides, access rules and consumer offsets, so
that producers and consumers work again without manual reconfiguration. Producers that keep an
outbox can then replay the lost window.

```bash
tidectl snapshot list orders-prod --since 48h
tidectl queue restore orders-prod inventory.reserved --from-snapshot 2024-10-29T13:00:00Z
```

Queues that must never lose history should be mirrored to the archive cluster. Mirroring runs
continuously, lags production by under a minute and keeps messages for a year.

## 7. Security

### Transport encryption

All production clusters run with `tls.enabled: true` and `tls.min_version: "1.3"`. Certificates
are issued by the internal certificate authority with a lifetime of 90 days and renewed
automatically 30 days before expiry. The broker reloads certificates without a restart; if a
renewal fails, the certificate expiry alert fires at 14 days.

### Authentication and access control

Clients authenticate with mutual TLS: the client certificate's common name is the client
identity. Access control lists grant identities the right to produce to, consume from or
administer specific queues or queue prefixes. Grants are reviewed quarterly, and a grant that has
not been used for 90 days is flagged for removal.

```text
allow identity=svc-checkout   produce  queue=orders.*
allow identity=svc-fulfilment consume  queue=orders.created  group=fulfilment-workers
allow identity=platform-oncall admin   queue=*
deny  identity=*              produce  queue=*.dlq
```

Nobody produces to a dead-letter queue directly. Messages reach a dead-letter queue only through
the broker's redelivery logic, and operators move them back with `tidectl dlq replay`, which
records who replayed what.

## Appendix: Glossary

- **Acknowledgement**: the signal that a write is durable (to a producer) or that a message has
  been processed (from a consumer).
- **Consumer group**: a set of consumers that share the partitions of the queues they read.
- **Dead-letter queue**: a companion queue that holds messages which failed processing too often.
- **In-sync set**: the replicas of a partition that are fully caught up with the leader.
- **Lag**: how far a consumer group is behind the newest committed message, in time or messages.
- **Segment**: one file of a partition's log; retention deletes whole segments.
"""


# --------------------------------------------------------------------------------------------
# 3. Product manual (HTML)
# --------------------------------------------------------------------------------------------

PRODUCT_MANUAL = """
# Aurelia X2 Dual-Boiler Espresso Machine: User Manual

Thank you for choosing the Aurelia X2. This machine was designed in our workshop in Brescello to
give home baristas the temperature stability of a café machine in a body that fits under a
kitchen cabinet. Please read this manual before you use the machine for the first time, and keep
it somewhere you can find it again: the sections on cleaning and descaling matter as much for the
taste of your coffee as the sections on brewing.

## Important Safety Instructions

The Aurelia X2 works with water heated under pressure and with steam hotter than boiling water.
Used as described here it is safe, but a few rules are not optional.

- Connect the machine only to an earthed socket with the voltage shown on the rating plate under
  the drip tray. Do not use extension leads or multi-socket adapters.
- Never immerse the machine, the power cord or the plug in water or any other liquid.
- Do not touch the group head, the steam wand or the hot-water outlet during or immediately after
  use. The group head reaches 93 °C and the steam wand more than 120 °C.
- Always point the steam wand into a jug or the drip tray before opening the steam valve.
- Do not remove the portafilter while the pump is running or while the display shows the
  pressure symbol. Hot water and coffee grounds can spray out of the group head.
- Switch off and unplug the machine before cleaning, before moving it and whenever you leave it
  unattended for more than a day.
- Children must not use or play with the machine. Keep the machine and its cord out of reach of
  children under eight years of age.
- Only use the machine indoors, on a flat, stable and heat-resistant surface at least 10 cm away
  from walls and other appliances.

Warning: If the power cord is damaged it must be replaced by an authorised Aurelia service
centre, using a genuine spare part, to avoid a hazard. Do not use the machine until it has been
repaired.

## What Is in the Box

Unpack the machine carefully and keep the packaging for the duration of the warranty; it is the
safest way to send the machine for service. The box contains:

- the Aurelia X2 espresso machine with a 2.5-litre water tank and a drip tray;
- one 58 mm portafilter with a single spout and one with a double spout;
- filter baskets for 7 g, 14 g and 18 g doses, and a blind basket for backflushing;
- a 58 mm stainless-steel tamper;
- a 600 ml stainless-steel milk jug;
- a water-softening filter cartridge and a water hardness test strip;
- a cleaning brush for the group head and a microfibre cloth;
- this manual and the warranty card.

## Getting to Know Your Machine

### Front of the machine

The group head sits in the centre of the machine, with the portafilter handle locking in from the
left. The steam wand is on the right and the hot-water outlet on the left; both are operated by
rotary knobs above them. Between the knobs is the control panel with a colour display and four
buttons. The pressure gauge above the group head shows the brewing pressure while the pump runs.
The cup warmer on the top of the machine is heated by the brew boiler and reaches about 50 °C
after half an hour.

### Control panel and display

The four buttons are labelled with symbols. The single-cup and double-cup buttons start a
programmed shot; pressing either again stops it early. The menu button opens the settings, and
the power button switches the machine on, off or into standby. In the menu, the cup buttons move
up and down and the menu button confirms a choice.

The display shows the brew temperature, the steam boiler temperature and a shot timer. A water
drop symbol means the tank is nearly empty, a drop with a crossed-out calcium symbol means the
softening filter is due for replacement, and a spanner symbol means that a maintenance task is
due. The tasks are listed under Maintenance in the menu.

### The two boilers

The X2 has two independent boilers. The 0.45-litre brew boiler feeds the group head and is held
at the brew temperature you choose to within half a degree. The 1.2-litre steam boiler supplies
steam and hot water. Because each has its own heating element and controller, you can steam milk
while a shot is running without the brew temperature drifting, which is the main difference
between a dual-boiler machine and a single-boiler or heat-exchanger design.

## Technical Specifications

Table 1: Aurelia X2 technical specifications

| Specification | Value |
|---|---|
| Model number | AX2-230 (Europe, UK), AX2-120 (North America) |
| Rated voltage and frequency | 220 to 240 V, 50 Hz (AX2-230); 120 V, 60 Hz (AX2-120) |
| Rated power | 2,300 W (AX2-230); 1,600 W (AX2-120) |
| Brew boiler | 0.45 litres, stainless steel, 1,000 W heating element |
| Steam boiler | 1.2 litres, stainless steel, 1,300 W heating element |
| Brew temperature range | 86 °C to 96 °C in steps of 0.5 °C |
| Steam boiler pressure | 1.2 to 1.6 bar, adjustable in three steps |
| Pump | Rotary vane pump, 9 bar brewing pressure (adjustable from 6 to 11 bar) |
| Water tank | 2.5 litres, removable, filled from the top |
| Drip tray capacity | 0.8 litres, with float indicator |
| Portafilter | 58 mm, chrome-plated brass |
| Heat-up time | 9 minutes to brew temperature; 12 minutes until fully stable |
| Standby consumption | under 0.5 W |
| Dimensions (W x D x H) | 31 x 42 x 39 cm |
| Weight | 21.5 kg |
| Noise level | 52 dB(A) during extraction |

## First-Time Setup

Setting up the machine takes about twenty minutes, most of which is heating time. Do it in this
order; the steps that fill the boilers must come before the first heat-up.

1. Place the machine on a level surface near a socket. Leave at least 10 cm of space behind the
   machine and 15 cm above it for the cup warmer to vent.
2. Test your water hardness with the strip in the box: dip it for one second, wait one minute and
   count the red squares. Enter the number of squares under Settings > Water Hardness.
3. Soak the water-softening cartridge in cold water for five minutes, then push it onto the
   holder inside the tank until it clicks.
4. Rinse the water tank, fill it with fresh cold water up to the MAX mark and slide it back into
   place at the rear of the machine.
5. Plug in the machine and press the power button. The display shows "Filling boilers"; the pump
   runs in bursts for up to two minutes while the boilers fill. Do not interrupt this step.
6. When the display shows the temperatures rising, lock the empty portafilter into the group
   head and place a large cup underneath.
7. Once the brew temperature is reached, press the double-cup button three times to flush the
   group head, then open the hot-water knob and draw off 200 ml of water into a jug.
8. Open the steam knob for ten seconds with the wand pointing into the drip tray to purge the
   steam boiler. Your machine is now ready.

Note: The first water drawn from a new machine may taste slightly metallic. This disappears after
the flushing steps above and does not indicate a fault.

## Making Espresso

### Grinding and dosing

Good espresso starts with fresh beans, ideally roasted between one and four weeks before use,
and a burr grinder that can be adjusted in fine steps. For the double basket, weigh 18 grams of
ground coffee; for the single basket, 9 grams. Grind immediately before brewing: ground coffee
loses much of its aroma within fifteen minutes. Distribute the grounds evenly in the basket by
tapping the portafilter gently on the counter or using a distribution tool, so that there are no
mounds or empty corners.

### Tamping

Rest the portafilter on the edge of the counter, hold the tamper like a doorknob and press down
with your arm straight until the coffee bed no longer compresses. The force matters less than
keeping the tamper level; a tilted coffee bed lets water channel through the thin side. Wipe any
loose grounds off the rim of the basket before locking the portafilter in, so that the gasket
can seal properly.

### Pulling a shot

Lock the portafilter into the group head firmly, place a warm cup underneath and press the
double-cup button. With the default settings the machine pre-infuses the coffee for five seconds
at low pressure, then ramps up to 9 bar. A well-prepared double shot yields about 36 grams of
espresso in 25 to 30 seconds, counted from the moment you press the button. The shot timer on
the display shows the time so you do not need a separate stopwatch.

The first drops should appear after six to ten seconds as thick, dark streams that turn into a
steady flow the colour of hazelnut. If the flow gushes pale and fast, the grind is too coarse or
the dose too light. If it only drips, the grind is too fine or the dose too heavy.

### Dialling in a new coffee

Change one thing at a time, and change the grind first. Keep the dose constant, adjust the
grinder one step finer or coarser, and taste after each change. Use the table below as a
starting point; every coffee is different and your taste is the final judge.

Table 2: Starting recipes

| Drink | Basket | Dose | Yield | Time | Brew temperature |
|---|---|---|---|---|---|
| Espresso, medium roast | Double (18 g) | 18 g | 36 g | 25 to 30 s | 93.0 °C |
| Espresso, dark roast | Double (18 g) | 18 g | 32 g | 22 to 26 s | 90.5 °C |
| Espresso, light roast | Double (18 g) | 18 g | 45 g | 28 to 32 s | 95.0 °C |
| Ristretto | Double (18 g) | 18 g | 22 g | 18 to 22 s | 92.0 °C |
| Single espresso | Single (7 g) | 9 g | 18 g | 22 to 27 s | 93.0 °C |
| Lungo | Double (18 g) | 16 g | 60 g | 35 to 40 s | 92.5 °C |

If the shot tastes sour and thin, it is under-extracted: grind finer, raise the temperature by
one degree or let the shot run longer. If it tastes bitter, harsh or dry at the back of the
tongue, it is over-extracted: grind coarser, lower the temperature or stop the shot earlier.

## Steaming Milk

The steam boiler reaches full pressure about two minutes after the brew boiler is ready. Before
you start, open the steam knob for two seconds with the wand over the drip tray to release any
condensed water.

1. Fill the cold milk jug to just below the bottom of the spout, about 200 ml for one large
   cappuccino or two small ones. Cold milk straight from the refrigerator gives you the most time
   to texture it.
2. Place the tip of the steam wand just below the surface of the milk, slightly off centre, and
   open the steam knob fully.
3. Lower the jug slowly so that the tip draws in air with a soft tearing sound. Stretch the milk
   for a few seconds for a latte, longer for a cappuccino.
4. Raise the jug so that the tip sinks deeper and the milk spins in a whirlpool. Keep it spinning
   until the jug is too hot to hold comfortably, about 60 to 65 °C.
5. Close the steam knob before lifting the wand out of the milk, wipe the wand immediately with a
   damp cloth and purge it for two seconds.

Tip: Milk that is heated above 70 °C loses its sweetness and the foam collapses quickly. The jug
is too hot to touch for more than a second at about 65 °C, which is a reliable guide.

## Hot Water

Turn the left knob to draw hot water for tea or for an Americano. The water comes from the steam
boiler at about 95 °C. Draw no more than 250 ml at a time; after that the steam boiler needs a
minute to recover pressure, and the display shows the steam temperature dropping while it
refills.

## Programming the Machine

### Brew temperature

Open the menu, choose Brew Temperature and use the cup buttons to change the value in steps of
half a degree. The change takes effect within two minutes. Lighter roasts generally taste best
between 93 and 95 °C, darker roasts between 89 and 92 °C.

### Shot volumes

The single-cup and double-cup buttons can be programmed by volume or by time. To program by
volume, hold the button for three seconds until the display shows "Programming", pull a shot and
press the button again when the cup holds the amount you want. The machine stores the volume
measured by its flow meter and repeats it from then on.

### Pre-infusion

Pre-infusion wets the coffee bed at low pressure before full pressure is applied, which reduces
channelling and makes the machine more forgiving of small errors in distribution. You can set the
pre-infusion time from 0 to 10 seconds and the pre-infusion pressure from 2 to 4 bar. Start with
the default of 5 seconds at 3 bar.

### Eco mode and scheduled start

In eco mode the steam boiler is switched off, which halves the heat-up time and saves energy if
you only drink espresso. The machine also switches itself into standby after a chosen period
without use, between 30 minutes and 8 hours. A weekly schedule lets the machine switch on before
you wake up; set the time for each day under Settings > Schedule.

## Cleaning and Maintenance

Coffee oils go rancid quickly and limescale narrows pipes and insulates heating elements. A clean
machine makes better coffee and lasts longer, and most of the work takes a minute a day.

### After every use

Knock out the coffee puck, rinse the portafilter and wipe the basket dry. Flush the group head for
three seconds with the portafilter removed to rinse away grounds from the shower screen. Wipe and
purge the steam wand immediately after each use, before the milk dries on it.

### Backflushing

Backflushing pushes water back through the group head's valve to remove coffee oils that
ordinary flushing cannot reach. Insert the blind basket into the portafilter, lock it in and
start the Backflush program from the Maintenance menu. Do this with plain water once a week and
with a teaspoon of espresso machine cleaning powder in the blind basket once a month.

Caution: Never backflush with cleaning powder more than once a week. The detergent dries out the
group gasket and shortens its life.

### Descaling

How often you need to descale depends on your water hardness and on whether you use the softening
cartridge. The machine counts the water it has used and shows the spanner symbol when descaling
is due. Use only a descaler made for espresso machines; vinegar attacks the brass fittings and
leaves a taste that lingers for weeks. The descaling program takes about 45 minutes and guides
you through each step on the display, including the two rinse cycles.

Table 3: Maintenance schedule

| Task | How often | Time needed | Notes |
|---|---|---|---|
| Flush group head and purge steam wand | After every use | 10 seconds | Prevents dried milk and coffee residue |
| Empty and rinse drip tray | Daily, or when the float shows red | 1 minute | The float rises when the tray is nearly full |
| Backflush with water | Weekly | 5 minutes | Blind basket, Backflush program |
| Backflush with cleaning powder | Monthly | 10 minutes | One teaspoon of cleaner; rinse afterwards |
| Soak portafilters and baskets | Monthly | 20 minutes | Warm water with cleaning powder; never the handle |
| Replace water-softening cartridge | Every 2 months or 50 litres | 5 minutes | The display reminds you |
| Descale | When the display asks, typically every 3 to 6 months | 45 minutes | Not needed as often with soft water |
| Replace group gasket and shower screen | Every 12 to 18 months | 15 minutes | Kit AX-GK58 from your retailer |

## Troubleshooting

Most problems have a simple cause. Before you contact customer service, check the table below.
If a problem persists after you have tried the suggested remedy, switch the machine off, unplug
it and contact an authorised service centre.

Table 4: Troubleshooting

| Problem | Possible cause | What to do |
|---|---|---|
| The machine does not switch on | Plug not inserted, or the socket has no power | Check the plug and try another socket; check the household fuse |
| The display shows the water drop symbol | Water tank empty or not seated properly | Fill the tank and push it firmly into place |
| The pump runs loudly but little or no water comes out | Air in the system after the tank ran dry | Fill the tank, open the hot-water knob and let water run until it flows evenly |
| Espresso runs too fast and tastes sour | Grind too coarse, dose too low or tamping uneven | Grind finer, check the dose on a scale and tamp level |
| Espresso only drips and tastes bitter | Grind too fine or dose too high | Grind coarser or reduce the dose by half a gram |
| Water leaks around the portafilter | Grounds on the basket rim or a worn group gasket | Wipe the rim before locking in; replace the gasket if it is hard or cracked |
| The pressure gauge stays below 7 bar during a shot | Grind too coarse, or pump pressure set too low | Grind finer; check Settings > Pump Pressure |
| The steam wand produces only a little steam | Steam boiler still heating, eco mode on, or a blocked steam tip | Wait for the steam temperature; switch off eco mode; clear the tip with the pin in the cleaning brush |
| Milk will not foam | Milk too warm, or a low-fat milk that foams poorly | Start with milk straight from the refrigerator; try whole milk |
| Water collects under the machine | Drip tray full or not inserted properly | Empty the drip tray and slide it fully into place |
| Coffee is not hot enough | Cups are cold, or the brew temperature is set low | Warm the cups on the cup warmer; raise the brew temperature |
| The display shows the spanner symbol | A maintenance task is due | Open Maintenance in the menu to see which task |

### Error codes

If the machine detects a fault it stops heating and shows an error code. Switch the machine off,
wait one minute and switch it on again. If the code returns, note it down before calling service.

Table 5: Error codes

| Code | Meaning | What to do |
|---|---|---|
| E01 | Brew boiler temperature sensor fault | Contact service; do not use the machine |
| E02 | Steam boiler temperature sensor fault | Brewing still works in eco mode; contact service |
| E03 | Brew boiler did not reach temperature within 20 minutes | Check that the tank is full; restart; contact service if it repeats |
| E05 | Flow meter reports no flow while the pump runs | Fill the tank and purge air; descale if the machine is overdue |
| E07 | Steam boiler filling timed out | Check the tank is seated; restart the machine |
| E09 | Overheating protection triggered | Unplug the machine and let it cool for one hour before restarting |

## Warranty and Service

Aurelia guarantees the X2 against defects in materials and workmanship for two years from the
date of purchase, and the two boilers for five years. The warranty covers parts and labour at an
authorised service centre. It does not cover damage caused by limescale when the machine has not
been descaled as described in this manual, by the use of unsuitable cleaning agents, by
commercial use, or by repairs carried out by anyone other than an authorised service centre.
Wear parts such as gaskets, shower screens and water-softening cartridges are not covered.

To register your machine and extend the warranty on the boilers to seven years, enter the serial
number printed on the rating plate at the registration page of our website within sixty days of
purchase. Please keep your receipt: service centres ask for it before they carry out warranty
repairs. When you send the machine in, empty the water tank and drip tray, run the steam wand
until no more steam comes out, and pack it in its original packaging with the portafilters
removed.
"""


# --------------------------------------------------------------------------------------------
# 4. Field survey report (PDF; latin-1 text only, for the PDF core fonts)
# --------------------------------------------------------------------------------------------

FIELD_REPORT = """
# Lower Tansey River Water-Quality Field Survey, Autumn 2024

Tansey Catchment Trust, Report TCT-FS-2024-07. Prepared by the Trust's monitoring team with
volunteers from the Millford Angling Association. Issued 18 November 2024.

## 1 Summary

Between 7 and 16 October 2024 the Tansey Catchment Trust sampled eight sites along the lower 23
kilometres of the Tansey River, from the Harrow Bridge gauging station down to the tidal limit at
Saltcote Weir. Each site was visited twice: once on 8 October after nine dry days, and once on 15
October, the morning after 22 millimetres of rain fell across the catchment. At every visit we
measured temperature, pH, dissolved oxygen, conductivity and turbidity in the field, and took
samples for nitrate, ammonia, total phosphorus and E. coli, which were analysed by an accredited
laboratory.

The river upstream of Millford was in good condition on both days. The clearest problem lies
downstream of the town. Total phosphorus below the Millford wastewater treatment works was five
times the upstream concentration in dry weather, and after the rain E. coli counts at the two
sites below the Brook Street storm overflow exceeded 10,000 colony-forming units per 100
millilitres, far above the level considered acceptable for water contact. Dissolved oxygen at
Kiln Reach fell to 5.1 mg/l in the early morning of the dry-weather round, close to the
threshold below which sensitive fish such as grayling suffer. Nitrate was highest in the
agricultural stretch at Fenton Drain. Our recommendations, set out in section 6, focus on the
storm overflow, on phosphorus removal at the treatment works and on a repeat survey in spring.

## 2 Study Area

The Tansey rises on the moorland plateau north of Ashby Cross and flows south-east for 61
kilometres to its estuary at Saltcote. The lower river, the subject of this survey, runs through
mixed farmland on glacial clay before passing through Millford, a market town of about 19,000
people, and then through water meadows and a small industrial estate at Kiln Reach before
reaching the tidal limit. The catchment above Harrow Bridge covers 312 square kilometres; mean
flow at the gauging station is 4.6 cubic metres per second, and the lowest flows usually occur
in late August and September.

Three features matter most for water quality in the lower river. The first is Fenton Drain, a
straightened channel that collects field drainage from about 14 square kilometres of arable land
and joins the Tansey between our sites T2 and T3. The second is the Millford wastewater
treatment works, which serves the town and discharges treated effluent through an outfall 300
metres upstream of site T5. The third is the Brook Street combined sewer overflow, which spills a
mixture of rainwater and untreated sewage into the river during heavy rain when the town's sewer
network is full. The overflow's monitoring data, published by the water company, record 47 spill
events in 2023 with a total duration of 412 hours.

## 3 Methods

### 3.1 Sampling sites

Sites were chosen to bracket each of the features described above, so that a change in water
quality between two neighbouring sites can be attributed to what lies between them. All sites
are at least 50 metres downstream of any confluence or outfall, so that inflows have had a
chance to mix across the channel. Site positions were recorded with a handheld satellite
receiver and marked with a numbered stake on the bank for future visits.

Table 1: Sampling sites on the lower Tansey River

| Site | Location | River km | Upstream influence | Access |
|---|---|---|---|---|
| T1 | Harrow Bridge gauging station | 38.0 | Upland farmland and moorland | Road bridge, steps |
| T2 | Fenton Mill footbridge | 34.6 | Arable fields, field drains | Public footpath |
| T3 | Below Fenton Drain confluence | 32.9 | Fenton Drain | Farm track, by permission |
| T4 | Millford Park | 27.4 | Millford town, surface drainage | Park path |
| T5 | Below treatment works outfall | 25.8 | Treated effluent | Riverside path |
| T6 | Below Brook Street overflow | 24.1 | Storm overflow, town centre | Steps by Brook Street bridge |
| T7 | Kiln Reach | 19.3 | Industrial estate, water meadows | Anglers' car park |
| T8 | Saltcote Weir (tidal limit) | 15.0 | Whole lower catchment, tides | Weir walkway |

### 3.2 Field measurements

Temperature, pH, dissolved oxygen and conductivity were measured with a calibrated multiparameter
sonde held in the main flow at about a third of the water depth, and read once the values had been
stable for at least sixty seconds. Turbidity was measured on a grab sample with a portable
nephelometer. The sonde's pH and conductivity sensors were calibrated each morning against
standard solutions, and the dissolved oxygen sensor against water-saturated air. On the
dry-weather round the downstream sites were visited first, starting at 06:10, so that the
early-morning oxygen minimum could be observed at Kiln Reach, where low oxygen had been reported
by anglers during the summer.

### 3.3 Laboratory analysis

Samples for chemical analysis were collected in clean polyethylene bottles rinsed three times
with river water, and samples for E. coli in sterile bottles containing sodium thiosulphate.
All bottles were kept in a cool box at below 8 degrees Celsius and delivered to the laboratory
within six hours of collection. Nitrate and ammonia were measured as nitrogen by ion
chromatography and colorimetry respectively; total phosphorus by acid persulphate digestion
followed by colorimetry; and E. coli by membrane filtration, reported as colony-forming units
(cfu) per 100 millilitres.

### 3.4 Quality assurance

At two sites on each round a second, independent sample was taken a few minutes after the first,
and the laboratory analysed both without knowing which pairs belonged together. The relative
percentage difference between duplicates was below 10 percent for all chemical determinands and
below 30 percent for E. coli, which is within the usual range for bacterial counts. A bottle of
laboratory-grade water was carried through the whole procedure as a field blank on each round;
both blanks were below the limit of detection for every determinand.

## 4 Results

### 4.1 Field measurements

Table 2 lists the field measurements for both rounds. Water temperature fell by about two
degrees between the rounds, as expected for the time of year, and the rain raised turbidity
everywhere, most of all in the farmland reaches where run-off from freshly drilled fields
carried fine soil into the river.

Table 2: Field measurements, 8 October (dry) and 15 October (after rain)

| Site | Date | Time | Temp (°C) | pH | DO (mg/l) | DO (% sat) | Conductivity (µS/cm) | Turbidity (NTU) |
|---|---|---|---|---|---|---|---|---|
| T1 | 8 Oct | 10:45 | 11.8 | 7.6 | 10.1 | 94 | 312 | 3.1 |
| T2 | 8 Oct | 10:05 | 11.9 | 7.7 | 9.8 | 91 | 348 | 4.0 |
| T3 | 8 Oct | 09:30 | 12.0 | 7.6 | 9.6 | 89 | 401 | 4.4 |
| T4 | 8 Oct | 08:50 | 12.2 | 7.5 | 9.2 | 86 | 415 | 5.2 |
| T5 | 8 Oct | 08:05 | 12.9 | 7.3 | 7.4 | 70 | 538 | 6.8 |
| T6 | 8 Oct | 07:25 | 12.7 | 7.3 | 6.6 | 62 | 546 | 7.5 |
| T7 | 8 Oct | 06:10 | 12.4 | 7.2 | 5.1 | 48 | 571 | 8.9 |
| T8 | 8 Oct | 11:40 | 12.6 | 7.5 | 7.8 | 73 | 2,850 | 9.6 |
| T1 | 15 Oct | 09:15 | 10.1 | 7.4 | 10.6 | 94 | 268 | 21.0 |
| T2 | 15 Oct | 09:50 | 10.2 | 7.4 | 10.4 | 93 | 301 | 38.5 |
| T3 | 15 Oct | 10:20 | 10.3 | 7.3 | 10.2 | 91 | 344 | 44.2 |
| T4 | 15 Oct | 11:00 | 10.5 | 7.3 | 9.9 | 89 | 352 | 36.8 |
| T5 | 15 Oct | 11:35 | 10.9 | 7.2 | 9.0 | 81 | 398 | 35.1 |
| T6 | 15 Oct | 12:05 | 10.8 | 7.1 | 8.2 | 74 | 421 | 52.6 |
| T7 | 15 Oct | 12:50 | 10.7 | 7.2 | 8.8 | 79 | 433 | 41.3 |
| T8 | 15 Oct | 13:40 | 10.9 | 7.4 | 9.1 | 82 | 1,920 | 39.7 |

The most important field result is the dissolved oxygen profile of the dry-weather round. Oxygen
saturation was above 85 percent at the four upstream sites, then fell to 70 percent below the
treatment works and to 48 percent at Kiln Reach at 06:10. Early morning is when oxygen is lowest,
because plants and algae consume oxygen through the night and only produce it in daylight; a
return visit to Kiln Reach at 14:30 the same day measured 8.3 mg/l, or 79 percent saturation.
The daily swing of more than three milligrams per litre points to dense growth of algae and
water plants, which in turn points to an excess of nutrients. After the rain, the higher flow
and cooler water raised oxygen at every site, and the early-morning minimum was not sampled.

Conductivity rises steadily downstream as the river collects drainage and effluent, then jumps at
Saltcote Weir, where seawater reaches the sampling point on spring tides. The high value at T8
on 8 October was measured two hours after high water and reflects this tidal influence rather
than pollution.

### 4.2 Nutrients

Table 3 gives the laboratory results. Nitrate is reported as nitrogen (NO3-N), ammonia as
nitrogen (NH4-N), and total phosphorus (TP) as phosphorus.

Table 3: Laboratory results for nutrients and E. coli

| Site | Date | NO3-N (mg/l) | NH4-N (mg/l) | TP (mg/l) | E. coli (cfu/100 ml) |
|---|---|---|---|---|---|
| T1 | 8 Oct | 2.1 | 0.03 | 0.05 | 180 |
| T2 | 8 Oct | 3.4 | 0.04 | 0.07 | 240 |
| T3 | 8 Oct | 6.8 | 0.05 | 0.08 | 310 |
| T4 | 8 Oct | 6.2 | 0.09 | 0.09 | 620 |
| T5 | 8 Oct | 7.1 | 0.38 | 0.42 | 1,100 |
| T6 | 8 Oct | 6.9 | 0.31 | 0.39 | 1,350 |
| T7 | 8 Oct | 6.5 | 0.22 | 0.33 | 900 |
| T8 | 8 Oct | 5.8 | 0.15 | 0.27 | 640 |
| T1 | 15 Oct | 2.6 | 0.05 | 0.11 | 1,900 |
| T2 | 15 Oct | 4.9 | 0.07 | 0.19 | 3,200 |
| T3 | 15 Oct | 8.3 | 0.08 | 0.24 | 4,100 |
| T4 | 15 Oct | 7.6 | 0.14 | 0.22 | 5,800 |
| T5 | 15 Oct | 7.4 | 0.29 | 0.36 | 6,400 |
| T6 | 15 Oct | 7.0 | 0.85 | 0.51 | 18,500 |
| T7 | 15 Oct | 6.7 | 0.52 | 0.44 | 12,200 |
| T8 | 15 Oct | 6.1 | 0.33 | 0.35 | 7,300 |

Nitrate roughly tripled between Harrow Bridge and the sites below Fenton Drain, and rose further
after the rain. The drain itself was not sampled, but the jump between T2 and T3 can only come
from it, since no other inflow joins the river on that stretch. Concentrations of this size are
typical of rivers draining arable land in autumn, when fertiliser left in the soil after harvest
is washed out by the first heavy rains.

Total phosphorus is the clearest signal in the survey. In dry weather it was between 0.05 and
0.09 mg/l at the four sites above the treatment works and 0.42 mg/l just below it, a five-fold
increase over a distance of 1.6 kilometres. Ammonia showed the same pattern on a smaller scale.
Phosphorus is the nutrient that most often limits algal growth in rivers, and a concentration of
0.42 mg/l is several times the standard of 0.10 mg/l that applies to this reach for good
ecological status. The phosphorus load from the works therefore offers the most likely
explanation for the algal growth and oxygen swings observed at Kiln Reach.

### 4.3 Bacteria

In dry weather, E. coli counts ranged from 180 cfu per 100 ml at Harrow Bridge to 1,350 below
the Brook Street overflow, a level typical of a river receiving treated effluent. After the
rain, counts rose at every site, which is to be expected as rain washes animal droppings from
fields and streets. The rise was far steeper at T6, immediately below the overflow, where the
count reached 18,500 cfu per 100 ml, nearly three times the value at T5 just 1.7 kilometres
upstream. The water company's spill record confirms that the Brook Street overflow discharged
for 6 hours and 20 minutes during the night of 14 to 15 October. Ammonia at T6 was also at its
highest of the survey on that morning, as is characteristic of untreated sewage.

The lower Tansey is not a designated bathing water, but it is used for canoeing, angling and
summer paddling at Millford Park and at Kiln Reach. For comparison, the threshold for sufficient
quality in designated inland bathing waters corresponds to roughly 900 cfu per 100 ml, assessed
over a whole season rather than on a single day. Single samples cannot establish a compliance
status, but counts above 10,000 after rain give a clear signal that contact with the water below
the overflow carries a risk of illness for a day or two after storms.

## 5 Discussion

Taken together, the two rounds show three separate pressures acting on the lower river. The
farmland reach adds nitrate and, after rain, sediment; the treatment works adds phosphorus and
ammonia continuously; and the storm overflow adds bacteria and ammonia in pulses after heavy
rain. Because the pressures act on different stretches and at different times, they call for
different responses, and measures aimed at one will do little for the others.

The dissolved oxygen result deserves particular attention. A minimum of 48 percent saturation is
not in itself a fish kill, but it is low enough to stress fish and invertebrates, and it was
measured in October, when water temperatures are already falling. On a warm, still night in late
July, with lower flows and higher water temperatures, the minimum at Kiln Reach is likely to be
lower still. The anglers' reports of fish gasping at the surface in August 2024 fit this picture.
A continuous oxygen logger installed at Kiln Reach through next summer would show how low the
oxygen falls and for how many hours, which two spot measurements cannot.

Sediment also deserves a mention. The turbidity readings after rain, above 35 NTU throughout the
lower river, show how much soil leaves the fields in the autumn. Fine sediment settling on the
gravel beds smothers the eggs of trout and salmon, which spawn in the upper tributaries from
November onwards. Although sediment control is outside the scope of this survey, it is the issue
most often raised by farmers and anglers alike, and it would make a natural subject for a joint
project.

## 6 Recommendations

1. Share these results with the water company and the environmental regulator, and ask that the
   Brook Street overflow be prioritised in the company's storm overflow improvement programme.
   Until then, put up signs at Millford Park and Kiln Reach advising against water contact for 48
   hours after heavy rain.
2. Ask the regulator to review the phosphorus limit of the Millford treatment works' discharge
   permit at its next revision, in the light of the concentrations measured at T5 to T7.
3. Install a continuous dissolved oxygen and temperature logger at Kiln Reach from May to
   September 2025, and publish its readings each month.
4. Sample Fenton Drain itself in the spring survey, together with two of its field drains, to
   find out whether the nitrate comes from a few fields or from the whole sub-catchment.
5. Repeat the full eight-site survey in April 2025 in both dry and wet weather, using the same
   sites, methods and laboratory so that the results can be compared directly.

## 7 Limitations

Two sampling rounds are a snapshot, not a record. River chemistry changes with flow, season and
time of day, and a single wet-weather round cannot capture the full range of conditions during
storm events; spills from the overflow in particular vary greatly in volume and strength. Sites
T5 and T6 are only 1.7 kilometres apart, and at low flow the effluent plume from the treatment
works may not be fully mixed across the channel at T5, so the phosphorus figures there may
slightly overstate or understate the true average. The dry-weather round visited sites in a
different order from the wet-weather round to catch the oxygen minimum, which means that the
two rounds are not strictly comparable for temperature and oxygen. None of these limitations
changes the main conclusions, but they should be kept in mind when the numbers are quoted.

## Acknowledgements

The Trust thanks the volunteers of the Millford Angling Association, who carried sample bottles,
kept the field records and knew where the steps down to the water were slippery; the landowners
at Fenton Mill and Kiln Reach for permission to cross their land; and the laboratory staff, who
stayed late on 15 October to start the bacterial cultures within the holding time.
"""


def render_pdf(blocks: list[Block], path: Path, title: str, running_footer: str) -> None:
    """A4 report: title 20 pt, headings 15/12.5 pt bold, body 10.5 pt, ruled tables."""
    from fpdf import FPDF
    from fpdf.fonts import FontFace

    class Report(FPDF):
        def footer(self) -> None:
            self.set_y(-13)
            self.set_font("Helvetica", "", 8)
            self.set_text_color(110)
            self.cell(0, 5, f"{running_footer}    page {self.page_no()}", align="C")
            self.set_text_color(0)

    pdf = Report(format="A4")
    pdf.set_creation_date(FIXED_DATETIME.replace(tzinfo=dt.UTC))
    pdf.set_title(title)
    pdf.set_author(AUTHOR)
    pdf.set_creator(AUTHOR)
    pdf.set_margins(22, 20, 22)
    pdf.set_auto_page_break(True, margin=20)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    heading_sizes = {1: 20.0, 2: 15.0, 3: 12.5}

    def body_font() -> None:
        pdf.set_font("Helvetica", "", 10.5)

    for block in blocks:
        if block.kind == "heading":
            if block.level > 1:
                if pdf.get_y() > pdf.h - 55:
                    pdf.add_page()
                pdf.ln(4 if block.level == 2 else 2)
            pdf.set_font("Helvetica", "B", heading_sizes[block.level])
            pdf.multi_cell(width, heading_sizes[block.level] * 0.5, block.text)
            pdf.ln(3 if block.level == 1 else 1.5)
        elif block.kind == "paragraph":
            body_font()
            pdf.multi_cell(width, 5.4, plain(block.text))
            pdf.ln(2.5)
        elif block.kind in ("bullets", "numbers"):
            body_font()
            for number, item in enumerate(block.items, start=1):
                marker = "-" if block.kind == "bullets" else f"{number}."
                pdf.set_x(pdf.l_margin)
                pdf.cell(7, 5.4, marker)
                pdf.multi_cell(width - 7, 5.4, plain(item))
                pdf.ln(1)
            pdf.ln(1.5)
        elif block.kind == "caption":
            if pdf.get_y() > pdf.h - 60:
                pdf.add_page()
            pdf.set_font("Helvetica", "I", 9.5)
            pdf.multi_cell(width, 5, block.text)
            pdf.ln(1)
        elif block.kind == "table":
            pdf.set_font("Helvetica", "", 8.5)
            longest = [max(len(row[c]) for row in block.rows) for c in range(len(block.rows[0]))]
            weights = [min(max(n, 5), 34) for n in longest]
            with pdf.table(
                col_widths=weights,
                line_height=4.4,
                text_align="LEFT",
                borders_layout="ALL",
                headings_style=FontFace(emphasis="BOLD", fill_color=(228, 232, 236)),
            ) as table:
                for row in block.rows:
                    table_row = table.row()
                    for value in row:
                        table_row.cell(plain(value))
            pdf.ln(4)
        else:
            raise ValueError(f"unsupported block kind for PDF: {block.kind}")
    pdf.output(str(path))


# --------------------------------------------------------------------------------------------
# 5. Meeting transcript (plain text, no headings; one speaker turn per line)
# --------------------------------------------------------------------------------------------

MEETING_TRANSCRIPT = """
Priya: Okay, it's two minutes past, so let's start, and whoever is still making tea can catch up.
This is the weekly operations meeting for the twelfth of November. I'm recording it for Tom's
assistant managers, who can't be here because Eastgate is short this morning. We've got a long
list today, so I'd like to get through the holiday orders first while Marcus is still here,
because he has to leave at eleven for the oven engineer.

Marcus: Thanks. Yes, the engineer is coming at half eleven to look at deck oven two again. It's
still losing heat on the bottom deck, about fifteen degrees over an hour, which doesn't sound
like much but it's enough that the bottom of the rye comes out pale.

Priya: We'll come back to the oven if there's time. Holiday orders. Where are we?

Marcus: So, as of last night we have three hundred and twelve pre-orders for the Christmas
stollen, which is about forty more than this time last year. Panettone is slower, a hundred and
eighty, but it always picks up in the last two weeks. The big change is the corporate orders.
We've got the Halden & Pike law firm wanting four hundred mince pies delivered on the nineteenth,
and the hospital trust wants breakfast pastries for their staff event on the twentieth, which is
about six hundred pieces.

Elena: Can I ask, have those corporate orders been priced with the new flour cost? Because the
quote I saw for the hospital was built on the old sheet.

Marcus: It was the old sheet, yes. Dev sent it before we updated the template.

Elena: Then we're losing money on it. Not a lot, but the butter and flour increases together
add about eleven percent to the cost of a croissant since September. On six hundred pieces
that's a noticeable amount. I'd like us to honour the quote, because it's been accepted, but
from today every quote goes out on the new sheet, and I'll check anything over two hundred
pounds before it's sent.

Priya: Agreed. Marcus, can the bakery actually produce six hundred pastries on the twentieth on
top of the shop orders? That's the Friday before Christmas week.

Marcus: It's tight. The lamination is the bottleneck, not the ovens. If we laminate the dough on
the eighteenth and nineteenth and freeze it, we can bake on the morning of the twentieth. I'll
need two extra people on the early shift both days. I've asked Jonas and Felicity, they're both
happy to do it.

Tom: Can I jump in? If you take Felicity on the nineteenth, Eastgate loses its only person who
can run the bake-off oven in the morning. We'd need someone else trained by then.

Marcus: Fair. I can send someone to train one of your team next week, an hour before opening.
It's not difficult, it's mostly the timings and knowing what a finished pain au chocolat looks
like.

Priya: Let's do that. Tom, pick someone and send Marcus the name today. Okay, mince pies for the
law firm: any issues?

Marcus: No, we made five hundred in a day last year without trouble. The only thing is delivery.
The van is the other problem.

Priya: Right, the van. Go on.

Marcus: The small van failed its inspection last Thursday. Brake discs and a corroded brake pipe.
The garage says they can do it, but not until the twenty-seventh because they're waiting for
parts. So for two weeks we only have the big van, and the big van does the hospital run every
morning.

Elena: What did they quote for the repair?

Marcus: Eight hundred and forty, plus the retest.

Elena: Then we should just do it, but I'd also like to look at renting a van for December
anyway. Last year we paid a courier almost two thousand pounds over four weeks because we didn't
have enough delivery capacity, and a rental for the month was about nine hundred. I'll get two
quotes this week.

Priya: Good. And in the meantime, the law firm delivery is on the nineteenth, so if the small van
is not back, the big van can do it in the afternoon after the hospital run. Let's write that down
as the plan. Moving on: Dev, you had the point-of-sale rollout.

Dev: Yes. Short version, the new tills are working at Eastgate and the market hall kiosk, and
Riverside switches over next Monday. The card payments are faster, the end-of-day report now
lands in the shared drive automatically, and the stock counts update when something is sold, so
in theory we know what's left in each shop at any time.

Tom: In theory.

Dev: In theory. Tom's right that the stock counts at Eastgate drifted in the first week, because
the staff were ringing up the seeded sourdough as plain sourdough. They're the same price, so
nobody noticed at the till, but it meant the system thought we'd sold out of plain and had
eleven seeded loaves left, when it was the other way round. I've changed the buttons so they
have photos on them now, and that seems to have fixed it.

Hannah: Can we get the sales data out of it by product and by hour? Because for the loyalty
campaign I really want to know when people buy the pastries. My guess is that the afternoon
trade is mostly coffee, and if that's true, a coffee-and-pastry offer after two o'clock would
move the pastries that are otherwise thrown away.

Dev: Yes, there's an export. It gives you every line item with a timestamp. I can set up a weekly
file for you if you tell me which shops.

Hannah: All of them, please.

Priya: Before we get into the campaign, Dev, is there anything the managers need to do before
Riverside switches over?

Dev: Two things. First, everyone who uses the till needs their own login, so I need a list of
staff names by Thursday. Second, the old till has to be cashed up and closed on Sunday night, not
Monday morning, or the weekend takings end up split across two systems and Elena will be very
unhappy with me.

Elena: I would be.

Tom: I'll pass that to Riverside. They're doing a stock count on Sunday anyway.

Priya: Great. Hannah, go on with the campaign, since you started.

Hannah: Okay. So the idea is a loyalty card on the phone, a stamp for every coffee, and the
tenth coffee free. That part is standard and the till system supports it, Dev has checked. What
I'd like to add is an afternoon offer, a coffee and a pastry for a fixed price after two o'clock,
using whatever pastries are left. It does two things: it brings people in during the quiet
hours, and it cuts the waste. Right now Eastgate throws away, or rather gives to the food bank,
something like thirty pastries on a slow day.

Elena: I like it, but let's be careful with the price. If the offer is too cheap, people who
would have bought a pastry at full price at eleven will just wait until two.

Hannah: That's fair. I was thinking three pounds fifty for a regular coffee and any pastry,
against about five pounds twenty separately.

Elena: That's a big discount. What about three ninety-five? And only on the pastries in the
afternoon basket, not on anything fresh from the oven.

Marcus: From the bakery side, I'd rather we baked a bit less than rely on selling leftovers
cheaply. We've been baking to Saturday levels on Tuesdays, which is mad. If Dev's data shows
the real hourly pattern, I can bake to it.

Priya: I think those go together. Bake closer to demand, and use the offer for what's left.
Hannah, can you run it as a four-week trial at Eastgate only, starting after the Riverside
switchover, and bring numbers back? Waste before and after, and afternoon takings.

Hannah: Yes. Four weeks from the eighteenth, so it ends just before Christmas. That's not a
normal month, though.

Priya: True. Then let's say we look at it in January and decide whether to extend it to the
other shops. Tom, is that all right with Eastgate?

Tom: It's fine, the team will like it. People already ask at four o'clock whether there's
anything cheap.

Priya: Okay. Next, and this is the one I don't enjoy: the environmental health visit at
Riverside. Tom, you were there.

Tom: Yes. So the inspector came on the fifth, unannounced, which is normal. Overall it went
well, she was happy with cleanliness, pest control and the allergen information on the menu
boards. The one problem was the fridge temperature records. We're supposed to check and write
down the temperature of each fridge twice a day. For the display fridge there were gaps on six
days in October, mostly on weekends.

Priya: And the rating?

Tom: We kept the five, but with a written recommendation, and she'll check the records on her
next visit. She was clear that if the gaps continue, the rating will drop.

Marcus: Is the fridge actually holding temperature, or is it just the paperwork?

Tom: The fridge is fine. It was three degrees when she checked it. It's purely that the weekend
staff don't know it's their job.

Dev: Could we use the wireless thermometers? There are ones that log every fifteen minutes and
send an alert to a phone if the temperature goes above five degrees. They're about forty pounds
each. It would replace the paper log completely.

Elena: How many fridges do we have across all shops?

Tom: Eleven, counting the bakery's walk-in chiller and the two freezers.

Elena: So roughly five hundred pounds with the subscription for the first year. That's much
cheaper than losing the rating.

Priya: Let's do it. Dev, can you order them this week? And Tom, until they're installed, put the
fridge check on the weekend opening checklist, with a name against it each day, so it's someone's
job and not everyone's.

Tom: Will do. While we're on food safety, there was also the allergen complaint.

Priya: Yes, go ahead.

Tom: A customer at the market hall kiosk bought a walnut and honey loaf for her son, who has a
tree nut allergy. She had asked whether the loaf had nuts in it, and the person on the till said
no. She read the label at home before giving it to him, thankfully, so nobody was hurt, but she
was rightly furious. She emailed on Saturday.

Hannah: I replied on Sunday, apologised, refunded the loaf and offered to talk to her. She was
gracious about it in the end, but she said she'd like to know what we're changing.

Priya: What happened at the kiosk?

Tom: It was a new member of staff on her second day. She thought the customer was asking about
the plain sourdough, which was next to it. It's a genuine mistake, but it's exactly the mistake
we can't make. The allergen folder was there and she didn't look at it.

Marcus: The loaves look quite similar from the front, to be fair. We could put the walnut loaf in
a separate basket with its own card.

Priya: Let's do three things. Every new starter does the allergen training before their first
shift, not in their first week; the answer to any allergen question is always to check the
folder or the label together with the customer, never from memory; and Marcus, yes, separate the
nut products on display. Hannah, can you write back to the customer telling her that?

Hannah: Yes, I'll draft it today and send it to you first.

Priya: Thank you. Right, we're at twenty to eleven. Marcus, the new sourdough before you go?

Marcus: Quickly. We've been testing a spelt and rye sourdough with toasted sunflower seeds, and
the tasting panel on Friday liked it more than the seeded one we have now. It keeps better too,
about four days instead of two, because of the rye. The cost per loaf is about thirty pence
higher, mostly the spelt flour, which has gone up as much as everything else. My suggestion
would be to replace the current seeded loaf rather than add another product, so the range stays
the same size.

Elena: What price?

Marcus: Four sixty, against four twenty for the current one.

Elena: That keeps the margin. I'm fine with it if the sales data backs it up. Maybe test it in
one shop first?

Hannah: If you launch it in January I can do a bit around it. January is when people come back
looking for something healthier, and spelt and rye sounds healthier whether or not it is.

Marcus: It is, a little. More fibre. Anyway, I'd rather launch it in January too, because I
don't want to change a recipe in December with everything else going on.

Priya: January then, at Riverside first since they'll have the new tills by then and we'll see
the numbers properly. Okay, go and meet your engineer, Marcus. Let us know what he says about the
oven.

Marcus: Will do. If it's the heating element again, I'll push for a replacement rather than a
third repair. Bye, everyone.

Priya: Bye. Elena, the flour and butter prices. You mentioned eleven percent.

Elena: Yes. The short version is that our main flour supplier put prices up by nine percent from
the first of November, and butter is up about fourteen percent since the summer. Across all the
products, our ingredient costs are up roughly seven percent compared with last year. We haven't
changed our prices since March. If we do nothing, the gross margin goes from about sixty-two
percent to fifty-eight, which is the difference between a small profit and breaking even in the
first quarter, when sales are always lowest.

Tom: Customers are already grumbling about the price of coffee. I'm worried about putting bread
prices up just before Christmas.

Elena: I'm not suggesting before Christmas. I'm suggesting January, and not across the board.
Some products have a lot of room and some have none. The croissant is the worst, it's gone from
a thirty percent food cost to thirty-six. The plain sourdough is still fine.

Hannah: Can we talk to the customers about it? People accept a price rise better when they're
told why. Even a small card at the till saying we've held our prices since March and our butter
costs have gone up fourteen percent.

Priya: I like that, as long as it's honest and not whiny. Elena, can you bring a proposal to the
first meeting in December, product by product, with the new price and the margin? And we'll
decide then, so the shops have time to change the labels.

Elena: Yes. I'll also look again at the second flour supplier. Their quote was a bit higher last
year, but they've offered a fixed price for twelve months, which would at least mean no more
surprises.

Priya: Good, include that. Tom, staffing for December, and then any other business.

Tom: So the rota for December is mostly done. The difficult days are the twenty-third and
twenty-fourth, when all three shops will be at their busiest and about half the team has asked
for one of those days off. I've said that everyone works one of the two, and they can choose
which, and that's gone down reasonably well. I have two Christmas temps starting on the
second, both students, and the agency is finding me one more for Riverside.

Priya: And the bakery?

Tom: Marcus has his rota done already. He said the bakery will be closed on the twenty-fifth and
twenty-sixth, and all the shops close at two on the twenty-fourth.

Dev: Sorry, small point on that. If the shops close at two, the online ordering needs to stop
taking collection orders after, say, noon on the twenty-third, or people will book collection
slots we can't fill. Can I set that up?

Priya: Yes, please. Twelve noon on the twenty-third for collection on the twenty-fourth. Put the
closing times on the website too, Hannah, and on the door of each shop.

Hannah: Already drafted. There's also the photo shoot for the spring menu, which I'd like to do
in the bakery on a Monday in January, when it's quiet. I'll need Marcus for about three hours to
make the products look their best.

Priya: Ask him directly, but I'm sure that's fine. Anything else? Tom?

Tom: One thing from Eastgate. The landlord wrote to say they're resurfacing the car park behind
the shop in the second week of January. Deliveries will need to come to the front for three
days, and we'll need to tell the hospital run driver.

Priya: Noted. Elena?

Elena: Just a reminder that the VAT return is due at the end of the month, so please get me any
receipts for things bought on personal cards by Friday. That includes the flowers for the
market hall opening, Hannah.

Hannah: Oh, yes, sorry. I'll find it.

Priya: Dev?

Dev: Nothing else from me. I'll send round the list of what I need for the Riverside switchover
straight after the meeting.

Priya: Okay. Let me sum up the actions so they're on the recording. Elena: two van rental quotes
this week, check every quote over two hundred pounds, a product-by-product price proposal for
the first December meeting, and the fixed-price offer from the second flour supplier. Dev: staff
logins for Riverside by Thursday, order the wireless fridge thermometers this week, the weekly
sales export for Hannah, and the online ordering cut-off for Christmas Eve. Tom: a name to Marcus
today for bake-off training at Eastgate, the fridge check on the weekend checklist with a name
against it, the Riverside cash-up on Sunday night, and tell the hospital driver about the car
park in January. Hannah: the four-week afternoon offer at Eastgate from the eighteenth, the
reply to the customer about the walnut loaf, which comes to me first, and the Christmas opening
hours on the website and doors. Marcus isn't here, but his are the separate display for nut
products, the new spelt and rye loaf at Riverside in January, and the oven. Did I miss anything?

Tom: The allergen training for new starters before their first shift. Who owns that?

Priya: Me. I'll rewrite the induction so it's the first thing anyone does. Good catch. That's
it, then. Thanks, everyone, see you next Tuesday.
"""


# --------------------------------------------------------------------------------------------
# 6. Small extras: spreadsheet, slide deck, CSV
# --------------------------------------------------------------------------------------------

BUDGET_MONTHS = ("January", "February", "March")
BUDGET_LINES = (
    # (category, line, January, February, March, note)
    ("Revenue", "Eastgate shop", 41200, 38900, 44600, "Afternoon offer trial results due in January"),
    ("Revenue", "Riverside shop", 35800, 33400, 38100, "New tills from 18 November"),
    ("Revenue", "Market hall kiosk", 14600, 13900, 16200, "Closed on Mondays in February"),
    ("Revenue", "Corporate and wholesale", 9800, 8700, 10400, "Hospital trust breakfast contract"),
    ("Revenue", "Online orders", 6100, 5200, 7300, "Mother's Day cakes in March"),
    ("Cost of goods", "Flour and grains", 9400, 8800, 10100, "Nine percent supplier increase from 1 November"),
    ("Cost of goods", "Butter and dairy", 11900, 11100, 12800, "Up about fourteen percent since summer"),
    ("Cost of goods", "Other ingredients", 7600, 7100, 8200, "Fruit, nuts, chocolate, seeds"),
    ("Cost of goods", "Packaging", 2300, 2100, 2500, "Compostable bags and boxes"),
    ("Staff", "Bakery team", 21400, 20300, 22100, "Includes early-shift premiums"),
    ("Staff", "Shop teams", 28700, 27600, 29900, "Three shops, including managers"),
    ("Staff", "Office and delivery", 8200, 8200, 8200, "Operations, finance, marketing, IT, drivers"),
    ("Premises", "Rent and service charges", 10900, 10900, 10900, "Eastgate car park resurfacing in January"),
    ("Premises", "Energy and water", 6800, 6300, 5900, "Deck ovens account for about half"),
    ("Operations", "Vehicles and fuel", 2400, 1900, 1900, "Small van brake repair paid in November"),
    ("Operations", "Equipment maintenance", 3100, 900, 900, "Deck oven two heating element replacement"),
    ("Operations", "Food safety", 620, 60, 60, "Wireless fridge thermometers and subscription"),
    ("Marketing", "Campaigns and photography", 1800, 900, 1500, "Spring menu photo shoot in January"),
)

PRICE_CHANGES = (
    # (product, current price, proposed price, food cost now %, food cost after %)
    ("Butter croissant", 2.60, 2.95, 36.0, 31.7),
    ("Pain au chocolat", 2.90, 3.20, 34.5, 31.3),
    ("Plain sourdough loaf", 4.20, 4.20, 22.0, 22.0),
    ("Seeded sourdough loaf", 4.20, 4.60, 27.5, 25.1),
    ("Cinnamon bun", 3.10, 3.30, 31.0, 29.1),
    ("Mince pie (single)", 1.90, 1.90, 33.0, 33.0),
    ("Regular coffee", 3.00, 3.10, 18.5, 17.9),
    ("Afternoon coffee and pastry offer", 3.95, 3.95, 41.0, 41.0),
)


def write_budget_xlsx(path: Path) -> None:
    """Two sheets, each one table with a header row; values, not formulas, so readers see numbers."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook()
    budget = workbook.active
    budget.title = "Budget Q1 2025"
    budget.append(("Category", "Line", *BUDGET_MONTHS, "Q1 total", "Note"))
    for category, line, jan, feb, mar, note in BUDGET_LINES:
        budget.append((category, line, jan, feb, mar, jan + feb + mar, note))
    revenue = [sum(row[2 + m] for row in BUDGET_LINES if row[0] == "Revenue") for m in range(3)]
    costs = [sum(row[2 + m] for row in BUDGET_LINES if row[0] != "Revenue") for m in range(3)]
    budget.append(("Total", "Revenue", *revenue, sum(revenue), ""))
    budget.append(("Total", "Costs", *costs, sum(costs), ""))
    margin = [r - c for r, c in zip(revenue, costs, strict=True)]
    budget.append(("Total", "Operating result", *margin, sum(margin), "Before tax and depreciation"))

    prices = workbook.create_sheet("Price changes")
    prices.append(("Product", "Current price (GBP)", "Proposed price (GBP)",
                   "Food cost now (%)", "Food cost after (%)"))
    for row in PRICE_CHANGES:
        prices.append(row)

    for sheet, widths in ((budget, (14, 26, 11, 11, 11, 11, 48)), (prices, (34, 18, 20, 17, 18))):
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for column, width in zip("ABCDEFG", widths, strict=False):
            sheet.column_dimensions[column].width = width
    properties = workbook.properties
    properties.creator = AUTHOR
    properties.lastModifiedBy = AUTHOR
    properties.title = "Copper Kettle Bakeries: Q1 2025 budget"
    properties.created = FIXED_DATETIME
    properties.modified = FIXED_DATETIME
    workbook.save(path)
    freeze_zip(path)


ONBOARDING_SLIDES = (
    ("Welcome to Tidewater on-call", (
        "Platform team onboarding for new on-call engineers",
        "Read alongside the Tidewater Operations Handbook, release 4.3",
    )),
    ("Your first two weeks", (
        "Week 1: shadow the primary on-call engineer and read every alert that fires",
        "Week 1: run a rolling restart on the staging cluster with a mentor",
        "Week 2: be secondary on-call; you take pages only if the primary does not answer in 10 minutes",
        "Week 2: walk through the disk-full and consumer-lag runbooks out loud",
        "After two weeks you join the primary rotation, one week in six",
    )),
    ("How Tidewater fits together", (
        "Brokers store queues as partitions; every partition has a leader and followers",
        "A write is acknowledged once min_insync_replicas replicas hold it (default 2)",
        "The coordinator quorum elects leaders; it needs a majority to make progress",
        "Consumer groups share partitions; one partition is read by one member of a group",
        "Messages that fail 5 deliveries move to the queue's .dlq dead-letter queue",
    )),
    ("Alerts that page you", ()),
    ("Golden rules of on-call", (
        "Never delete segment files by hand; lower retention and let the broker clean up",
        "Every temporary override gets a note in the incident channel and a removal ticket",
        "Do not restart brokers during a network partition",
        "Ask for help early: a second pair of eyes is cheaper than a long outage",
    )),
    ("Where to get help", (
        "Platform channel for questions during working hours",
        "Escalate to the platform lead after 30 minutes on any critical alert",
        "Runbooks live next to the alert rules in the monitoring repository",
        "Post-incident reviews every Thursday at 15:00; everyone is welcome",
    )),
)

PAGING_ALERTS = (
    ("Alert", "Fires when", "First action"),
    ("Offline partitions", "Any partition has no leader", "Check coordinator quorum health"),
    ("Under-replicated partitions", "Above 0 for 20 minutes", "Find the lagging broker; check its disk"),
    ("Produce latency p99", "Above 500 ms", "Look for a slow disk or a hot partition"),
    ("Consumer lag", "Above 30 minutes", "Check the group for rebalancing members"),
    ("Disk used", "Above 90 percent", "Temporary retention override on the largest queue"),
)


def write_onboarding_pptx(path: Path) -> None:
    """Six slides with titles and bullets; the 'Alerts that page you' slide holds a table."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    deck = Presentation()
    for number, (title, bullets) in enumerate(ONBOARDING_SLIDES):
        layout = deck.slide_layouts[0 if number == 0 else 5 if not bullets else 1]
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        if number == 0:
            slide.placeholders[1].text = "\n".join(bullets)
        elif bullets:
            frame = slide.placeholders[1].text_frame
            frame.text = bullets[0]
            for bullet in bullets[1:]:
                frame.add_paragraph().text = bullet
        else:
            rows, cols = len(PAGING_ALERTS), len(PAGING_ALERTS[0])
            shape = slide.shapes.add_table(rows, cols, Inches(0.5), Inches(1.7), Inches(9), Inches(4))
            for r, row in enumerate(PAGING_ALERTS):
                for c, value in enumerate(row):
                    cell = shape.table.cell(r, c)
                    cell.text = value
                    cell.text_frame.paragraphs[0].runs[0].font.size = Pt(14)
    properties = deck.core_properties
    properties.author = AUTHOR
    properties.last_modified_by = AUTHOR
    properties.title = "Tidewater on-call onboarding"
    properties.created = FIXED_DATETIME
    properties.modified = FIXED_DATETIME
    properties.revision = 1
    deck.save(path)
    freeze_zip(path)


SERVICE_LEVELS = (
    ("queue", "owner_team", "p99_publish_latency_ms", "availability_target", "retention_hours",
     "dlq_alert_per_minute", "escalation"),
    ("orders.created", "checkout", 50, "99.95%", 168, 5, "checkout-oncall"),
    ("orders.cancelled", "checkout", 50, "99.95%", 168, 5, "checkout-oncall"),
    ("orders.fulfilled", "fulfilment", 100, "99.9%", 168, 10, "fulfilment-oncall"),
    ("payments.authorised", "payments", 40, "99.99%", 720, 1, "payments-oncall"),
    ("payments.settled", "payments", 40, "99.99%", 720, 1, "payments-oncall"),
    ("payments.refunded", "payments", 60, "99.99%", 720, 1, "payments-oncall"),
    ("inventory.reserved", "inventory", 80, "99.9%", 72, 10, "inventory-oncall"),
    ("inventory.released", "inventory", 80, "99.9%", 72, 10, "inventory-oncall"),
    ("inventory.adjusted", "inventory", 150, "99.5%", 72, 20, "inventory-oncall"),
    ("shipping.label_requested", "logistics", 200, "99.5%", 168, 20, "logistics-oncall"),
    ("shipping.dispatched", "logistics", 200, "99.5%", 168, 20, "logistics-oncall"),
    ("notifications.email", "messaging", 500, "99.0%", 24, 50, "messaging-oncall"),
    ("notifications.sms", "messaging", 500, "99.0%", 24, 50, "messaging-oncall"),
    ("notifications.push", "messaging", 500, "99.0%", 24, 50, "messaging-oncall"),
    ("search.reindex", "search", 1000, "99.0%", 48, 100, "search-team"),
    ("analytics.page_view", "data-platform", 2000, "98.0%", 24, 500, "data-platform"),
    ("analytics.checkout_funnel", "data-platform", 2000, "98.0%", 72, 500, "data-platform"),
    ("audit.admin_actions", "security", 100, "99.99%", 8760, 1, "security-oncall"),
    ("pricing.updated", "pricing", 100, "99.9%", 168, 10, "pricing-oncall"),
    ("customer.profile_changed", "accounts", 100, "99.9%", 168, 10, "accounts-oncall"),
)


def write_service_levels_csv(path: Path) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(SERVICE_LEVELS)
    write_text(path, buffer.getvalue())


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))


def build_all(out_dir: Path) -> list[Path]:
    """Write every sample into out_dir and return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []

    path = out_dir / "insurance_policy.docx"
    render_docx(parse_blocks(INSURANCE_POLICY), path, "Harborline Mutual Homeowners Policy HM-3")
    written.append(path)

    path = out_dir / "technical_handbook.md"
    write_text(path, TECHNICAL_HANDBOOK.lstrip("\n"))
    written.append(path)

    path = out_dir / "product_manual.html"
    page = render_html(
        parse_blocks(PRODUCT_MANUAL),
        title="Aurelia X2 Dual-Boiler Espresso Machine: User Manual",
        footer="Aurelia Home Appliances. Manual AX2-UM-EN, revision 3.",
    )
    write_text(path, page)
    written.append(path)

    path = out_dir / "field_report.pdf"
    render_pdf(
        parse_blocks(FIELD_REPORT),
        path,
        title="Lower Tansey River Water-Quality Field Survey, Autumn 2024",
        running_footer="Tansey Catchment Trust - Report TCT-FS-2024-07",
    )
    written.append(path)

    path = out_dir / "meeting_transcript.txt"
    turns = [" ".join(turn.split("\n")) for turn in MEETING_TRANSCRIPT.strip().split("\n\n")]
    write_text(path, "\n\n".join(turns) + "\n")
    written.append(path)

    for name, writer in (
        ("quarterly_budget.xlsx", write_budget_xlsx),
        ("onboarding_deck.pptx", write_onboarding_pptx),
        ("service_levels.csv", write_service_levels_csv),
    ):
        path = out_dir / name
        writer(path)
        written.append(path)

    return written


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else Path(__file__).resolve().parent
    for path in build_all(out_dir):
        print(f"{path.name:28} {path.stat().st_size:>8} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

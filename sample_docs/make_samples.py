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

    return written


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else Path(__file__).resolve().parent
    for path in build_all(out_dir):
        print(f"{path.name:28} {path.stat().st_size:>8} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

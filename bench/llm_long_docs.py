"""Long documents of our own for trying LLM chunking with a real model: never tuned on.

    .venv/bin/python -m bench.llm_long_docs OUT_DIR

writes ``crane_manual.md`` (Markdown), ``lending_policy.docx`` (rendered with the samples' DOCX
renderer) and ``irrigation_guide.html``: each several thousand tokens, with headings on three
levels, lists and tables, and facts that differ from section to section (so a chunk boundary
in the wrong place shows).
"""

from __future__ import annotations

import sys
from pathlib import Path

from sample_docs.notation import parse_blocks
from sample_docs.render_office import render_docx
from sample_docs.render_pages import render_html

CRANES = [("STS-1", "ship-to-shore", 65, "Liebherr", 2011), ("STS-2", "ship-to-shore", 65,
          "Liebherr", 2013), ("RTG-4", "rubber-tyred gantry", 40, "Konecranes", 2016),
          ("RTG-7", "rubber-tyred gantry", 40, "Konecranes", 2019), ("MHC-2", "mobile harbour",
          120, "Gottwald", 2008)]
PARTS = ["hoist rope", "spreader twistlocks", "trolley wheels", "gantry brakes", "boom hinge",
         "slip rings", "anemometer", "festoon cables"]
BRANCHES = [("Central", "Market Square 1", 62_000, "Mon-Sat 9-20"), ("Riverside", "Quay Road 14",
            18_500, "Tue-Sat 10-18"), ("Hillcrest", "Beech Avenue 3", 11_200, "Mon-Fri 12-19"),
            ("Northgate", "Station Street 40", 24_300, "Mon-Sat 10-19")]
CROPS = [("apple", 28, 3.5, "drip"), ("pear", 30, 3.0, "drip"), ("cherry", 22, 2.5,
         "micro-sprinkler"), ("plum", 25, 2.8, "drip"), ("walnut", 45, 6.0, "micro-sprinkler")]


def crane_manual() -> str:
    lines = ["# Harbour Crane Maintenance Manual", "",
             "This manual sets out how the Eastport container terminal keeps its cranes safe "
             "and available. It applies to every crane on the quay and in the yard, to the "
             "maintenance crews of both shifts and to contractors working under a permit.", "",
             "## Scope and responsibilities", "",
             "The maintenance supervisor plans the work, the shift engineer releases a crane "
             "for work and back into service, and the crane operator reports defects in the "
             "logbook before the end of each shift. Contractors follow the same rules and are "
             "escorted on the quay at all times.", "",
             "## The fleet", "",
             "| Crane | Type | Safe working load (t) | Maker | Commissioned |",
             "|---|---|---|---|---|"]
    lines += [f"| {c} | {t} | {load} | {maker} | {year} |" for c, t, load, maker, year in CRANES]
    lines += ["", "Table 1: Cranes on the terminal and their rated loads.", ""]
    for crane, kind, load, maker, year in CRANES:
        age = 2025 - year
        lines += [f"### {crane}", "",
                  f"{crane} is a {kind} crane built by {maker} and commissioned in {year}. It "
                  f"lifts at most {load} tonnes under the spreader and has been in service for "
                  f"{age} years; cranes older than 12 years get the extended structural survey "
                  "every second year instead of every fifth.", "",
                  f"Known weak points of {crane}: the {PARTS[year % len(PARTS)]} wear faster "
                  f"than the maker's figures, and the {PARTS[(year + 3) % len(PARTS)]} need "
                  "cleaning after every storm with salt spray.", ""]
    lines += ["## Inspection intervals", "",
              "Every crane has daily, weekly, monthly and yearly checks. The daily check is done "
              "by the operator before the first lift; the others by the maintenance crew, who "
              "sign each item in the maintenance system.", "",
              "| Part | Daily | Weekly | Monthly | Yearly |", "|---|---|---|---|---|"]
    for n, part in enumerate(PARTS):
        lines.append(f"| {part} | {'visual' if n % 2 == 0 else '-'} | "
                     f"{'lubricate' if n % 3 == 0 else 'visual'} | measure wear | "
                     f"{'replace' if n % 4 == 0 else 'non-destructive test'} |")
    lines += ["", "Table 2: What is checked on each part, and how often.", ""]
    for part in PARTS:
        lines += [f"### {part.capitalize()}", "",
                  f"Check the {part} for cracks, corrosion and loose fixings. Measure the wear "
                  f"against the limit in the maker's sheet and record the figure; a {part} at "
                  "80 percent of its wear limit is ordered at once and replaced at the next "
                  "planned stop.", "",
                  f"- Lock out the crane and hang a personal padlock before touching the {part}.",
                  "- Use the access platform, never the boom ladder, when the wind exceeds 15 m/s.",
                  f"- Photograph the {part} before and after the work and attach the photos.",
                  ""]
    lines += ["## Wind and weather", "",
              "Cranes stop lifting when the mean wind speed at the boom tip exceeds 20 m/s or "
              "gusts exceed 25 m/s. Above 28 m/s the cranes are parked at the storm pins and the "
              "boom is raised. After a storm, every crane gets a visual check of the boom hinge, "
              "the festoon cables and the anemometer before it lifts again.", "",
              "### Lightning", "",
              "When lightning is within 10 km, operators leave the cabins by the stairway and "
              "wait in the quay shelter. Work resumes 30 minutes after the last strike within "
              "that distance.", "",
              "## Defects and breakdowns", "",
              "An operator who notices a defect stops the lift, lowers the load if it is safe "
              "to do so, and calls the shift engineer. The engineer decides whether the crane "
              "may go on working until the end of the vessel call or must stop at once.", "",
              "1. Record the defect in the logbook with the time and the container number.",
              "2. Tag the control panel with a red defect card.",
              "3. The engineer opens a work order and sets its priority (A within 4 hours, B "
              "within 48 hours, C at the next planned stop).",
              "4. The crane returns to service only after the engineer signs the release.", "",
              "## Records and audits", "",
              "Work orders, measurements and photos are kept for ten years. The harbour "
              "authority audits the records every spring; the last audit found two late weekly "
              "checks on RTG-4 and asked for a second reminder in the planning tool."]
    return "\n".join(lines) + "\n"


def lending_policy() -> str:
    lines = ["# Municipal Library Lending Policy", "",
             "The city library lends books, films, music, games and equipment to everyone who "
             "holds a library card. This policy says who may borrow what, for how long, and "
             "what happens when an item comes back late or damaged.", "",
             "## Library cards", "",
             "A card is free for residents of the city and its three neighbouring towns. Others "
             "pay 25 EUR a year. Children under 14 need a parent's signature; their cards lend "
             "children's items only until the parent allows the full collection.", "",
             "## Branches", "", "| Branch | Address | Items | Opening hours |", "|---|---|---|---|"]
    lines += [f"| {b} | {a} | {items:,} | {hours} |" for b, a, items, hours in BRANCHES]
    lines += ["", "Table 1: The four branches and their collections.", ""]
    for branch, address, items, hours in BRANCHES:
        lines += [f"### {branch} branch", "",
                  f"The {branch} branch at {address} holds {items:,} items and opens "
                  f"{hours}. Items borrowed here may be returned at any branch; the return "
                  "box outside is emptied every morning, and items found in it count as "
                  "returned on the previous opening day.", ""]
    lines += ["## Loan periods and limits", "",
              "| Item | Loan period | Renewals | Limit per card |", "|---|---|---|---|",
              "| Books | 4 weeks | 3 | 30 |", "| Films | 1 week | 1 | 5 |",
              "| Music | 2 weeks | 2 | 10 |", "| Board games | 2 weeks | 1 | 2 |",
              "| Laptops | 3 days | 0 | 1 |", "| E-readers | 3 weeks | 1 | 1 |", "",
              "Table 2: How long each kind of item may be kept.", "",
              "### Renewals", "",
              "A loan is renewed online, by phone or at the desk, unless another member has "
              "reserved the item. Each renewal starts a new loan period from the day of "
              "renewal, not from the old due date.", "",
              "### Reservations", "",
              "Members may reserve up to ten items. A reserved item waits on the pick-up shelf "
              "for seven days; an item not collected goes to the next member in line and the "
              "reservation fee of 1 EUR is not refunded.", "",
              "## Late returns and fees", "",
              "Fees are charged per item and per opening day. No fee is charged for children's "
              "items, and the fee for one item never exceeds the price of the item.", "",
              "| Item | Fee per day | Most charged |", "|---|---|---|",
              "| Books | 0.20 EUR | 6 EUR |", "| Films | 1.00 EUR | 10 EUR |",
              "| Laptops | 10.00 EUR | 150 EUR |", "",
              "Table 3: Late fees.", "",
              "A card with more than 10 EUR of unpaid fees cannot borrow until the fees are "
              "paid. After 60 days the library sends a final reminder, and after 90 days the "
              "item counts as lost.", "",
              "## Lost and damaged items", "",
              "A lost item is charged at its replacement price plus a handling fee of 5 EUR. If "
              "the item turns up within six months, the price is refunded but the handling fee "
              "is not.", "",
              "- Water damage: the item is charged in full.",
              "- Torn pages or scratched discs: the desk decides whether the item can be repaired.",
              "- Missing game pieces: charged at 2 EUR a piece, or the full price if the game "
              "can no longer be played.", "",
              "## Equipment loans", "",
              "Laptops and e-readers are lent at the Central branch only, to members over 18. "
              "They are reset after every loan; anything saved on them is deleted. A laptop "
              "returned late blocks equipment loans on that card for three months.", "",
              "## Interlibrary loans", "",
              "Items the library does not hold may be ordered from other libraries in the "
              "country for a fee of 3 EUR per item. They arrive in two to four weeks, are lent "
              "for the period the lending library sets (usually three weeks) and cannot be "
              "renewed. Rare books are read in the reading room only.", "",
              "## Members with disabilities", "",
              "Members who cannot visit a branch may ask for the home delivery service: a "
              "volunteer brings up to ten items every second week and collects the returns. "
              "Large-print books and audiobooks have a loan period of eight weeks for these "
              "members, and no late fees are charged on them.", "",
              "| Service | Who may use it | How to ask |", "|---|---|---|",
              "| Home delivery | Members who cannot visit a branch | Phone the Central desk |",
              "| Reading aloud | Members with a visual impairment | Book a session online |",
              "| Easy-read collection | Everyone | Ask at any desk |", "",
              "Table 4: Services for members with disabilities.", "",
              "## Donations", "",
              "The library accepts donated books published in the last five years, in good "
              "condition. Donations that do not fit the collection are sold at the yearly book "
              "sale in October, and the proceeds buy new children's books. The library does not "
              "accept textbooks, magazines or encyclopedias.", "",
              "## Rooms and events", "",
              "Members may book the study rooms at the Central and Northgate branches for up to "
              "three hours a day. The event hall at Central holds 80 people and is lent free of "
              "charge to non-profit groups for talks, readings and meetings; commercial events "
              "pay 40 EUR an hour.", "",
              "### Conduct in the branches", "",
              "Quiet zones are marked on every floor. Food is allowed only in the café areas, "
              "and phone calls are taken in the entrance halls. A member who damages property "
              "or threatens staff may be barred from the branches for up to a year.", "",
              "## Complaints", "",
              "A complaint goes first to the branch manager, who answers within ten working "
              "days. If the member is not satisfied, the head librarian reviews the complaint; "
              "her decision can be appealed to the city's culture committee.", "",
              "## Privacy", "",
              "The library keeps what a member borrowed for 30 days after the item is returned, "
              "then keeps only the number of loans. Members may switch on a reading history, "
              "which they can see and delete at any time. Loan records are never given to "
              "third parties unless a court orders it."]
    return "\n".join(lines) + "\n"


def irrigation_guide() -> str:
    lines = ["# Orchard Irrigation Guide", "",
             "This guide helps growers in the valley plan the irrigation of fruit and nut "
             "orchards: how much water each crop needs, how to schedule it through the season, "
             "and how to keep the system working.", "",
             "## Water needs by crop", "",
             "| Crop | Peak need (litres per tree per day) | Root depth (m) | System |",
             "|---|---|---|---|"]
    lines += [f"| {c} | {need} | {depth} | {system} |" for c, need, depth, system in CROPS]
    lines += ["", "Table 1: Peak daily water needs of mature trees in July.", ""]
    for crop, need, depth, system in CROPS:
        lines += [f"### {crop.capitalize()} trees", "",
                  f"A mature {crop} tree needs about {need} litres a day at the July peak, and "
                  f"its roots reach {depth} m. Water it with {system} lines so that the whole "
                  "root zone is wetted; a dry band between the lines stunts the roots.", "",
                  f"- Young {crop} trees (first three years) need half the water, given twice "
                  "as often.",
                  f"- Cut the water by a third for two weeks before the {crop} harvest to "
                  "improve the fruit's sugar content." if crop != "walnut" else
                  "- Keep walnut trees well watered until the hulls split.", ""]
    lines += ["## Scheduling through the season", "",
              "Start irrigating when the soil at 30 cm depth falls below 60 percent of field "
              "capacity, usually in late April. Measure with tensiometers at two depths in "
              "every block and water when the shallow one reads above 40 kPa.", "",
              "| Month | Share of peak need | Days between waterings |", "|---|---|---|",
              "| April | 30 % | 7 |", "| May | 55 % | 5 |", "| June | 85 % | 3 |",
              "| July | 100 % | 2 |", "| August | 90 % | 2 |", "| September | 50 % | 4 |", "",
              "Table 2: A typical season for drip-irrigated apples.", "",
              "### Heat waves", "",
              "Above 35 °C, add a short midday cycle of 20 minutes to cool the canopy, and "
              "never water in the evening when the leaves stay wet overnight: it invites scab "
              "and mildew.", "",
              "## Maintaining the system", "",
              "Flush the lines at the start and end of every season, clean the filters weekly "
              "in summer, and check for blocked emitters by walking each row with a measuring "
              "cup: an emitter delivering less than 80 percent of its rating is replaced.", "",
              "1. Open the end caps and run the water until it is clear.",
              "2. Clean the disc filter and check its pressure drop (at most 0.5 bar).",
              "3. Add chlorine at 10 ppm for one hour if algae grow in the lines.",
              "4. Record the flow at the pump; a fall of more than 10 percent means leaks or "
              "blockages.", "",
              "## Fertigation", "",
              "Fertilisers dissolved in the irrigation water reach the roots where they are "
              "active. Inject them in the middle third of a watering cycle, so that the lines "
              "are full before and rinsed after.", "",
              "| Nutrient | Product | Dose per hectare and week | Weeks |", "|---|---|---|---|",
              "| Nitrogen | Calcium nitrate | 6 kg | May to mid-July |",
              "| Potassium | Potassium sulphate | 8 kg | June to August |",
              "| Phosphorus | Monoammonium phosphate | 2 kg | April and May |",
              "| Magnesium | Magnesium sulphate | 3 kg | June |", "",
              "Table 3: A fertigation plan for apples on medium soil.", "",
              "Never mix calcium products with sulphates or phosphates in the same tank: they "
              "form a precipitate that blocks the emitters within hours.", "",
              "### Leaf analysis", "",
              "Take 100 leaves per block from the middle of the current season's shoots in late "
              "July and send them to the valley laboratory. Adjust next year's plan when a "
              "nutrient falls outside the laboratory's optimum range.", "",
              "## Frost protection", "",
              "Overhead sprinklers protect blossoms down to -6 °C by coating them with ice that "
              "releases heat as it freezes. Start the sprinklers when the wet-bulb temperature "
              "at blossom height reaches 1 °C and keep them running until the ice melts off in "
              "the morning sun, even if the air is above freezing.", "",
              "- A block needs 3 to 4 mm of water per hour for the whole frost night.",
              "- Stopping too early is worse than not starting: the ice then draws heat from "
              "the blossoms.",
              "- Drip lines do not protect against frost.", "",
              "### Wind machines", "",
              "Where the valley has a temperature inversion, wind machines mix warmer air from "
              "15 m height into the orchard and gain 1 to 3 °C. They do not help in a windy "
              "radiation frost or when the inversion is weak.", "",
              "## Drainage and waterlogging", "",
              "Roots die within days in waterlogged soil. Blocks on heavy clay need drains at "
              "80 cm depth every 12 metres, and no irrigation for three days after more than "
              "25 mm of rain. Yellowing leaves on the lowest rows in June usually mean wet feet, "
              "not a lack of nitrogen.", "",
              "## Water rights and records", "",
              "Each farm may draw the volume written in its licence from the valley canal; the "
              "canal board reads the meters on the first day of every month. Keep a log of "
              "every watering, its duration and the meter readings, for at least five years."]
    return "\n".join(lines) + "\n"


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out/llm_docs")
    out.mkdir(parents=True, exist_ok=True)
    (out / "crane_manual.md").write_text(crane_manual(), encoding="utf-8")
    render_docx(parse_blocks(lending_policy()), out / "lending_policy.docx",
                "Municipal Library Lending Policy")
    html = render_html(parse_blocks(irrigation_guide()), "Orchard Irrigation Guide",
                       "Valley growers' association")
    (out / "irrigation_guide.html").write_text(html, encoding="utf-8")
    for path in sorted(out.iterdir()):
        print(path, path.stat().st_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())

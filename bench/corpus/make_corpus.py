"""Write the retrieval benchmark corpus: three long documents and ``questions.csv``.

Usage, from the repository root: ``.venv/bin/python -m bench.corpus.make_corpus [--check]``
(``--check`` writes nothing and exits 1 when a file on disk differs from what would be written).

The documents are written for this project: a water utility's operations and customer policy
manual (prose), a depot asset register (small tables with notes) and a year of planning
committee transcripts. Every paragraph comes from a hand-written template whose phrasings and
facts vary per district, depot or application (a seeded random generator, so the output never
changes); each template carries the questions a user would ask of it, worded in their own terms,
and the question's reference is the whole paragraph, table or speaker turn that answers it, as
in Chroma's protocol (a few hundred characters). Offsets are found in the converted text that
every chunk and metric uses, and checked.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.documents import convert

OUT = Path(__file__).resolve().parent
QUESTIONS = "questions.csv"
SEED = 15
PER_DOCUMENT = 90  # questions kept per document, at most one per paragraph


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


def money(rng: random.Random, lo: int, hi: int, step: int = 1) -> str:
    return f"£{rng.randrange(lo, hi, step):,}"


# ------------------------------------------------------------------ the water utility manual

DISTRICTS = [
    ("Ashcombe", "Holloway Reservoir", "Kestrel Lane"), ("Brindle Vale", "Tarnside boreholes", "Mercer Street"),
    ("Carrow Hill", "Greywether intake", "Orchard Rise"), ("Dunmere", "Lockspur Reservoir", "Chandlers Row"),
    ("Elsworth", "Fairbrook springs", "Wheelwright Close"), ("Fennick", "the River Oust intake", "Tanner's Yard"),
    ("Glaston", "Blackmoor Reservoir", "Saddler Way"), ("Harrowgate", "Coldharbour boreholes", "Pilgrim Road"),
    ("Ingleby", "Swallowdale intake", "Rope Walk"), ("Juniper Cross", "Mossbank Reservoir", "Ferry Lane"),
    ("Kilnsey", "Highfold springs", "Cooper's Hill"), ("Larkhamstead", "Wendle Reservoir", "Glebe Terrace"),
    ("Marlowe End", "Stonecross boreholes", "Weavers Walk"), ("Netherby", "the River Cale intake", "Nursery Gardens"),
    ("Oakhurst", "Ravensmere Reservoir", "Linden Parade"), ("Pellham", "Sorrel Fen boreholes", "Brewery Lane"),
    ("Quarrington", "Lyde Reservoir", "Smithy Court"), ("Redmarsh", "Heronsgate intake", "Tollgate Road"),
    ("Saltcombe", "Upper Brack springs", "Harbour Steps"), ("Thornbury Green", "Cressbrook Reservoir", "Vicarage Fields"),
    ("Underhill", "Pikestone boreholes", "Mill Race"), ("Westmoor", "Hazelford intake", "Bellfounders Lane"),
    ("Abbotsleigh", "Whitewater Reservoir", "Candle Street"), ("Barrowden", "Skelling boreholes", "Lantern Yard"),
    ("Coldwell", "the River Brede intake", "Cordwainers Row"), ("Drayford", "Marten Reservoir", "Sandpit Lane"),
    ("Eastry Marsh", "Saltings boreholes", "Sluice Road"), ("Foxcote", "Bramblecombe springs", "Hatters Lane"),
    ("Greyfriars", "Abbeymead Reservoir", "Cloister Walk"), ("Hinton Parva", "Downside boreholes", "Shepherds Way"),
]
CONTRACTORS = ["Hadley Civils", "Norcott Pipeline Services", "Brockwell & Sons", "Tamar Utilities",
               "Vance Groundworks", "Keel Engineering", "Ostler Drainage", "Pennant Infrastructure"]
OFFICERS = ["Ruth Okafor", "Declan Marsh", "Imogen Pryce", "Samir Haddad", "Lena Voss",
            "Callum Reid", "Bethan Lloyd", "Tomasz Nowak", "Grace Adeyemi", "Hugh Carver"]


def _water_sections(rng: random.Random, district: str, source: str, street: str):
    """(heading, paragraph, questions) for the sections every district chapter has."""
    hours = rng.choice([6, 8, 12, 24])
    plant = rng.choice(["slow sand filtration", "rapid gravity filters and ultraviolet disinfection",
                        "membrane filtration", "dissolved air flotation followed by chlorination",
                        "granular activated carbon and ozone"])
    megalitres = rng.randrange(8, 95)
    hardness = rng.randrange(40, 320)
    yield ("Source and treatment", pick(rng,
        f"{district} {{draws most of its water|takes the bulk of its supply|is supplied mainly}} "
        f"from {source}, {{which|and this source}} {{provides|yields}} around {megalitres} "
        f"megalitres a day in an average summer. The water is treated by {plant} before it "
        f"enters the network, and samples are taken at the works every {hours} hours. "
        f"{{Customers often ask about hardness:|Hardness is the most common question:}} "
        f"{district} water has about {hardness} milligrams of calcium carbonate per litre, "
        f"which {'counts as soft' if hardness < 100 else 'is moderately hard' if hardness < 200 else 'is hard'}"
        f"{{, so| and}} {'most dishwashers need no salt' if hardness < 100 else 'a water softener is a matter of preference' if hardness < 200 else 'kettles will scale and softeners are common'}."),
        [f"Where does {district}'s drinking water come from and how is it cleaned?",
         f"Is tap water in {district} hard or soft?",
         f"How often is the water tested at the works that serves {district}?"])

    target = rng.randrange(18, 35)
    night = target - rng.randrange(4, 9)
    valves = rng.randrange(6, 40)
    yield ("Pressure management", pick(rng,
        f"{{The network in {district} is|Pipes across {district} are}} held at a target pressure of "
        f"{target} metres head during the day, {{reduced|dropping}} to {night} metres between "
        f"midnight and 5 a.m. {{to cut leakage|because lower night pressure means fewer bursts}}. "
        f"The district has {valves} pressure-reducing valves, each checked twice a year. "
        f"{{If your pressure seems low,|Before reporting low pressure,}} check that your internal "
        f"stop tap is fully open; if the flow from the kitchen cold tap fills a one-litre jug in "
        f"more than {rng.randrange(6, 12)} seconds, {{call us|report it}} and we will log a pressure test "
        f"within {rng.choice([3, 5, 7, 10])} working days."),
        [f"Why does water pressure in {district} drop at night?",
         f"How do I know if my water pressure in {district} is too low to report?"])

    response = rng.choice([2, 4, 6])
    fix = rng.choice([24, 48, 72])
    contractor = rng.choice(CONTRACTORS)
    yield ("Leaks and bursts", pick(rng,
        f"{{Leaks|Bursts and leaks}} in {district} are repaired by {contractor} under a term "
        f"contract. A burst that floods a road or property is attended within {response} hours "
        f"of the first report, day or night; a visible leak on the footway is {{repaired|fixed}} "
        f"within {fix} hours unless a traffic permit is needed. Leaks on the customer's side of "
        f"the boundary box are the owner's responsibility, but {{we offer|the authority offers}} "
        f"one free repair of a supply pipe leak per property, up to {rng.randrange(3, 12)} metres "
        f"of pipe{{, after which the owner pays|; longer runs are charged}} at cost."),
        [f"Who fixes burst mains in {district}, and how quickly do they come out?",
         f"Will the authority pay to fix a leak on my own pipe in {district}?"])

    standing = rng.randrange(11, 24)
    volume = rng.randrange(140, 260)
    sewer = rng.randrange(180, 330)
    yield ("Charges", pick(rng,
        f"Metered customers in {district} pay a standing charge of {standing}p a day plus "
        f"£{volume / 100:.2f} per cubic metre of water used; where we also take the waste water, "
        f"sewerage is charged at £{sewer / 100:.2f} per cubic metre, {{counted as|assumed to be}} "
        f"{rng.choice([90, 92, 95])} per cent of the water used. Unmetered homes pay on the "
        f"rateable value of the property. {{Bills are sent|We bill}} every "
        f"{rng.choice(['three months', 'six months'])}, and customers can spread payments over "
        f"{rng.choice(['ten', 'twelve'])} monthly instalments by direct debit."),
        [f"What is the daily fixed fee for a water meter in {district}?",
         f"How is sewerage charged for metered homes in {district}?",
         f"Can I pay my {district} water bill monthly?"])

    cap = rng.randrange(180, 420)
    yield ("Help with bills", pick(rng,
        f"Households in {district} on a means-tested benefit can join the {{WaterSure|Assist}} "
        f"scheme, which caps the annual bill at £{cap}. {{Applications|Requests}} are assessed "
        f"within {rng.choice([10, 15, 20])} working days, and the cap is backdated to the start "
        f"of the current billing period. Customers with {{three|four}} or more children, or with "
        f"a medical condition that needs extra water, qualify whatever their income. "
        f"{{The scheme is reviewed every two years|Membership is renewed every two years}}, and "
        f"{{arrears|debts}} built up before joining can be {{cleared|written off}} through a "
        f"matched payment plan: for every £1 the customer pays, the authority clears £"
        f"{rng.choice([1, 2])}."),
        [f"Is there a cap on water bills for low-income families in {district}?",
         f"What happens to old water debts if I join the support scheme in {district}?"])

    fee = rng.randrange(900, 2400, 10)
    weeks = rng.randrange(4, 13)
    yield ("New connections", pick(rng,
        f"A new household connection in {district} costs £{fee:,} for a standard 25 mm supply "
        f"of up to {rng.randrange(5, 20)} metres, including the meter and the boundary box. "
        f"{{From a paid quote|Once the quote is paid}}, the connection is made within {weeks} "
        f"weeks, or {weeks + rng.randrange(3, 7)} weeks where a road closure is needed. "
        f"{{Developers|Builders}} connecting more than {rng.choice([5, 10, 20])} homes must "
        f"apply for an adoption agreement instead, and pay an infrastructure charge of "
        f"£{rng.randrange(300, 700)} per plot towards {{network reinforcement|larger mains}}."),
        [f"How much does it cost to connect a new house to the water supply in {district}?",
         f"What do developers building many homes in {district} have to pay?"])

    year = rng.randrange(2026, 2034)
    homes = rng.randrange(120, 2600)
    yield ("Lead pipes", pick(rng,
        f"About {homes:,} homes in {district}, mostly built before 1970 around {street}, still "
        f"have lead {{service pipes|supply pipes}}. The authority adds orthophosphate at the "
        f"works to {{limit|reduce}} the lead that dissolves, and aims to replace every public "
        f"section of lead pipe by {year}. {{If owners replace their own section|If you replace "
        f"the private section}} at the same time, we {{contribute|pay}} up to "
        f"£{rng.randrange(400, 1200, 50)} and test the water free of charge {{afterwards|once "
        f"the work is done}}."),
        [f"When will the lead pipes in {district} be replaced?",
         f"Which streets in {district} still have lead supply pipes, and what help is there "
         f"to replace them?"])

    level = rng.randrange(35, 70)
    yield ("Drought restrictions", pick(rng,
        f"When {source} falls below {level} per cent of capacity between April and September, "
        f"a {{temporary use ban|hosepipe ban}} may be declared for {district} with seven days' "
        f"notice. {{During a ban|While it lasts}}, hoses may not be used to water gardens, wash "
        f"cars or fill pools; watering cans, grey water and drip irrigation for registered "
        f"{{allotments|market gardens}} remain allowed. Blue Badge holders are exempt. The "
        f"last ban in {district} lasted {rng.randrange(3, 19)} weeks in "
        f"{rng.randrange(2012, 2025)}."),
        [f"At what reservoir level does {district} get a hosepipe ban?",
         f"Can I still water my allotment during a hosepipe ban in {district}?"])

    months = rng.sample(["January", "March", "May", "July", "September", "November"], 2)
    yield ("Mains flushing and discoloured water", pick(rng,
        f"Mains in {district} are flushed {{every spring and autumn|twice a year}}, in "
        f"{months[0]} and {months[1]}, usually between 10 p.m. and 4 a.m. {{Brown or yellow "
        f"water|Discoloured water}} after flushing or a burst is caused by iron sediment and is "
        f"not harmful, but it can stain washing. {{Run|Let}} the cold kitchen tap for "
        f"{rng.choice([10, 15, 20])} minutes; if it has not cleared, {{call us|phone the "
        f"authority}} and a crew will flush the nearest hydrant. Laundry stained by our water is "
        f"cleaned or replaced up to £{rng.choice([150, 200, 250, 300])} per household on "
        f"{{production of the receipt|sight of a receipt}}."),
        [f"My tap water in {district} has turned brown. Is it safe and what should I do?",
         f"Will the authority pay for clothes ruined by dirty water in {district}?",
         f"When are the water mains in {district} cleaned out?"])

    share = rng.randrange(48, 93)
    yield ("Water meters", pick(rng,
        f"{share} per cent of homes in {district} now have a meter. Any household can ask for "
        f"one free of charge; it is fitted within {rng.choice([60, 90])} days, usually in the "
        f"footway, and {{readings are taken|meters are read}} remotely every "
        f"{rng.choice(['hour', 'fifteen minutes', 'day'])}. {{A customer who switches|Anyone "
        f"switching}} to a meter may switch back within {rng.choice([12, 24])} months if the "
        f"bills turn out higher. {{Where a meter cannot be fitted|If fitting is impossible}}, "
        f"the customer is offered an assessed charge of £{rng.randrange(290, 520)} a year for "
        f"a single occupier."),
        [f"Can I change my mind after getting a water meter in {district}?",
         f"What do I pay in {district} if a meter can't be installed at my home?"])

    properties = rng.randrange(3, 60)
    yield ("Sewer flooding", pick(rng,
        f"{properties} properties in {district} are on the register of homes at risk of sewer "
        f"flooding, {{most of them|many}} near {street}. {{Each of them|Every one of them}} is "
        f"offered a non-return valve and flood-resistant airbricks free of charge. When sewage "
        f"enters a home, a clean-up crew attends within {rng.choice([4, 6, 12])} hours, and the "
        f"authority refunds the sewerage part of the annual bill, up to "
        f"£{rng.choice([1000, 1500, 2000])}, for each internal flooding incident."),
        [f"What help is there for homes in {district} that get flooded by sewage?",
         f"How much of my bill is refunded if sewage floods my house in {district}?"])

    notice = rng.choice([2, 3, 5])
    yield ("Planned interruptions", pick(rng,
        f"Planned work that {{turns off|cuts}} the supply in {district} is announced at least "
        f"{notice} days in advance by letter and text message, and may not last longer than "
        f"{rng.choice([4, 6, 8])} hours. {{Customers on the priority services register|"
        f"Registered priority customers}}, such as those on home dialysis, are phoned the day "
        f"before and get bottled water delivered {{to the door|to their home}}. If an unplanned "
        f"outage lasts more than {rng.choice([12, 18])} hours, a bottled water station opens at "
        f"{rng.choice(['the leisure centre', 'the library car park', 'the community hall', 'the supermarket car park'])} "
        f"on {street}."),
        [f"How much warning do I get before the water is turned off for works in {district}?",
         f"Where can I get bottled water in {district} during a long outage?"])

    officer = rng.choice(OFFICERS)
    yield ("Complaints", pick(rng,
        f"Complaints about service in {district} are handled by {officer}, the district "
        f"customer manager. {{A written complaint|Any complaint in writing}} is acknowledged "
        f"within {rng.choice([2, 3, 5])} working days and answered in full within "
        f"{rng.choice([10, 15, 20])}. If the answer does not settle it, the customer can ask for "
        f"a review by the head of customer service, and after that go to the Consumer Council "
        f"for Water. {{Missed appointments are paid|We pay £{rng.choice([20, 30, 40])} for a "
        f"missed appointment}} automatically, and an interruption of more than "
        f"{rng.choice([12, 16, 24])} hours earns a £{rng.choice([30, 50, 60])} credit."),
        [f"Who should I complain to about water service in {district}, and how long will a "
         f"reply take?",
         f"Do I get compensation if my water is cut off for a long time in {district}?"])


def water_manual(rng: random.Random) -> Doc:
    doc = Doc("water_operations_manual.md")
    doc.add("# Riverbend Regional Water Authority: Operations and Customer Policy Manual")
    doc.add("This manual sets out how the authority runs each of its districts: where the water "
            "comes from, how it is treated, what customers pay, what help is available, and the "
            "service they can expect when something goes wrong. Each chapter covers one district "
            "and follows the same order, so staff answering a call can find the local rule "
            "quickly. Where a district departs from the general policy, the district chapter "
            "wins.")
    doc.add("## General policy")
    doc.add("Every district is inspected by the drinking water regulator once a year, and the "
            "results of all compliance samples are published on the authority's website within "
            "a month. Customers can ask for a free water quality test at their own tap once every "
            "twelve months; further tests cost £45 unless the result shows a failure, in which "
            "case the fee is refunded.",
            ["How often can I get my tap water tested for free?"])
    doc.add("Field staff always carry photo identification and a password that customers can "
            "set up in advance by phone. Anyone claiming to work for the authority who cannot "
            "give the password should be refused entry and reported to the police on 101. The "
            "authority never asks for payment at the door.",
            ["How can I check that someone at my door really works for the water company?"])
    for district, source, street in DISTRICTS:
        doc.add(f"## {district}")
        for heading, paragraph, asks in _water_sections(rng, district, source, street):
            doc.add(f"### {heading}")
            doc.add(paragraph, list(asks))
    return doc


# ------------------------------------------------------------------ the depot asset register

DEPOTS = [district for district, _, _ in DISTRICTS]
VEHICLES = [("Ford Transit Custom", "van"), ("Isuzu D-Max", "pickup"), ("Mercedes Sprinter", "van"),
            ("JCB 3CX", "backhoe loader"), ("Volvo FL", "tipper lorry"), ("Nissan e-NV200", "electric van"),
            ("Toyota Hilux", "pickup"), ("Iveco Daily", "jetting unit"), ("Kubota KX057", "mini excavator"),
            ("DAF LF", "tanker"), ("Renault Master", "welfare van"), ("Vauxhall Vivaro-e", "electric van")]
COST_LINES = ["Fuel and charging", "Tyres", "Scheduled servicing", "Accident repairs",
              "Hire vehicles", "Tracking and telematics"]


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


def asset_register(rng: random.Random) -> Doc:
    doc = Doc("depot_asset_register.md")
    doc.add("# Depot Asset Register and Fleet Review, 2025")
    doc.add("This register lists the vehicles and plant held at each operational depot, what "
            "each depot spent running them over the year, and the fleet manager's notes on what "
            "should change. Mileage is as read at the annual inspection in November; costs are "
            "for the financial year ending in March and exclude VAT.")
    for depot in DEPOTS:
        doc.add(f"## {depot} depot")
        manager = rng.choice(OFFICERS)
        staff = rng.randrange(9, 60)
        hours = rng.choice(["06:30 to 17:00", "07:00 to 18:00", "06:00 to 16:30", "07:30 to 19:00"])
        yard = rng.choice(["a gravel yard shared with the highways team",
                           "a fenced yard with twelve bays", "a covered shed and a wash bay",
                           "a leased unit on the trading estate", "the old pumping station grounds"])
        doc.add(pick(rng,
            f"The {depot} depot is run by {manager} and {{is home to|houses}} {staff} field staff. "
            f"It is open from {hours} on weekdays, with a standby crew on call overnight and at "
            f"weekends. Vehicles are kept in {yard}. {{Keys are signed out|Vehicle keys are issued}} "
            f"from the key cabinet by the supervisor on shift, and every driver completes a "
            f"walk-round check before leaving the yard."),
            [f"Who runs the {depot} depot and what are its opening hours?",
             f"Where are vehicles parked at the {depot} depot?"])
        count = rng.randrange(4, 7)
        rows = []
        for vehicle, kind in rng.sample(VEHICLES, count):
            year = rng.randrange(2014, 2025)
            miles = rng.randrange(3, 24) * (2025 - year + 1) * 1000 + rng.randrange(0, 999)
            status = rng.choice(["In service", "In service", "In service", "Off road: gearbox",
                                 "Due for disposal", "Awaiting MOT", "Spare"])
            rows.append([_plate(rng), f"{vehicle} ({kind})", str(year), f"{miles:,}", status])
        table = _table(["Registration", "Vehicle", "Year", "Mileage", "Status"], rows)
        oldest = min(rows, key=lambda r: int(r[2]))
        doc.add(f"Vehicles and plant at {depot}:\n\n" + table, [f"What vehicles are kept at {depot} and which of them are off the road?",
                        f"How old is the oldest vehicle in the {depot} fleet and how many miles "
                        f"has it done?"], kind="table")
        budget = [rng.randrange(4, 90) * 1000 for _ in COST_LINES]
        spent = [int(b * rng.uniform(0.7, 1.45)) // 10 * 10 for b in budget]
        cost_rows = [[line, f"£{b:,}", f"£{s:,}", f"{100 * (s - b) / b:+.0f}%"]
                     for line, b, s in zip(COST_LINES, budget, spent, strict=True)]
        cost_rows.append(["Total", f"£{sum(budget):,}", f"£{sum(spent):,}",
                          f"{100 * (sum(spent) - sum(budget)) / sum(budget):+.0f}%"])
        worst = max(range(len(COST_LINES)), key=lambda i: spent[i] - budget[i])
        doc.add(f"Running costs at {depot}, budget against spend:\n\n"
                + _table(["Cost line", "Budget", "Spent", "Variance"], cost_rows),
                [f"Did the {depot} depot stay within its fleet budget last year?",
                 f"Which running cost went furthest over budget at {depot}?"], kind="table")
        reason = {
            "Fuel and charging": "longer standby call-outs and a winter of frozen mains",
            "Tyres": "two vans running on the quarry haul road",
            "Scheduled servicing": "a backlog of services moved from the previous year",
            "Accident repairs": "three low-speed collisions in the yard",
            "Hire vehicles": "hiring a tanker while the depot's own was off the road",
            "Tracking and telematics": "replacing the old trackers before the network switch-off",
        }[COST_LINES[worst]]
        replace_year = rng.randrange(2026, 2030)
        doc.add(pick(rng,
            f"{{Fleet manager's note|Note from the fleet manager}}: the largest overspend at "
            f"{depot} was on {COST_LINES[worst].lower()}, {{mainly because of|driven by}} {reason}. "
            f"The {oldest[1]} ({oldest[0]}) {{should be replaced|is due for replacement}} in "
            f"{replace_year}; {{the proposal is|we propose}} to replace it with "
            f"{rng.choice(['an electric van', 'a hybrid pickup', 'a shared pool vehicle', 'a hired unit on a three-year lease', 'nothing, as the work can be covered by the neighbouring depot'])}. "
            f"{{Charging points|Two 22 kW chargers}} "
            f"{rng.choice(['were fitted in the yard this spring', 'were fitted in the yard last autumn', 'are planned for the yard next year', 'will be fitted once the supply upgrade is done'])}."),
            [f"Why did {depot} overspend on its vehicles, and what will replace its oldest one?",
             f"What is planned for electric charging at the {depot} depot?"])
        jobs = []
        for _ in range(rng.randrange(4, 7)):
            plate, vehicle = rng.choice(rows)[:2]
            work, cost = rng.choice([
                ("Clutch and flywheel replaced", (900, 2400)), ("Four tyres", (380, 1100)),
                ("Annual service and MOT", (220, 640)), ("Hydraulic hose burst, replaced", (300, 1500)),
                ("Windscreen replaced", (250, 700)), ("Gearbox rebuilt", (1800, 4200)),
                ("Rear door hinge and panel after yard collision", (600, 2100)),
                ("Battery and charging fault", (150, 900)), ("Tracker unit replaced", (120, 380)),
                ("Brake discs and pads", (280, 820))])
            day = f"{rng.randrange(1, 29)} {rng.choice(['Apr', 'May', 'Jun', 'Aug', 'Oct', 'Nov', 'Jan', 'Feb'])}"
            jobs.append([day, plate, work, f"£{rng.randrange(*cost):,}", f"{rng.randrange(1, 15)}"])
        doc.add(f"Work orders at {depot}, largest repairs of the year:\n\n"
                + _table(["Date", "Registration", "Work", "Cost", "Days off road"], jobs),
                [f"What were the biggest repairs on {depot} vehicles this year and what did "
                 f"they cost?",
                 f"Which {depot} vehicle spent the longest off the road for repairs?"],
                kind="table")
        incidents = rng.randrange(0, 6)
        doc.add(pick(rng,
            f"Safety: {incidents} {{reportable incidents|incidents}} involving {depot} vehicles "
            f"were recorded during the year, {rng.choice(['none of them', 'one of them', 'two of them'])} "
            f"causing injury. {{Reversing cameras|Rear cameras and sensors}} are now fitted to "
            f"every vehicle over 3.5 tonnes, and drivers of the "
            f"{rng.choice(['tipper', 'tanker', 'jetting unit', 'excavator trailer'])} must take a "
            f"refresher course every {rng.choice([12, 18, 24, 36])} months. Telematics scores at "
            f"{depot} averaged {rng.randrange(62, 97)} out of 100, "
            f"{rng.choice(['the best in the region', 'below the target of 85', 'above the target of 80', 'up nine points on last year'])}."),
            [f"How many vehicle incidents did {depot} have and how do its drivers score?",
             f"How often do {depot} drivers need refresher training?"])
    return doc


# ------------------------------------------------------------ the planning committee transcripts

STREET_NAMES = ["Quarry", "Mill", "Station", "Church", "Foundry", "Abbey", "Pound", "Cattle Market",
                "Rectory", "Ropemaker", "Canal", "Longacre", "Sheepwash", "Priory", "Brickfield",
                "Tannery", "Orchard", "Ferryman", "Hop Garden", "Windmill", "Coachworks", "Beacon",
                "Chapel", "Forge", "Malthouse", "Weir", "Salters", "Gasworks", "Nightingale",
                "Copper Beech", "Packhorse", "Kingfisher", "Ox", "Dovecote", "Lime Kiln", "Bishops"]
STREET_KINDS = ["Road", "Lane", "Street", "Close", "Walk", "Row", "Gardens", "Hill"]
COUNCILLORS = ["Councillor Hartley", "Councillor Amin", "Councillor Doyle", "Councillor Whitfield",
               "Councillor Osei", "Councillor Lindqvist"]
KINDS = {  # what is applied for, and the objections it draws
    "housing": ("the erection of {n} homes", ["parking", "flooding", "traffic", "trees"]),
    "extension": ("a two-storey rear extension", ["overlooking", "heritage", "trees"]),
    "change": ("the change of use of a former {old} to {new}", ["parking", "noise", "traffic"]),
    "mast": ("a {h}-metre telecommunications mast", ["heritage", "trees"]),
    "shop": ("a new shopfront and illuminated signage", ["heritage", "noise"]),
    "school": ("a {n}-place extension to the primary school", ["traffic", "parking", "flooding"]),
}
CONSULTEE = {"parking": "the highways authority", "traffic": "the highways authority",
             "flooding": "the lead flood authority", "trees": "the tree officer",
             "noise": "environmental health", "heritage": "the conservation officer",
             "overlooking": "the case officer"}
SEEN = {"parking": "cars were parked on both pavements", "traffic": "I could not see how two cars pass",
        "flooding": "the ditch was already full", "trees": "the oaks are clearly the best thing on the street",
        "noise": "the premises next door were closed and it was still noisy",
        "heritage": "the listed house is the first thing you see from the bridge",
        "overlooking": "you can see straight into three gardens from the first floor next door"}
COMPLAINT = {"parking": "we could not get an ambulance to the door in March",
             "traffic": "the lane was blocked twice by delivery lorries",
             "flooding": "our cellars flooded", "trees": "two of the oaks lost branches onto the path",
             "noise": "we counted delivery lorries at six in the morning",
             "heritage": "the last extension on this street was refused for exactly this reason",
             "overlooking": "we already draw the curtains in summer"}


def _application(rng: random.Random, number: int, street: str, what_kind: str):
    """The speaker turns about one planning application: (turn text, questions) pairs."""
    template, issues = KINDS[what_kind]
    n = rng.randrange(6, 140) if what_kind == "housing" else rng.randrange(30, 210)
    old = rng.choice(["bank", "public house", "chapel", "garage", "warehouse", "police station"])
    new = rng.choice(["six flats", "a gym", "a children's nursery", "a restaurant",
                      "offices", "a community café"])
    what = template.format(n=n, old=old, new=new, h=rng.randrange(15, 30))
    address = f"{rng.randrange(2, 90)} {street}"
    ref = f"{rng.choice([24, 25])}/{rng.randrange(100, 2999):04d}/{rng.choice(['FUL', 'HOU', 'OUT', 'COU'])}"
    letters = rng.randrange(2, 160)
    support = rng.randrange(0, 40)
    issue = rng.choice(issues)
    concern = {
        "parking": f"the {rng.randrange(4, 40)} parking spaces proposed",
        "flooding": "surface water running off the site into the brook",
        "overlooking": "windows looking straight into the gardens behind",
        "heritage": "the effect on the listed building next door",
        "traffic": f"{rng.randrange(40, 400)} extra car trips a day on a narrow lane",
        "trees": f"the loss of {rng.randrange(2, 14)} mature oaks on the boundary",
        "noise": "late-night noise from customers, extraction fans and deliveries",
    }[issue]
    officer = rng.choice(OFFICERS)
    recommendation = rng.choice(["approval", "approval", "refusal",
                                 "approval subject to a legal agreement"])
    turns = [(f"Chair: Item {number}, {what} at {address}, reference {ref}. "
              + pick(rng, f"{officer}, {{would you introduce it|over to you}}?"), [])]
    affordable = rng.randrange(20, 41)
    detail = {
        "housing": f"The scheme is {n} homes, {affordable} per cent of them affordable, in "
                   f"{rng.choice(['two', 'three', 'four'])}-storey blocks",
        "extension": f"The extension projects {rng.randrange(3, 7)} metres from the rear wall "
                     f"and is {rng.randrange(5, 8)} metres high at the ridge",
        "change": f"The {old} has been empty for {rng.randrange(2, 12)} years and the "
                  f"conversion keeps the street frontage",
        "mast": "The mast replaces an older one on the same verge and carries equipment for "
                "three operators",
        "shop": "The shopfront replaces an aluminium frontage from the 1980s with painted timber",
        "school": f"The extension adds {n} places and {rng.randrange(4, 9)} classrooms on the "
                  f"existing playing field",
    }[what_kind]
    because = (f"with conditions on {issue}" if recommendation != "refusal"
               else f"because the harm from {issue} outweighs the benefits")
    turns.append((pick(rng,
        f"{officer}: Thank you, Chair. {detail}. We received {letters} letters of objection and "
        f"{support} in support. The main concern {{raised|from residents}} is {issue}, "
        f"{{in particular|specifically}} {concern}. {{Having weighed that|On balance}}, the "
        f"recommendation is {recommendation}, {because}."),
        [f"What did the planning officer recommend for {address}, and why?",
         f"How many people objected to {what} on {street}?"]))
    objector = rng.choice(["Mrs Pennington", "Mr Akhtar", "Ms Delaney", "Mr Fairweather",
                           "Dr Sato", "Mrs Quayle", "Mr Bellamy", "Ms Odunsi"])
    ask = rng.choice(["defer it for a site visit", "refuse it",
                      "at least add a condition limiting the hours of work"])
    turns.append((pick(rng,
        f"{objector}: I've lived on {street} for {rng.randrange(3, 41)} years, "
        f"{{next door to the site|opposite the site|two doors down}}, and I'm speaking for the "
        f"residents' association. {{Our worry|What worries us}} is {concern}. {{Last winter|In "
        f"February}} {COMPLAINT[issue]}, and nothing in this application deals with that. "
        f"We'd ask the committee to {ask}."),
        [f"What did the resident who spoke against the {street} plans want the committee "
         f"to do?"]))
    agent = rng.choice(["Ms Carrick", "Mr Oduya", "Mr Stenhouse", "Ms Vartan", "Mrs Ibbotson"])
    offer = {
        "parking": f"an extra {rng.randrange(2, 9)} spaces and two car club bays",
        "flooding": f"an attenuation tank holding {rng.randrange(40, 400)} cubic metres",
        "overlooking": "obscure glazing on every rear window above the ground floor",
        "heritage": "a lower roofline and handmade brick to match the listed house",
        "traffic": f"a £{rng.randrange(20, 150)},000 contribution to traffic calming",
        "trees": f"replanting {rng.randrange(10, 40)} semi-mature trees along the boundary",
        "noise": f"no deliveries before {rng.choice(['7', '8'])} a.m. and acoustic fencing",
    }[issue]
    extra = (f"The affordable housing is {affordable} per cent, above the policy minimum."
             if what_kind == "housing" else
             "The design was revised twice with the council's officers.")
    turns.append((pick(rng,
        f"{agent}: I'm the agent for the applicant at {address}. {{We've listened|We have taken "
        f"the concerns seriously}}, and since the first submission we have {{offered|agreed "
        f"to}} {offer}. {extra} {{We'd accept|The applicant would accept}} a condition "
        f"requiring the work to start within {rng.choice(['two', 'three'])} years."),
        [f"What has the applicant promised to do about the {issue} worries on {street}?"]))
    councillor = rng.choice(COUNCILLORS)
    turns.append((pick(rng,
        f"{councillor}: {{A question for the officer|Can I ask the officer}}: has "
        f"{CONSULTEE[issue]} actually signed off on {{this|the revised scheme}}? Because I "
        f"walked {street} on {rng.choice(['Saturday', 'Tuesday morning', 'Sunday afternoon'])} "
        f"and {SEEN[issue]}."),
        []))
    answer = rng.choice(["no objection subject to conditions", "a holding objection until the "
                         "revised drawings are checked", "no objection, and the offer goes further "
                         "than they asked"])
    turns.append((f"{officer}: {CONSULTEE[issue].capitalize()} "
                  f"has given {answer}. "
                  f"The conditions are in the update sheet circulated this afternoon.", []))
    votes_for = rng.randrange(3, 10)
    votes_against = rng.randrange(0, 7)
    carried = votes_for > votes_against
    turns.append((pick(rng,
        f"Chair: {{Then let's vote|We'll move to the vote}} on {address}, on the recommendation "
        f"of {recommendation}. Those in favour? {votes_for}. Against? {votes_against}. "
        f"{'Abstentions? One. ' if rng.random() < 0.4 else ''}"
        f"{'The recommendation is carried' if carried else 'The recommendation falls'}"
        f"{'' if carried else ', and officers will bring back reasons for the opposite decision next month'}. "
        f"{{Thank you all.|Thank you, everyone who spoke.}}"),
        [f"Was the {street} application approved by the committee, and what was the vote?"]))
    return turns


def transcripts(rng: random.Random) -> Doc:
    doc = Doc("planning_committee_transcripts.txt")
    doc.add("Borough of Riverbend. Planning Committee. Transcripts of the public meetings, "
            "January to December 2025. Transcribed from the webcast; speakers are named as the "
            "chair introduced them.")
    streets = [f"{name} {kind}" for name in STREET_NAMES
               for kind in rng.sample(STREET_KINDS, 3)]
    rng.shuffle(streets)
    months = ["January", "February", "March", "April", "May", "June", "July", "September",
              "October", "November", "December"]
    for m, month in enumerate(months):
        day = rng.randrange(3, 27)
        doc.add(f"MEETING OF {day} {month.upper()} 2025")
        doc.add(f"Chair: Good evening and welcome to the {month} meeting of the planning "
                f"committee. {rng.choice(['Apologies from Councillor Doyle.', 'We have a full committee tonight.', 'Apologies from Councillor Osei, who is unwell.'])} "
                f"Speakers have three minutes each, and I'll stop you at three.")
        for item in range(1, rng.randrange(7, 11) + 1):
            street = streets.pop()
            for turn, asks in _application(rng, item, street, rng.choice(list(KINDS))):
                doc.add(turn, asks)
        doc.add(f"Chair: That concludes the {month} agenda. The next meeting is in "
                f"{months[(m + 1) % len(months)]}. Good night.")
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

"""The Double Crossing data files: reading and validating a board file, and the packaged boards.

A board file is JSON (see `board.json`). Every rule value is written `{"v": value, "src": key}`,
where `key` names an entry of the file's `sources` (a sourced value) or a research-notes proposal
`D1`..`D20` (a proposed value). `load_board` checks everything and raises `DataError` naming the
path of the first problem. Files are read once, at import, from the package (`packaged_boards`).
The typed form (`Board`, `Car`, `Crew`, `Kind`, ...) lives in `components` and is re-exported here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

from engines.crossing.components import (
    CARS,
    CREWS,
    Board,
    Car,
    Contract,
    Crew,
    Kind,
    Provenance,
    Space,
)
from engines.errors import DataError

__all__ = [
    "BOARDS",
    "CARS",
    "CREWS",
    "DEFAULT_BOARD",
    "PROPOSAL",
    "Board",
    "Car",
    "Contract",
    "Crew",
    "Kind",
    "Provenance",
    "Space",
    "load_board",
    "packaged_boards",
    "provenance_lines",
]

PROPOSAL = re.compile(r"^D([1-9]|1[0-9]|20)$")
"""The research-notes keys of proposed (unsourced) defaults."""
MAX_SEATS = 6


class _Reader:
    """Walks the raw JSON, collecting provenance and failing with the path of the problem."""

    def __init__(self, name: str, sources: Mapping[str, Any]) -> None:
        self.name = name
        self.sources = sources
        self.provenance: list[Provenance] = []

    def fail(self, path: str, problem: str) -> DataError:
        return DataError(f"board file {self.name!r}: {path}: {problem}")

    def node(self, raw: Any, path: str, kind: type) -> Any:
        if not isinstance(raw, kind) or (kind is int and isinstance(raw, bool)):
            raise self.fail(path, f"expected {kind.__name__}, got {json.dumps(raw)}")
        return raw

    def field(self, raw: Mapping[str, Any], key: str, path: str, kind: type) -> Any:
        if key not in raw:
            raise self.fail(path, f"missing key {key!r}")
        return self.node(raw[key], f"{path}.{key}", kind)

    def source(self, raw: Mapping[str, Any], path: str, entry: Any = None) -> str:
        """The provenance mark of `raw`; an entry (space, company, contract) is recorded."""
        src = self.field(raw, "src", path, str)
        if src not in self.sources and not PROPOSAL.match(src):
            raise self.fail(
                f"{path}.src",
                f"{src!r} is neither a key of 'sources' ({sorted(self.sources)}) nor a "
                "proposal key D1..D20",
            )
        if entry is not None:
            self.provenance.append(Provenance(path, entry, src))
        return str(src)

    def marked(self, raw: Mapping[str, Any], key: str, path: str, kind: type) -> Any:
        """A `{"v": value, "src": key}` leaf."""
        where = f"{path}.{key}"
        leaf = self.field(raw, key, path, dict)
        extra = sorted(set(leaf) - {"v", "src"})
        if extra:
            raise self.fail(
                where, f"unexpected key(s) {extra}; a value is {{'v': ..., 'src': ...}}"
            )
        value = self.field(leaf, "v", where, kind)
        self.provenance.append(Provenance(where, value, self.source(leaf, where)))
        return value

    def amount(self, raw: Mapping[str, Any], key: str, path: str, step: int, low: int = 0) -> int:
        value: int = self.marked(raw, key, path, int)
        if value < low or value % step:
            raise self.fail(f"{path}.{key}", f"{value} must be >= {low} and a multiple of {step}")
        return value

    def count(self, raw: Mapping[str, Any], key: str, path: str, low: int, high: int) -> int:
        value: int = self.marked(raw, key, path, int)
        if not low <= value <= high:
            raise self.fail(f"{path}.{key}", f"{value} is outside [{low}, {high}]")
        return value


def load_board(text: str, name: str) -> Board:
    """Parse and validate a board file; any problem raises `DataError` naming where it is."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise DataError(f"board file {name!r} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise DataError(f"board file {name!r}: the top level must be an object")
    if raw.get("format") != 1:
        raise DataError(f"board file {name!r}: 'format' must be 1, got {raw.get('format')!r}")
    sources = raw.get("sources")
    if not isinstance(sources, dict) or not all(isinstance(v, str) for v in sources.values()):
        raise DataError(f"board file {name!r}: 'sources' must map keys to descriptions")
    r = _Reader(name, sources)
    title = r.field(raw, "title", "$", str)
    sourced = r.field(raw, "sourced", "$", bool)
    money = r.field(raw, "money", "$", dict)
    step = r.count(money, "step", "$.money", 1, 10**6)
    r.count(money, "unit", "$.money", 1, 10**9)
    limits = r.field(raw, "limits", "$", dict)
    cars = _cars(r, r.field(raw, "cars", "$", dict), step)
    crew = r.field(raw, "crew", "$", dict)
    crew_count = tuple(r.count(crew, c.value, "$.crew", 0, 1000) for c in CREWS)
    total = r.count(crew, "total", "$.crew", 0, 1000)
    hand = r.count(limits, "hand", "$.limits", 0, 20)
    if sum(crew_count) != total:
        raise r.fail("$.crew", f"the counts add up to {sum(crew_count)}, not the total {total}")
    if total < hand * MAX_SEATS:
        raise r.fail("$.crew", f"{total} cards cannot deal {hand} to each of {MAX_SEATS} seats")
    extra = sorted(set(crew) - {"total", *(c.value for c in CREWS)})
    if extra:
        raise r.fail("$.crew", f"unknown crew card type(s) {extra}")
    rack = r.count(limits, "rack", "$.limits", 2, 100)
    companies = _companies(r, r.field(raw, "companies", "$", list))
    contracts = _contracts(r, r.field(raw, "contracts", "$", list), companies, step, rack)
    spaces, start, central = _spaces(r, r.field(raw, "spaces", "$", list), companies)
    prev = tuple(
        tuple(s.index for s in spaces if i in s.next and s.index != start)
        for i in range(len(spaces))
    )
    for space in spaces:
        if space.index != start and not prev[space.index]:
            raise r.fail(f"$.spaces[{space.index}]", f"{space.name} cannot be left backwards")
    return Board(
        name=name,
        title=title,
        sourced=sourced,
        spaces=spaces,
        prev=prev,
        start=start,
        central=central,
        companies=companies,
        contracts=contracts,
        contract_ids=tuple(c.id for c in contracts),
        car_count=cars[0],
        car_price=cars[1],
        face_car=cars[2],
        crew_count=crew_count,
        money_step=step,
        start_money=r.amount(money, "start", "$.money", step),
        depot_start=r.amount(money, "depot_start", "$.money", step),
        depot_refill=r.amount(money, "depot_refill", "$.money", step),
        crew_card_price=r.amount(money, "crew_card_price", "$.money", step, low=step),
        passenger_fee=r.amount(money, "passenger_fee", "$.money", step),
        car_sale_percent=r.count(money, "car_sale_percent", "$.money", 0, 100),
        hand=hand,
        rack=rack,
        contracts_per_visit=r.count(limits, "contracts_per_visit", "$.limits", 1, 36),
        win_contracts=r.count(limits, "win_contracts", "$.limits", 1, len(contracts)),
        special_rolls=r.count(limits, "special_rolls", "$.limits", 1, 10),
        crew_piles=r.count(limits, "crew_piles", "$.limits", 1, 4),
        provenance=tuple(r.provenance),
    )


def _cars(
    r: _Reader, raw: Mapping[str, Any], step: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[Car, ...]]:
    unknown = sorted(set(raw) - {c.value for c in CARS})
    if unknown:
        raise r.fail("$.cars", f"unknown car type(s) {unknown}; known: {[c.value for c in CARS]}")
    counts, prices, faces = [], [], {}
    for car in CARS:
        path = f"$.cars.{car.value}"
        entry = r.field(raw, car.value, "$.cars", dict)
        counts.append(r.count(entry, "count", path, 0, 100))
        prices.append(r.amount(entry, "price", path, step, low=step))
        for face in r.marked(entry, "faces", path, list):
            if not isinstance(face, int) or not 1 <= face <= 6 or face in faces:
                raise r.fail(f"{path}.faces", f"die face {face!r} is not 1..6 or is used twice")
            faces[face] = car
    if sorted(faces) != [1, 2, 3, 4, 5, 6]:
        raise r.fail("$.cars", f"die faces {sorted(set(range(1, 7)) - set(faces))} name no car")
    if sum(counts) < 2 * MAX_SEATS:
        raise r.fail("$.cars", f"{sum(counts)} cars cannot give 2 to each of {MAX_SEATS} seats")
    return tuple(counts), tuple(prices), tuple(faces[f] for f in range(1, 7))


def _companies(r: _Reader, raw: list[Any]) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for i, entry in enumerate(raw):
        path = f"$.companies[{i}]"
        r.node(entry, path, dict)
        cid, title = r.field(entry, "id", path, str), r.field(entry, "name", path, str)
        r.source(entry, path, f"company {cid}: {title}")
        if any(cid == seen for seen, _ in out):
            raise r.fail(path, f"company id {cid!r} is used twice")
        out.append((cid, title))
    if not out:
        raise r.fail("$.companies", "there must be at least one company")
    return tuple(out)


def _contracts(
    r: _Reader, raw: list[Any], companies: tuple[tuple[str, str], ...], step: int, rack: int
) -> tuple[Contract, ...]:
    known = {cid for cid, _ in companies}
    out: list[Contract] = []
    for i, entry in enumerate(raw):
        path = f"$.contracts[{i}]"
        r.node(entry, path, dict)
        cid, company = r.field(entry, "id", path, str), r.field(entry, "company", path, str)
        r.source(entry, path, f"contract {cid} of {company}: cars {entry.get('cars')}")
        if company not in known:
            raise r.fail(f"{path}.company", f"{company!r} is not a company id")
        if any(c.id == cid for c in out):
            raise r.fail(f"{path}.id", f"contract id {cid!r} is used twice")
        need = r.field(entry, "cars", path, dict)
        cars = []
        for car in CARS:
            n = need.get(car.value, 0)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise r.fail(f"{path}.cars.{car.value}", f"{n!r} is not a count")
            cars.append(n)
        unknown = sorted(set(need) - {c.value for c in CARS})
        if unknown:
            raise r.fail(f"{path}.cars", f"unknown car type(s) {unknown}")
        if not 1 <= sum(cars) <= rack:
            raise r.fail(f"{path}.cars", f"needs {sum(cars)} cars; a rack holds 1..{rack}")
        price = r.amount(entry, "price", path, step)
        out.append(Contract(len(out), cid, company, tuple(cars), price))
    for cid, _ in companies:
        if not any(c.company == cid for c in out):
            raise r.fail("$.contracts", f"company {cid!r} has no contract")
    return tuple(out)


def _spaces(
    r: _Reader, raw: list[Any], companies: tuple[tuple[str, str], ...]
) -> tuple[tuple[Space, ...], int, int]:
    ids: dict[str, int] = {}
    for i, entry in enumerate(raw):
        r.node(entry, f"$.spaces[{i}]", dict)
        sid = r.field(entry, "id", f"$.spaces[{i}]", str)
        if sid in ids:
            raise r.fail(f"$.spaces[{i}].id", f"space id {sid!r} is used twice")
        ids[sid] = i
    spaces: list[Space] = []
    hosted: dict[str, str] = {}
    for i, entry in enumerate(raw):
        path = f"$.spaces[{i}]"
        kind_name = r.field(entry, "kind", path, str)
        r.source(entry, path, f"{entry['id']}: {kind_name}")
        try:
            kind = Kind(kind_name)
        except ValueError:
            known = [k.value for k in Kind]
            raise r.fail(f"{path}.kind", f"unknown kind {kind_name!r}; known: {known}") from None
        nexts = []
        for target in r.field(entry, "next", path, list):
            if target not in ids:
                raise r.fail(f"{path}.next", f"{target!r} is not a space id")
            nexts.append(ids[target])
        if not nexts or len(set(nexts)) != len(nexts):
            raise r.fail(f"{path}.next", "a space needs one or more distinct successors")
        amount, car, hosts = 0, None, tuple[str, ...]()
        if kind is Kind.PAY_TAXES:
            amount = r.amount(entry, "amount", path, 1, low=1)
        if kind is Kind.YARD:
            car_name = r.field(entry, "car", path, str)
            if car_name not in {c.value for c in CARS}:
                raise r.fail(f"{path}.car", f"{car_name!r} is not a car type")
            car = Car(car_name)
        if kind is Kind.TRADE:
            for cid in r.field(entry, "companies", path, list):
                if not isinstance(cid, str) or cid not in dict(companies) or cid in hosted:
                    raise r.fail(f"{path}.companies", f"{cid!r} is unknown or hosted twice")
                hosted[cid] = entry["id"]
                hosts += (cid,)
        spaces.append(Space(i, entry["id"], kind, tuple(nexts), amount, car, hosts))
    missing = sorted({c for c, _ in companies} - set(hosted))
    if missing:
        raise r.fail("$.spaces", f"companies {missing} have no TRADE space")
    start = _only(r, spaces, Kind.START)
    central = _only(r, spaces, Kind.CENTRAL)
    if any(start in s.next for s in spaces):
        raise r.fail("$.spaces", "START may not be the successor of any space")
    reached, frontier = {start}, [start]
    while frontier:
        for nxt in spaces[frontier.pop()].next:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    unreachable = [s.name for s in spaces if s.index not in reached]
    if unreachable:
        raise r.fail("$.spaces", f"space(s) {unreachable} cannot be reached from START")
    return tuple(spaces), start, central


def _only(r: _Reader, spaces: list[Space], kind: Kind) -> int:
    found = [s.index for s in spaces if s.kind is kind]
    if len(found) != 1:
        raise r.fail(
            "$.spaces", f"there must be exactly one {kind.value} space, found {len(found)}"
        )
    return found[0]


def packaged_boards() -> dict[str, Board]:
    """Every `*.json` board file shipped in this package, validated (read once, at import)."""
    out: dict[str, Board] = {}
    for entry in sorted(resources.files("engines.crossing").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            out[entry.name] = load_board(entry.read_text(encoding="utf-8"), entry.name)
    return out


def provenance_lines() -> list[str]:
    """Every value of every packaged board, marked sourced or proposed (`arena rules`)."""
    lines = []
    for name, board in BOARDS.items():
        flag = "" if board.sourced else " [NOT SOURCED: proposed data]"
        lines.append(f"board {name}: {board.title}{flag}")
        for p in board.provenance:
            mark = f"proposed ({p.source})" if p.source.startswith("D") else f"sourced ({p.source})"
            lines.append(f"  {p.path} = {p.value}  [{mark}]")
    return lines


BOARDS: dict[str, Board] = packaged_boards()
"""The packaged boards by file name; the `board` option chooses among them."""
DEFAULT_BOARD = "board.json"

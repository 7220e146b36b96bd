"""Loading and checking `cards.json`, the one data file of Loyang, with provenance marks.

Every value in the file carries a mark: "sourced:<key>" (the key names an entry of "sources") or
"provisional:<key>" (the key names an entry of "provisional" saying why it is a guess). A file that
breaks any rule below raises `DataError` naming the path of the bad value.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from engines.errors import DataError
from engines.loyang.cards import (
    CROP_NAMES,
    LANTERN_EFFECTS,
    NO_CROPS,
    CardDef,
    CardKind,
    CasualDef,
    Constants,
    Counts,
    Crop,
    Effect,
    EffectKind,
    FieldDef,
    GameData,
    HelperDef,
    Mark,
    RegularDef,
    StallDef,
)

FORMAT = 1
_KIND_KEYS = {
    CardKind.HELPER: ("name", "lantern", "printed", "effect"),
    CardKind.MARKET_STALL: ("goods",),
    CardKind.REGULAR_CUSTOMER: ("crops", "rows", "blue_dot"),
    CardKind.CASUAL_CUSTOMER: ("crops", "payout"),
    CardKind.COMMON_FIELD: ("size", "allowed"),
}


class _Reader:
    """Typed access to the parsed JSON; every failure names the path."""

    def __init__(self, raw: Any) -> None:
        self.marks: dict[str, Mark] = {}
        self.sources = self.table(raw, "sources")
        self.notes = self.table(raw, "provisional")

    @staticmethod
    def fail(path: str, message: str) -> DataError:
        return DataError(f"loyang cards.json: {path}: {message}")

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be an object, got {type(value).__name__}")
        return value

    def key(self, parent: dict[str, Any], name: str, path: str) -> Any:
        if name not in parent:
            raise self.fail(path, f"missing key {name!r}")
        return parent[name]

    def table(self, raw: Any, name: str) -> dict[str, str]:
        table = self.obj(self.key(self.obj(raw, "top level"), name, "top level"), name)
        for k, v in table.items():
            if not isinstance(v, str) or not v.strip():
                raise self.fail(f"{name}.{k}", "must be a non-empty text")
        return table

    def integer(self, value: Any, path: str, low: int = 0, high: int = 1000) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be an integer, got {value!r}")
        if not low <= value <= high:
            raise self.fail(path, f"must be in {low}..{high}, got {value}")
        return value

    def text(self, value: Any, path: str, optional: bool = False) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"must be a non-empty text, got {value!r}")
        return value

    def flag(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"must be true or false, got {value!r}")
        return value

    def crop(self, value: Any, path: str) -> Crop:
        crop = Crop.parse(value)
        if crop is None:
            raise self.fail(path, f"unknown crop {value!r}; crops are {list(CROP_NAMES)}")
        return crop

    def crops(self, value: Any, path: str, size: int | None = None) -> tuple[Crop, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(path, "must be a non-empty list of crops")
        if size is not None and len(value) != size:
            raise self.fail(path, f"must list {size} crops, got {len(value)}")
        return tuple(self.crop(v, f"{path}[{i}]") for i, v in enumerate(value))

    def per_crop(self, value: Any, path: str, low: int = 0, high: int = 100) -> Counts:
        table = self.obj(value, path)
        extra = sorted(set(table) - set(CROP_NAMES))
        if extra:
            raise self.fail(path, f"unknown crop(s) {extra}")
        return tuple(
            self.integer(self.key(table, name, path), f"{path}.{name}", low, high)
            for name in CROP_NAMES
        )

    def mark(self, value: Any, path: str) -> Mark:
        if not isinstance(value, str) or ":" not in value:
            raise self.fail(
                path, f"mark must be 'sourced:<key>' or 'provisional:<key>', got {value!r}"
            )
        status, _, key = value.partition(":")
        if status == "sourced" and key in self.sources:
            return Mark(True, key, self.sources[key])
        if status == "provisional" and key in self.notes:
            return Mark(False, key, self.notes[key])
        if status not in ("sourced", "provisional"):
            raise self.fail(path, f"mark status must be sourced or provisional, got {status!r}")
        table = "sources" if status == "sourced" else "provisional"
        raise self.fail(path, f"mark {value!r} names no entry of {table!r}")

    def marked(self, parent: dict[str, Any], name: str, path: str) -> Any:
        """The "value" of a {"value": ..., "mark": ...} entry, recording its mark."""
        full = f"{path}.{name}" if path else name
        entry = self.obj(self.key(parent, name, path or "top level"), full)
        self.marks[full] = self.mark(self.key(entry, "mark", full), f"{full}.mark")
        return self.key(entry, "value", full)

    def item_marks(self, item: dict[str, Any], keys: tuple[str, ...], path: str) -> None:
        """Record the per-key marks of a card or field; every data key needs one."""
        marks = self.obj(self.key(item, "marks", path), f"{path}.marks")
        missing = [k for k in keys if k not in marks]
        if missing:
            raise self.fail(f"{path}.marks", f"no mark for {missing}")
        extra = sorted(set(marks) - set(keys))
        if extra:
            raise self.fail(f"{path}.marks", f"marks for unknown keys {extra}")
        for k in keys:
            self.marks[f"{path}.{k}"] = self.mark(marks[k], f"{path}.marks.{k}")


def _constants(r: _Reader, raw: dict[str, Any]) -> Constants:
    rules = r.obj(r.key(raw, "rules", "top level"), "rules")

    def num(name: str, low: int = 0, high: int = 1000) -> int:
        return r.integer(r.marked(rules, name, "rules"), f"rules.{name}", low, high)

    store = r.obj(r.marked(rules, "storehouse", "rules"), "rules.storehouse")
    costs = r.marked(rules, "solo_row_costs", "rules")
    if not isinstance(costs, list) or not costs:
        raise r.fail("rules.solo_row_costs", "must be a non-empty list of integers")
    dummy = r.obj(r.marked(rules, "solo_dummy", "rules"), "rules.solo_dummy")
    ratings = r.obj(r.marked(rules, "solo_ratings", "rules"), "rules.solo_ratings")
    parsed_ratings = []
    for k, v in ratings.items():
        if not k.isdigit():
            raise r.fail("rules.solo_ratings", f"key {k!r} must be a path space number")
        parsed_ratings.append((int(k), str(r.text(v, f"rules.solo_ratings.{k}"))))
    return Constants(
        rounds=num("rounds", 1, 20),
        hand_size=num("hand_size", 1, 10),
        deck_size=num("deck_size", 1, 500),
        helpers=num("helpers", 0, 500),
        starting_cash=num("starting_cash"),
        path_start=num("path_start", 0, 100),
        max_same_home_crop=num("max_same_home_crop", 1, 4),
        loan_amount=num("loan_amount", 1, 100),
        loan_penalty=num("loan_penalty"),
        common_field_cost=num("common_field_cost"),
        storehouse_base=r.integer(
            r.key(store, "base", "rules.storehouse"), "storehouse.base", 0, 20
        ),
        storehouse_upgraded=r.integer(
            r.key(store, "upgraded", "rules.storehouse"), "rules.storehouse.upgraded", 0, 20
        ),
        storehouse_upgrade_cost=r.integer(
            r.key(store, "upgrade_cost", "rules.storehouse"), "rules.storehouse.upgrade_cost"
        ),
        regular_fine=num("regular_fine"),
        casual_modifier=num("casual_modifier"),
        first_step_cost=num("first_step_cost", 0, 100),
        path_floor=num("path_floor", 0, 100),
        solo_row_costs=tuple(
            r.integer(c, f"rules.solo_row_costs[{i}]", 0, 100) for i, c in enumerate(costs)
        ),
        solo_grid_columns=num("solo_grid_columns", 1, 10),
        solo_dummy=(
            r.integer(r.key(dummy, "market_stall", "rules.solo_dummy"), "solo_dummy.market_stall"),
            r.integer(r.key(dummy, "regular_customer", "rules.solo_dummy"), "solo_dummy.regular"),
            r.integer(r.key(dummy, "casual_customer", "rules.solo_dummy"), "solo_dummy.casual"),
        ),
        solo_ratings=tuple(sorted(parsed_ratings)),
    )


def _field(r: _Reader, raw: Any, path: str) -> FieldDef:
    item = r.obj(raw, path)
    r.item_marks(item, ("size", "allowed"), path)
    allowed = r.crops(r.key(item, "allowed", path), f"{path}.allowed")
    if len(set(allowed)) != len(allowed):
        raise r.fail(f"{path}.allowed", "lists a crop twice")
    return FieldDef(
        id=str(r.text(r.key(item, "id", path), f"{path}.id")),
        size=r.integer(r.key(item, "size", path), f"{path}.size", 1, 20),
        allowed=frozenset(allowed),
    )


def _effect(r: _Reader, raw: Any, path: str) -> Effect:
    spec = r.obj(raw, path)
    name = r.key(spec, "kind", path)
    try:
        kind = EffectKind(name)
    except ValueError:
        known = [k.value for k in EffectKind]
        raise r.fail(f"{path}.kind", f"unknown effect {name!r}; known: {known}") from None
    needs_amount = kind in (
        EffectKind.SHOP_DISCOUNT,
        EffectKind.SALES_BONUS,
        EffectKind.STALL_BUY,
        EffectKind.GAIN_CASH,
    )
    allowed = {"kind"} | ({"amount"} if needs_amount else set())
    if kind is EffectKind.TAKE_CROPS:
        allowed.add("crops")
    extra = sorted(set(spec) - allowed)
    if extra:
        raise r.fail(path, f"effect {kind.value} takes no key(s) {extra}")
    amount = r.integer(r.key(spec, "amount", path), f"{path}.amount", 1, 50) if needs_amount else 0
    crops: tuple[Crop, ...] = ()
    if kind is EffectKind.TAKE_CROPS:
        crops = r.crops(r.key(spec, "crops", path), f"{path}.crops")
    return Effect(kind=kind, amount=amount, crops=crops)


def _card(r: _Reader, raw: Any, path: str) -> CardDef:
    item = r.obj(raw, path)
    card_id = str(r.text(r.key(item, "id", path), f"{path}.id"))
    path = f"cards.{card_id}"
    try:
        kind = CardKind(r.key(item, "kind", path))
    except ValueError:
        raise r.fail(f"{path}.kind", f"unknown card kind {item['kind']!r}") from None
    keys = _KIND_KEYS[kind]
    extra = sorted(set(item) - {"id", "kind", "marks", *keys})
    if extra:
        raise r.fail(path, f"a {kind.value} has no key(s) {extra}")
    r.item_marks(item, keys, path)

    def get(name: str) -> Any:
        return r.key(item, name, path)

    if kind is CardKind.HELPER:
        effect = _effect(r, get("effect"), f"{path}.effect")
        lantern = r.flag(get("lantern"), f"{path}.lantern")
        if lantern != (effect.kind in LANTERN_EFFECTS):
            raise r.fail(path, f"lantern={lantern} does not fit effect {effect.kind.value}")
        return HelperDef(
            id=card_id,
            name=r.text(get("name"), f"{path}.name", optional=True),
            lantern=lantern,
            effect=effect,
            printed=r.text(get("printed"), f"{path}.printed", optional=True),
        )
    if kind is CardKind.MARKET_STALL:
        goods = get("goods")
        if not isinstance(goods, list) or not goods:
            raise r.fail(f"{path}.goods", "must be a non-empty list")
        stock, cost = list(NO_CROPS), list(NO_CROPS)
        for i, g in enumerate(goods):
            gpath = f"{path}.goods[{i}]"
            good = r.obj(g, gpath)
            crop = r.crop(r.key(good, "crop", gpath), f"{gpath}.crop")
            if stock[crop]:
                raise r.fail(gpath, f"lists {crop.wire} twice")
            stock[crop] = r.integer(r.key(good, "count", gpath), f"{gpath}.count", 1, 20)
            cost[crop] = r.integer(r.key(good, "cost", gpath), f"{gpath}.cost", 1, 2)
        return StallDef(id=card_id, stock=tuple(stock), cost=tuple(cost))
    if kind is CardKind.REGULAR_CUSTOMER:
        rows = get("rows")
        if not isinstance(rows, list) or len(rows) != 4:
            raise r.fail(f"{path}.rows", "must list the coins of 4 rows")
        return RegularDef(
            id=card_id,
            crops=r.crops(get("crops"), f"{path}.crops", 2),
            rows=tuple(r.integer(v, f"{path}.rows[{i}]", 0, 100) for i, v in enumerate(rows)),
            blue_dot=r.flag(get("blue_dot"), f"{path}.blue_dot"),
        )
    if kind is CardKind.CASUAL_CUSTOMER:
        return CasualDef(
            id=card_id,
            crops=r.crops(get("crops"), f"{path}.crops", 3),
            payout=r.integer(get("payout"), f"{path}.payout", 0, 100),
        )
    return _field(r, item, path)


def parse(text: str) -> GameData:
    """Check a data file's text and build its `GameData`; a malformed file raises `DataError`."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise DataError(f"loyang cards.json is not valid JSON: {exc}") from None
    r = _Reader(raw)
    if raw.get("format") != FORMAT:
        raise r.fail("format", f"must be {FORMAT}, got {raw.get('format')!r}")
    if list(CROP_NAMES) != [c.wire for c in Crop]:  # pragma: no cover - a code invariant
        raise r.fail("crops", "the crop enum changed")
    constants = _constants(r, raw)
    shop = r.obj(r.key(raw, "shop", "top level"), "shop")
    buy = r.per_crop(r.marked(shop, "buy", "shop"), "shop.buy", 0, 100)
    sell = r.per_crop(r.marked(shop, "sell", "shop"), "shop.sell", 0, 100)
    stock = r.per_crop(r.marked(shop, "stock", "shop"), "shop.stock", 0, 20)
    capacity = r.per_crop(r.marked(shop, "capacity", "shop"), "shop.capacity", 0, 20)
    for crop in Crop:
        if stock[crop] > capacity[crop]:
            raise r.fail(f"shop.stock.{crop.wire}", "exceeds the row's capacity")
    fields = r.obj(r.key(raw, "fields", "top level"), "fields")
    home = _field(r, r.key(fields, "home", "fields"), "fields.home")
    private_raw = r.key(fields, "private", "fields")
    if not isinstance(private_raw, list) or len(private_raw) % 2:
        raise r.fail("fields.private", "must be a list of pairs of private fields")
    private = tuple(_field(r, f, f"fields.private[{i}]") for i, f in enumerate(private_raw))
    sizes = sorted(f.size for f in private)
    if sizes[::2] != sizes[1::2]:
        raise r.fail("fields.private", "must hold two fields of every size (the two piles)")
    cards_raw = r.key(raw, "cards", "top level")
    if not isinstance(cards_raw, list):
        raise r.fail("cards", "must be a list")
    cards: dict[str, CardDef] = {}
    field_ids = {home.id, *(f.id for f in private)}
    for i, item in enumerate(cards_raw):
        card = _card(r, item, f"cards[{i}]")
        if card.id in cards or card.id in field_ids:
            raise r.fail(f"cards[{i}].id", f"duplicate id {card.id!r}")
        cards[card.id] = card
    if len(cards) != constants.deck_size:
        raise r.fail(
            "cards", f"the action deck must have {constants.deck_size} cards, has {len(cards)}"
        )
    helpers = constants.helpers
    counts = {k: sum(1 for c in cards.values() if c.kind is k) for k in CardKind}
    if counts[CardKind.HELPER] != helpers:
        raise r.fail("cards", f"must hold {helpers} helpers, holds {counts[CardKind.HELPER]}")
    composition = r.obj(r.marked(raw, "composition", ""), "composition")
    for kind in CardKind:
        want = r.integer(r.key(composition, kind.value, "composition"), f"composition.{kind.value}")
        if counts[kind] != want:
            raise r.fail(
                "cards", f"composition says {want} {kind.value} cards, found {counts[kind]}"
            )
    dots = sum(1 for c in cards.values() if isinstance(c, RegularDef) and c.blue_dot)
    if dots != 4:
        raise r.fail(
            "cards", f"the beginner variant needs 4 blue-dot regular customers, found {dots}"
        )
    return GameData(
        constants=constants,
        buy=buy,
        sell=sell,
        shop_stock=stock,
        shop_capacity=capacity,
        home=home,
        private=private,
        cards=cards,
        marks=dict(r.marks),
    )


def load() -> GameData:
    """Read and check the packaged `cards.json` (done once, at import)."""
    text = resources.files("engines.loyang").joinpath("cards.json").read_text(encoding="utf-8")
    return parse(text)


DATA = load()
"""The game data every module uses."""

"""`arena rules loyang`: the data file as text, every value with its sourced/PROVISIONAL mark."""

from __future__ import annotations

from engines.loyang.cards import (
    CROP_NAMES,
    CasualDef,
    Counts,
    FieldDef,
    HelperDef,
    Mark,
    RegularDef,
    StallDef,
)
from engines.loyang.data import DATA


def _tag(path: str) -> str:
    mark: Mark = DATA.marks[path]
    return f"[sourced:{mark.key}]" if mark.sourced else f"[PROVISIONAL:{mark.key}]"


def _crops(values: Counts) -> str:
    return ", ".join(f"{CROP_NAMES[i]} {n}" for i, n in enumerate(values) if n)


def _card_line(card_id: str) -> list[str]:
    d = DATA.cards[card_id]
    p = f"cards.{card_id}"
    if isinstance(d, HelperDef):
        name = d.name or "(name unknown)"
        printed = f'"{d.printed}"' if d.printed else "UNKNOWN"
        return [
            f"  {card_id} helper {name} {_tag(p + '.name')}"
            f"{' lantern' if d.lantern else ' no lantern'} {_tag(p + '.lantern')}",
            f"      printed effect: {printed} {_tag(p + '.printed')}",
            f"      engine plays: {d.effect.text()} {_tag(p + '.effect')}",
        ]
    if isinstance(d, StallDef):
        costs = ", ".join(
            f"{CROP_NAMES[i]} x{d.stock[i]} for {d.cost[i]}" for i in range(6) if d.stock[i]
        )
        return [f"  {card_id} market stall: {costs} {_tag(p + '.goods')}"]
    if isinstance(d, RegularDef):
        return [
            f"  {card_id} regular customer: {'+'.join(c.wire for c in d.crops)} "
            f"{_tag(p + '.crops')}; rows {'/'.join(map(str, d.rows))} {_tag(p + '.rows')}"
            f"{'; blue dot' if d.blue_dot else ''} {_tag(p + '.blue_dot')}"
        ]
    if isinstance(d, CasualDef):
        return [
            f"  {card_id} casual customer: {'+'.join(c.wire for c in d.crops)} "
            f"{_tag(p + '.crops')} -> {d.payout} {_tag(p + '.payout')}"
        ]
    assert isinstance(d, FieldDef)
    return [
        f"  {card_id} common field: {d.size} spaces {_tag(p + '.size')}; "
        f"{'any crop' if len(d.allowed) == 6 else _allowed(d)} {_tag(p + '.allowed')}"
    ]


def _allowed(f: FieldDef) -> str:
    return ", ".join(sorted(c.wire for c in f.allowed))


def data_lines() -> list[str]:
    """Every value of the data file, marked, then the meaning of every mark."""
    k = DATA.constants
    out = [
        "Data (engines/loyang/cards.json); [sourced:KEY] names a source, [PROVISIONAL:KEY] a guess",
        "Rules:",
    ]
    for name in (
        "rounds",
        "hand_size",
        "deck_size",
        "helpers",
        "starting_cash",
        "path_start",
        "max_same_home_crop",
        "loan_amount",
        "loan_penalty",
        "common_field_cost",
        "regular_fine",
        "casual_modifier",
        "first_step_cost",
        "path_floor",
        "solo_grid_columns",
    ):
        out.append(f"  {name} = {getattr(k, name)} {_tag('rules.' + name)}")
    out += [
        f"  storehouse = {k.storehouse_base}, upgraded {k.storehouse_upgraded} for "
        f"{k.storehouse_upgrade_cost} {_tag('rules.storehouse')}",
        f"  solo_row_costs = {list(k.solo_row_costs)} {_tag('rules.solo_row_costs')}",
        f"  solo_dummy = stalls/regular/casual {list(k.solo_dummy)} {_tag('rules.solo_dummy')}",
        f"  solo_ratings = {dict(k.solo_ratings)} {_tag('rules.solo_ratings')}",
        "Shop:",
        f"  buy: {_crops(DATA.buy)} {_tag('shop.buy')}",
        f"  sell: {_crops(DATA.sell)} {_tag('shop.sell')}",
        f"  stock at setup: {_crops(DATA.shop_stock)} {_tag('shop.stock')}",
        f"  row capacity: {_crops(DATA.shop_capacity)} {_tag('shop.capacity')}",
        "Fields:",
        f"  {DATA.home.id}: {DATA.home.size} spaces {_tag('fields.home.size')}; "
        f"{_allowed(DATA.home)} {_tag('fields.home.allowed')}",
    ]
    for i, f in enumerate(DATA.private):
        out.append(
            f"  {f.id}: {f.size} spaces {_tag(f'fields.private[{i}].size')}; "
            f"{_allowed(f)} {_tag(f'fields.private[{i}].allowed')}"
        )
    out.append(f"Action deck ({len(DATA.cards)} cards) {_tag('composition')}:")
    for card_id in DATA.cards:
        out += _card_line(card_id)
    marks = {m.key: m for m in DATA.marks.values()}
    out.append("Sources:")
    out += [f"  {m.key}: {m.text}" for m in marks.values() if m.sourced]
    out.append("Provisional values, and why:")
    out += [f"  {m.key}: {m.text}" for m in marks.values() if not m.sourced]
    return out

"""Convert between an engine's JSON wire forms and the typed per-game proto messages.

Per-game protos mirror the engine's JSON, so one descriptor walk converts every game:
- a view is a `<Game>View` whose fields carry the JSON keys' names;
- an action `{"type": T, ...rest}` is a `<Game>Action` whose oneof field named T holds `rest`;
- a JSON string in an enum field is the enum value `<ENUM_NAME>_<STRING>` ("jug" in enum `Good` is
  `GOOD_JUG`), so the protos keep Buf's prefixed names while the JSON stays readable;
- a JSON list nested in a list is a message whose name ends in `List`, holding one repeated field;
- a list element that may be null is a message whose name ends in `Slot`, holding one field that
  is unset for null;
- JSON null is an unset field (`optional` for scalars).
A key that the proto does not know is an error: `tests/test_wire.py` converts every view and
action of random matches of every game both ways, so a proto that drifts from its engine fails.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeAlias

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from arena.protocol.canonical import compact as compact  # canonical JSON text, re-exported
from arena.v1 import common_pb2

if TYPE_CHECKING:
    from google._upb import _message as _upb

    # protobuf's stubs type a message's DESCRIPTOR as the pure-Python or the upb (C) class.
    AnyDescriptor: TypeAlias = Descriptor | _upb.Descriptor
    AnyField: TypeAlias = FieldDescriptor | _upb.FieldDescriptor
    AnyEnum: TypeAlias = EnumDescriptor | _upb.EnumDescriptor

Wire = Any


class WireError(ValueError):
    """A JSON value that does not fit its proto message, or a proto message that is malformed."""


def message_type(field: AnyField) -> AnyDescriptor:
    """The message type of a message field (the stubs make it optional, for scalar fields)."""
    if field.message_type is None:
        raise WireError(f"{field.full_name} is not a message field")
    return field.message_type


def enum_type(field: AnyField) -> AnyEnum:
    """The enum type of an enum field (the stubs make it optional, for other fields)."""
    if field.enum_type is None:
        raise WireError(f"{field.full_name} is not an enum field")
    return field.enum_type


def _enum_prefix(enum: AnyEnum) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


def _is_map(field: AnyField) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE and message_type(field).GetOptions().map_entry


def _is_repeated(field: AnyField) -> bool:
    return bool(field.is_repeated)


def _is_wrapper(descriptor: AnyDescriptor) -> bool:
    return descriptor.name.endswith("List") and len(descriptor.fields) == 1


def _is_slot(descriptor: AnyDescriptor) -> bool:
    return descriptor.name.endswith("Slot") and len(descriptor.fields) == 1


def _scalar_in(field: AnyField, value: Wire, path: str) -> Any:
    kind = field.type
    if kind == FieldDescriptor.TYPE_ENUM:
        enum = enum_type(field)
        if not isinstance(value, str):
            raise WireError(f"{path}: expected a string naming a {enum.name}")
        name = _enum_prefix(enum) + value.upper()
        number = enum.values_by_name.get(name)
        if number is None:
            raise WireError(f"{path}: {value!r} is not a {enum.name}")
        return number.number
    if kind == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise WireError(f"{path}: expected true or false, got {value!r}")
        return value
    if kind == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise WireError(f"{path}: expected a string, got {value!r}")
        return value
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise WireError(f"{path}: expected a number, got {value!r}")
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError(f"{path}: expected an integer, got {value!r}")
    return value


def _scalar_out(field: AnyField, value: Any) -> Wire:
    if field.type == FieldDescriptor.TYPE_ENUM:
        # proto3 enums are open: a peer may send a number the enum does not name.
        enum = enum_type(field)
        known = enum.values_by_number.get(value)
        if known is None:
            raise WireError(f"{value} is not a {enum.name}")
        return known.name[len(_enum_prefix(enum)) :].lower()
    return value


def fill(message: Message, value: Wire, path: str = "$") -> Message:
    """Fill `message` from the JSON object `value`; a mismatch raises `WireError` with its path."""
    descriptor = message.DESCRIPTOR
    if _is_slot(descriptor):
        value = {} if value is None else {descriptor.fields[0].name: value}
    elif _is_wrapper(descriptor) and not isinstance(value, dict):
        value = {descriptor.fields[0].name: value}
    if not isinstance(value, dict):
        raise WireError(f"{path}: expected an object for {descriptor.name}, got {value!r}")
    for key, item in value.items():
        field = descriptor.fields_by_name.get(key)
        if field is None:
            raise WireError(f"{path}.{key}: {descriptor.name} has no field {key!r}")
        if item is None:
            continue
        where = f"{path}.{key}"
        target = getattr(message, key)
        if _is_map(field):
            if not isinstance(item, dict):
                raise WireError(f"{where}: expected an object")
            key_field = message_type(field).fields_by_name["key"]
            value_field = message_type(field).fields_by_name["value"]
            for raw_key, sub in item.items():
                map_key = raw_key if key_field.type == FieldDescriptor.TYPE_STRING else int(raw_key)
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    fill(target[map_key], sub, f"{where}.{raw_key}")
                else:
                    target[map_key] = _scalar_in(value_field, sub, f"{where}.{raw_key}")
        elif _is_repeated(field):
            if not isinstance(item, list):
                raise WireError(f"{where}: expected a list, got {item!r}")
            for index, sub in enumerate(item):
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    fill(target.add(), sub, f"{where}[{index}]")
                else:
                    target.append(_scalar_in(field, sub, f"{where}[{index}]"))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            target.SetInParent()
            fill(target, item, where)
        else:
            setattr(message, key, _scalar_in(field, item, where))
    return message


def dump(message: Message) -> Wire:
    """The JSON form of `message`: every field, unset optional ones as null."""
    descriptor = message.DESCRIPTOR
    out: dict[str, Wire] = {}
    for field in descriptor.fields:
        value = getattr(message, field.name)
        if _is_map(field):
            value_field = message_type(field).fields_by_name["value"]
            out[field.name] = {
                str(k): dump(v)
                if value_field.type == FieldDescriptor.TYPE_MESSAGE
                else _scalar_out(value_field, v)
                for k, v in value.items()
            }
        elif _is_repeated(field):
            out[field.name] = [
                dump(v) if field.type == FieldDescriptor.TYPE_MESSAGE else _scalar_out(field, v)
                for v in value
            ]
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            out[field.name] = dump(value) if message.HasField(field.name) else None
        elif field.has_presence and not message.HasField(field.name):
            out[field.name] = None
        else:
            out[field.name] = _scalar_out(field, value)
    if _is_wrapper(descriptor) or _is_slot(descriptor):
        return out[descriptor.fields[0].name]
    return out


def _game_field(container: AnyDescriptor, game: str) -> AnyField:
    field = container.fields_by_name.get(game)
    if field is None:
        raise WireError(f"the wire contract has no messages for game {game!r}")
    return field


def view_message(game: str, view: Wire) -> common_pb2.GameView:
    """The typed `GameView` of an engine view."""
    out = common_pb2.GameView()
    _game_field(out.DESCRIPTOR, game)
    fill(getattr(out, game), view, f"{game} view")
    getattr(out, game).SetInParent()
    return out


def action_message(game: str, action: Wire) -> common_pb2.GameAction:
    """The typed `GameAction` of an engine action `{"type": T, ...}`."""
    out = common_pb2.GameAction()
    _game_field(out.DESCRIPTOR, game)
    typed = getattr(out, game)
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise WireError(f"{game} action must be an object with a string 'type', got {action!r}")
    rest = {k: v for k, v in action.items() if k != "type"}
    kind = action["type"]
    if kind not in typed.DESCRIPTOR.fields_by_name:
        raise WireError(f"{game} has no action type {kind!r}")
    sub = getattr(typed, kind)
    sub.SetInParent()
    fill(sub, rest, f"{game} action {kind}")
    return out


def action_json(action: common_pb2.GameAction) -> tuple[str, Wire]:
    """The game and the engine JSON form of a typed action; an empty message raises `WireError`."""
    game = action.WhichOneof("game")
    if game is None:
        raise WireError("the typed action names no game")
    typed = getattr(action, game)
    oneofs = typed.DESCRIPTOR.oneofs
    kind = typed.WhichOneof(oneofs[0].name) if oneofs else None
    if kind is None:
        raise WireError(f"the typed {game} action sets no action")
    body = {k: v for k, v in dump(getattr(typed, kind)).items() if v is not None}
    return game, {"type": kind, **body}


def view_json(view: common_pb2.GameView) -> Wire:
    """The engine JSON form of a typed view."""
    game = view.WhichOneof("game")
    if game is None:
        raise WireError("the typed view names no game")
    return dump(getattr(view, game))


def normalized(value: Wire) -> Wire:
    """`value` without nulls and empty lists or objects: what survives a typed round trip."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value

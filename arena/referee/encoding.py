"""Per-game request encoders compiled once from the protos: engine values to typed messages fast.

`wire.fill` walks descriptors for every value it converts, which is exact but slow (about a
millisecond per decision request). An `Encoder` compiles, once per game, a converter per proto
message that turns the engine's JSON form into constructor arguments, so that upb builds the whole
typed message in C with one constructor call. It follows the same mapping as `wire` (enum
strings, `List` wrappers, `Slot` nulls, maps, null as unset); anything the compiled converter does
not expect falls back to `wire`, which raises the precise `WireError`: errors stay the same.

Actions are encoded once per distinct action (engine actions are hashable values): their JSON text
and typed message are kept in a bounded table in the encoder, never in the engine's state.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import FieldDescriptor

from arena.protocol import wire
from arena.protocol.canonical import compact as compact  # the requests' JSON texts
from arena.protocol.wire import enum_type, message_type
from arena.v1 import common_pb2

if TYPE_CHECKING:
    from arena.protocol.wire import AnyDescriptor, AnyField

Wire = Any
Convert = Callable[[Wire], Any]

ACTION_TABLE_LIMIT = 20_000
"""Distinct actions an encoder keeps encoded before it starts over (a bound, not a tuning knob)."""


class _Mismatch(Exception):
    """The compiled converter met a value it does not expect: let `wire` name the error."""


def _is_map(field: AnyField) -> bool:
    return field.type == FieldDescriptor.TYPE_MESSAGE and message_type(field).GetOptions().map_entry


def _identity(value: Wire) -> Wire:
    return value


def _enum(field: AnyField) -> Convert:
    prefix = wire._enum_prefix(enum_type(field))
    numbers = {
        v.name[len(prefix) :].lower(): v.number
        for v in enum_type(field).values
        if v.name.startswith(prefix)
    }

    def convert(value: Wire) -> int:
        number = numbers.get(value) if isinstance(value, str) else None
        if number is None:
            raise _Mismatch
        return number

    return convert


class _Compiler:
    """Builds (and memoises, per descriptor) the converter of every message a game uses.

    A message whose fields need no conversion passes through as it is (upb checks its keys and
    types, and treats None as unset); the others copy the object and convert only the fields
    that need it: enum names, `List` and `Slot` wrappers, and messages that contain those.
    """

    def __init__(self) -> None:
        self._messages: dict[str, Convert] = {}

    def scalar(self, field: AnyField) -> Convert:
        """The converter of one value of `field` (enums by name; messages compiled; else as is)."""
        if field.type == FieldDescriptor.TYPE_ENUM:
            return _enum(field)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            return self.message(message_type(field))
        return _identity

    def needs(self, descriptor: AnyDescriptor, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a JSON value of `descriptor` needs converting before upb may take it."""
        if descriptor.full_name in seen:  # a recursive message: convert, to be safe
            return True
        inside = seen | {descriptor.full_name}
        if len(descriptor.fields) == 1 and descriptor.name.endswith(("Slot", "List")):
            return True
        for field in descriptor.fields:
            if field.type == FieldDescriptor.TYPE_ENUM:
                return True
            if _is_map(field):
                value = message_type(field).fields_by_name["value"]
                key = message_type(field).fields_by_name["key"]
                if key.type != FieldDescriptor.TYPE_STRING or value.type in (
                    FieldDescriptor.TYPE_ENUM,
                    FieldDescriptor.TYPE_MESSAGE,
                ):
                    return True
            elif field.type == FieldDescriptor.TYPE_MESSAGE and self.needs(
                message_type(field), inside
            ):
                return True
        return False

    def message(self, descriptor: AnyDescriptor) -> Convert:
        """The converter of a JSON value into constructor arguments for `descriptor`."""
        known = self._messages.get(descriptor.full_name)
        if known is not None:
            return known
        if not self.needs(descriptor):
            self._messages[descriptor.full_name] = _identity
            return _identity
        first = descriptor.fields[0] if len(descriptor.fields) == 1 else None
        specials: list[tuple[str, Convert]] = []

        def convert(value: Wire) -> Any:
            if not isinstance(value, dict):
                raise _Mismatch
            out = dict(value)
            for name, step in specials:
                item = out.get(name)
                if item is not None:
                    out[name] = step(item)
            return out

        inner = convert
        if first is not None and descriptor.name.endswith("Slot"):
            name = first.name

            def convert(value: Wire) -> Any:  # a nullable list element
                return {} if value is None else inner({name: value})

        elif first is not None and descriptor.name.endswith("List"):
            name = first.name

            def convert(value: Wire) -> Any:  # a list nested in a list
                return inner(value if isinstance(value, dict) else {name: value})

        # Memoised before the fields are compiled, so that recursive messages terminate.
        self._messages[descriptor.full_name] = convert
        for field in descriptor.fields:
            step = self.field(field)
            if step is not _identity:
                specials.append((field.name, step))
        return convert

    def field(self, field: AnyField) -> Convert:
        """The converter of a whole field's JSON value (a scalar, a list or a map)."""
        if _is_map(field):
            key_field = message_type(field).fields_by_name["key"]
            value_of = self.scalar(message_type(field).fields_by_name["value"])
            int_keys = key_field.type != FieldDescriptor.TYPE_STRING
            if value_of is _identity and not int_keys:
                return _identity

            def convert_map(value: Wire) -> Any:
                if not isinstance(value, dict):
                    raise _Mismatch
                return {(int(k) if int_keys else k): value_of(v) for k, v in value.items()}

            return convert_map
        one = self.scalar(field)
        if one is _identity or not field.is_repeated:
            return one

        def convert_list(value: Wire) -> Any:
            if not isinstance(value, list):
                raise _Mismatch
            return [one(v) for v in value]

        return convert_list


class Encoder:
    """One game's compiled encoders for views and actions, and its table of encoded actions."""

    def __init__(self, game: str) -> None:
        self.game = game
        view_field = common_pb2.GameView.DESCRIPTOR.fields_by_name.get(game)
        action_field = common_pb2.GameAction.DESCRIPTOR.fields_by_name.get(game)
        self.is_typed = view_field is not None and action_field is not None
        """False for a game without messages in the proto (OpenSpiel's): JSON only, the typed
        view and actions are sent empty and bots answer by index or JSON."""
        self._actions: dict[Hashable, tuple[str, common_pb2.GameAction]] = {}
        if view_field is None or action_field is None:
            self._view: Convert = _identity
            self._kinds: dict[str, Convert] = {}
            return
        compiler = _Compiler()
        self._view = compiler.message(message_type(view_field))
        self._kinds = {
            f.name: compiler.message(message_type(f))
            for f in message_type(action_field).fields
            if f.type == FieldDescriptor.TYPE_MESSAGE
        }

    def view(self, view: Wire) -> common_pb2.GameView:
        """The typed `GameView` of an engine view in its JSON form; a misfit raises `WireError`."""
        if not self.is_typed:
            return common_pb2.GameView()
        try:
            return common_pb2.GameView(**{self.game: self._view(view)})
        except (_Mismatch, TypeError, ValueError, KeyError):
            return wire.view_message(self.game, view)

    def action_message(self, dumped: Wire) -> common_pb2.GameAction:
        """The typed `GameAction` of an engine action in its JSON form `{"type": T, ...}`."""
        if not self.is_typed:
            return common_pb2.GameAction()
        try:
            kind = dumped["type"]
            rest = {k: v for k, v in dumped.items() if k != "type"}
            # upb takes a dict where a sub-message goes; the generated stubs only allow messages.
            typed: dict[str, Any] = {self.game: {kind: self._kinds[kind](rest)}}
            return common_pb2.GameAction(**typed)
        except (_Mismatch, TypeError, ValueError, KeyError, AttributeError):
            return wire.action_message(self.game, dumped)

    def action(
        self, action: Hashable, dump: Callable[[Any], Wire]
    ) -> tuple[str, common_pb2.GameAction]:
        """(JSON text, typed message) of an engine action, encoded once per distinct action.

        The message is shared: callers copy it into their request (as protobuf does on append).
        """
        try:
            found = self._actions.get(action)
        except TypeError:  # an unhashable action is encoded every time
            dumped = dump(action)
            return compact(dumped), self.action_message(dumped)
        if found is None:
            dumped = dump(action)
            found = (compact(dumped), self.action_message(dumped))
            if len(self._actions) >= ACTION_TABLE_LIMIT:
                self._actions.clear()
            self._actions[action] = found
        return found


_ENCODERS: dict[str, Encoder] = {}


def encoder(game: str) -> Encoder:
    """The compiled encoder of `game`, built on first use."""
    found = _ENCODERS.get(game)
    if found is None:
        found = _ENCODERS[game] = Encoder(game)
    return found

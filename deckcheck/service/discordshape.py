"""The shape of an interaction Discord posts: the fields deckcheck reads and the JSON type each must have,
checked before any of them is used (a malformed interaction is a 400 naming the field, never a 500)."""

from __future__ import annotations

from typing import Any

from .discordcommands import APPLICATION_COMMAND

_OBJECT, _LIST, _TEXT = dict, list, str
#: the fields the endpoint reads, and what each must be when present (None is always allowed)
_SHAPE = {
    "member": _OBJECT,
    "member.user": _OBJECT,
    "user": _OBJECT,
    "data": _OBJECT,
    "data.name": _TEXT,
    "data.custom_id": _TEXT,
    "data.options": _LIST,
    "data.components": _LIST,
    "data.resolved": _OBJECT,
    "data.resolved.messages": _OBJECT,
}


def malformed(interaction: dict) -> str | None:
    """The first field of ``interaction`` of the wrong JSON type (e.g. "data is not an object"), or None."""
    for path, kind in _SHAPE.items():
        value: Any = interaction
        parent: Any = None
        for part in path.split("."):
            parent = value
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None and not isinstance(value, kind) and isinstance(parent, dict):
            name = {dict: "an object", list: "a list", str: "a string"}[kind]
            return f"{path} is not {name}"
    data = interaction.get("data")
    # Discord always sends a command's name and a modal's custom_id
    required = "name" if interaction.get("type") == APPLICATION_COMMAND else "custom_id"
    if data is None:
        return "data is missing"
    if not isinstance(data.get(required), str):
        return f"data.{required} is missing"
    for option in data.get("options") or []:
        if not isinstance(option, dict) or not isinstance(option.get("name", ""), str):
            return "data.options holds something that is not an option object"
    messages = (data.get("resolved") or {}).get("messages") or {}
    for message_ in messages.values():
        if not isinstance(message_, dict) or not isinstance(message_.get("content") or "", str):
            return "data.resolved.messages holds something that is not a message object"
    return None

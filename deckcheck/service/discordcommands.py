"""What deckcheck registers with Discord and sends it as data (Discord API v10): the values of its
interaction, response and component types, its length limits, the ``/decklist`` and "Check decklist"
commands (``python -m deckcheck.service.discord`` prints them), and the form to paste a list into."""

from __future__ import annotations

from ..formats import default_formats

# interaction types, response types, flags (Discord API v10)
PING, APPLICATION_COMMAND, MODAL_SUBMIT = 1, 2, 5
PONG, CHANNEL_MESSAGE, MODAL = 1, 4, 9
EPHEMERAL = 64
CHAT_INPUT, MESSAGE_COMMAND = 1, 3
STRING_OPTION = 3
ACTION_ROW, TEXT_INPUT, PARAGRAPH = 1, 4, 2

COMMAND = "decklist"
MESSAGE_COMMAND_NAME = "Check decklist"
MODAL_ID = "decklist"
LIST_INPUT = "list"
#: Discord's limits: a string option's value, a text input's value, a message's content (with Nitro); a
#: longer text is no Discord client's, and is refused before any work on it
MAX_OPTION_LENGTH = 6000
MAX_INPUT_LENGTH = 4000
MAX_MESSAGE_LENGTH = 4000


def commands() -> list[dict]:
    """The application commands to register with Discord (``PUT /applications/<id>/commands``)."""
    formats = default_formats()
    return [
        {
            "name": COMMAND,
            "type": CHAT_INPUT,
            "description": "Check a Pokémon TCG decklist against a format's rules",
            "options": [
                {
                    "type": STRING_OPTION,
                    "name": "list",
                    "required": False,
                    "max_length": MAX_OPTION_LENGTH,
                    "description": "The decklist (PTCGL/PTCGO export). Leave it out to paste the list in a form.",
                },
                {
                    "type": STRING_OPTION,
                    "name": "format",
                    "required": False,
                    "description": "Format to check against (default: Standard)",
                    "choices": [{"name": formats[f].name, "value": f} for f in sorted(formats)][:25],
                },
                {
                    "type": STRING_OPTION,
                    "name": "date",
                    "required": False,
                    "min_length": 10,
                    "max_length": 10,
                    "description": "Check legality on this date, YYYY-MM-DD (default: today)",
                },
                {
                    "type": STRING_OPTION,
                    "name": "message",
                    "required": False,
                    "description": f"A message link: use the “{MESSAGE_COMMAND_NAME}” message command instead",
                },
            ],
        },
        {"name": MESSAGE_COMMAND_NAME, "type": MESSAGE_COMMAND},
    ]


def modal(fmt: str | None, date: str | None) -> dict:
    """A form with a multi-line box: the way to paste a list with its line breaks."""
    return {
        "type": MODAL,
        "data": {
            "custom_id": f"{MODAL_ID}|{fmt or ''}|{date or ''}",
            "title": "Check a decklist",
            "components": [
                {
                    "type": ACTION_ROW,
                    "components": [
                        {
                            "type": TEXT_INPUT,
                            "custom_id": LIST_INPUT,
                            "style": PARAGRAPH,
                            "label": "Decklist (PTCGL or PTCGO export)",
                            "placeholder": "Pokémon: 12\n4 Dreepy TWM 128\n…",
                            "min_length": 1,
                            "max_length": MAX_INPUT_LENGTH,
                            "required": True,
                        }
                    ],
                }
            ],
        },
    }


def find_input(components, custom_id: str) -> str | None:
    """The value of the text input ``custom_id`` in a modal submission (action rows or labels)."""
    for component in components or []:
        if not isinstance(component, dict):
            continue
        if component.get("custom_id") == custom_id and isinstance(component.get("value"), str):
            return component["value"]
        nested = component.get("components") or ([component["component"]] if component.get("component") else [])
        found = find_input(nested, custom_id)
        if found is not None:
            return found
    return None

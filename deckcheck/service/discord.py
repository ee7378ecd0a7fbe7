"""The Discord interactions endpoint: ``POST /api/v1/discord/interactions``.

Discord posts every interaction with the application here, signed with Ed25519;
the request is verified with the application's public key
(``DISCORD_PUBLIC_KEY``, hex, from the Developer Portal) over
``X-Signature-Timestamp`` + the raw body. A missing or bad signature, or a
timestamp more than ``DISCORD_MAX_AGE`` seconds (300) from the server's clock, is
a 401 in the error envelope. Without ``DISCORD_PUBLIC_KEY`` the endpoint answers
503 (``service_unavailable``) saying so.

Commands (see :func:`commands`; ``python -m deckcheck.service.discord`` prints them for
registration):

* ``/decklist list:<text> format:<choice> date:<YYYY-MM-DD>``: an embed built from
  the chat reply (:mod:`deckcheck.chat`). Without ``list`` it opens a form (a
  modal with a multi-line box) to paste the list into. A list that arrives on one
  line (older Discord clients turn line breaks into spaces) is split back into
  card lines before the same check.
* ``/decklist message:<link>``: an application with no bot token cannot read
  messages, so this answers (only to the user) how to check a message instead:
* the message command "Check decklist" (right-click a message, Apps): Discord sends
  the message's text with the interaction, so no token is needed.

Input problems (unknown format, bad date, empty or oversized list, a user
checking more than ``DISCORD_RATELIMIT`` decks, default "10 per minute") are
answered with an ephemeral message (only the user sees it). The endpoint is not
under the API's per-address rate limit: Discord calls from few addresses, so the
limit is per Discord user instead.

The parts: :mod:`deckcheck.service.discordsig` (signatures), :mod:`deckcheck.service.discordshape` (the
interaction's shape), :mod:`deckcheck.service.discordcommands` (the commands and the form, as Discord's API
describes them); this module answers.
"""

from __future__ import annotations

import json
import re
import sys

from flask import Blueprint, current_app, jsonify, request

from .. import chat
from ..dates import parse_date
from ..decklist.limits import decklist_limit
from ..decklist.validtext import not_unicode
from ..engine import check
from ..formats import default_formats
from ..patterns import Pattern
from ..version import __version__
from ..wording import plural
from . import errors, ratelimit
from .discordcommands import (
    APPLICATION_COMMAND,
    CHANNEL_MESSAGE,
    CHAT_INPUT,
    COMMAND,
    EPHEMERAL,
    LIST_INPUT,
    MAX_INPUT_LENGTH,
    MAX_MESSAGE_LENGTH,
    MAX_OPTION_LENGTH,
    MESSAGE_COMMAND,
    MESSAGE_COMMAND_NAME,
    MODAL_ID,
    MODAL_SUBMIT,
    PING,
    PONG,
    commands,
    find_input,
    modal,
)
from .discordshape import malformed
from .discordsig import MAX_SIGNATURE_AGE, verify, verify_key
from .jsonbody import BodyError, read_json
from .paths import API_PREFIX
from .rawbody import read_body

#: what others read here: the tests, and ``python -m deckcheck.service.discord``
__all__ = [
    "APPLICATION_COMMAND",
    "CHAT_INPUT",
    "MAX_INPUT_LENGTH",
    "MAX_OPTION_LENGTH",
    "MESSAGE_COMMAND",
    "MESSAGE_COMMAND_NAME",
    "MODAL_SUBMIT",
    "bp",
    "commands",
    "main",
    "verify",
]

bp = Blueprint("discord", __name__, url_prefix=API_PREFIX + "/discord")

GREEN, RED = 0x2ECC71, 0xE74C3C
#: longest share link used as the embed's title link
MAX_EMBED_URL = 2048

NOT_CONFIGURED = (
    "Discord interactions are not set up on this server: set DECKCHECK_DISCORD_PUBLIC_KEY to the "
    "application's public key (Discord Developer Portal, General Information)."
)
MESSAGE_LINK_HELP = (
    "I can't open message links: Discord only lets a bot with a token read messages, and this "
    "service has none. Right-click the message (long-press on mobile), choose Apps, then "
    f"“{MESSAGE_COMMAND_NAME}”; or run /decklist without options and paste the list."
)


@bp.record_once
def _check_key(state) -> None:
    """A malformed DISCORD_PUBLIC_KEY or DISCORD_MAX_AGE stops the app at start-up, not at Discord's first call."""
    key = state.app.config.get("DISCORD_PUBLIC_KEY")
    if key:
        verify_key(str(key))
    age = state.app.config["DISCORD_MAX_AGE"]
    if isinstance(age, bool) or not isinstance(age, (int, float)) or not 1 <= age <= MAX_SIGNATURE_AGE:
        raise ValueError(
            f"DISCORD_MAX_AGE (DECKCHECK_DISCORD_MAX_AGE) must be a number of seconds from 1 to {MAX_SIGNATURE_AGE:,}, "
            f"not {str(age)[:40]!r}"
        )
    ratelimit._check_limit("DISCORD_RATELIMIT", state.app.config["DISCORD_RATELIMIT"])


# -- answers ----------------------------------------------------------------------


def message(text: str, ephemeral: bool = True) -> dict:
    data: dict[str, object] = {"content": chat.truncate(text, chat.LIMIT), "allowed_mentions": {"parse": []}}
    if ephemeral:
        data["flags"] = EPHEMERAL
    return {"type": CHANNEL_MESSAGE, "data": data}


#: The characters Discord's markdown reads as markup.
_MARKDOWN = Pattern(r"([\\*_~`|>\[\]])")


#: A list inside a ```code block```.
_FENCE = Pattern(r"^\s*```[^\n]*\n(.*?)\n?```\s*$", re.S)


def escape_markdown(text: str) -> str:
    """User text (quoted in problem messages) shown as typed, not as Discord markdown."""
    return _MARKDOWN.sub(r"\\\1", text)


_HEADER = r"(?:Pok[ée]mon|Trainers?|Energy)\s*(?::\s*\d+|\(\d+\))"
_CARD_END = r"\b[A-Z][A-Z0-9]{1,4}(?:-[A-Z0-9]{1,4})?\s+[A-Za-z]{0,4}\d{1,4}[a-z]?(?:\s+PH)?"


def strip_code_block(text: str) -> str:
    """The list inside a ```code block```, as lists are often posted."""
    found = _FENCE.match(text)
    return found.group(1) if found else text


def unflatten(text: str) -> str:
    """A list pasted on one line (line breaks turned into spaces) split back into its lines.

    Only a text without any line break is touched: a break goes before and after
    each section header ("Pokémon: 12", "Trainer (36)") and after each "<SET> <number>" (and a
    trailing "PH") that is followed by the next card's count.
    """
    if "\n" in text or "\r" in text:
        return text
    out = re.sub(rf"(?<!\s)\s+(?=(?:{_HEADER}|Total Cards\s*:))", "\n", text.strip())
    out = re.sub(rf"({_HEADER})\s+(?=\d)", r"\1\n", out)
    return re.sub(rf"({_CARD_END})\s+(?=\d{{1,2}}\s+\S)", r"\1\n", out)


def _user_id(interaction: dict) -> str:
    user = (interaction.get("member") or {}).get("user") or interaction.get("user") or {}
    return str(user.get("id") or "unknown")


def _read_options(fmt, date) -> tuple[str | None, str | None, str | None]:
    """(format, date, complaint): the command's format and date checked like the API checks them."""
    formats = default_formats()
    if fmt is not None and (not isinstance(fmt, str) or fmt not in formats):
        return (
            None,
            None,
            (
                f"“{str(fmt)[:40]}” is not a format this service knows. "
                f"Choose one of: {', '.join(formats[f].name for f in sorted(formats))}."
            ),
        )
    if date:
        try:
            date = parse_date(str(date)).isoformat()
        except ValueError:
            return None, None, f"“{str(date)[:40]}” is not a date: write it as YYYY-MM-DD, e.g. 2026-05-01."
    return fmt or None, date or None, None


def embed(text: str, report) -> dict:
    """The verdict as the title, the problems (cut to fit, with the full-result link) as the description."""
    base = current_app.config["PUBLIC_URL"]  # never the request's Host: without PUBLIC_URL, no link
    link = chat.link_for(base, text, report) if base else None
    result = {
        "title": chat.truncate(chat.verdict(report), chat.EMBED_TITLE_LIMIT),
        "color": GREEN if report.valid else RED,
        "footer": {
            "text": f"deckcheck {__version__} · {report.counts.total} cards · {report.format_name} on {report.as_of}"
        },
    }
    description = chat.body(report, link, chat.EMBED_DESCRIPTION_LIMIT, escape=escape_markdown)
    if description:
        result["description"] = description
    if base and link and link != base + "/" and len(link) <= MAX_EMBED_URL:
        result["url"] = link
    return result


def admitted(interaction: dict) -> dict | None:
    """The ephemeral "too fast" note when the user is over ``DISCORD_RATELIMIT``, else None (the check
    counted). Asked before any work on the user's text: a limited user costs a counter, nothing more."""
    config = current_app.config
    wait = ratelimit.hit(config["DISCORD_RATELIMIT"], "discord", _user_id(interaction))
    if wait is None:
        return None
    return message(
        f"You are checking decks faster than this service allows "
        f"({config['DISCORD_RATELIMIT']}): try again in {plural(wait, 'second')}."
    )


def too_long(text: str, limit: int, what: str) -> dict | None:
    """The ephemeral note for a text longer than Discord lets ``what`` be (a request not made by Discord's
    client), else None: a bound before any work on the text."""
    if len(text) <= limit:
        return None
    return message(f"The {what} is {len(text):,} characters long; Discord allows at most {limit:,}.")


def answer(text: str, fmt: str | None, date: str | None, interaction: dict) -> dict:
    """Check ``text`` and answer with the embed; input problems get an ephemeral note. The caller has
    asked :func:`admitted` already."""
    config = current_app.config
    fault = not_unicode(text)
    if fault is not None:
        return message(f"This decklist is not valid Unicode text. {escape_markdown(fault.message)}")
    if not text.strip():
        return message("There is no decklist to check: paste the list, one card per line, like “4 Nest Ball SVI 181”.")
    over = decklist_limit(text, config["MAX_DECKLIST_BYTES"], config["MAX_DECKLIST_LINES"])
    if over is not None:
        verb = "is" if over.unit == "bytes" else "has"
        return message(f"This decklist {verb} {over.measured}; this service checks at most {over.limit:,}.")
    report = check(text, fmt or config["DEFAULT_FORMAT"], date, max_db_age=config.get("MAX_DB_AGE"))
    return {"type": CHANNEL_MESSAGE, "data": {"embeds": [embed(text, report)], "allowed_mentions": {"parse": []}}}


def _is_message_command(data: dict) -> bool:
    return data.get("type") == MESSAGE_COMMAND or data.get("name") == MESSAGE_COMMAND_NAME


def _message_content(data: dict):
    """The text of the message a message command was run on ("" when there is none)."""
    target = ((data.get("resolved") or {}).get("messages") or {}).get(str(data.get("target_id"))) or {}
    return target.get("content") or ""


def _options(data: dict) -> dict:
    return {o.get("name"): o.get("value") for o in data.get("options") or [] if isinstance(o, dict)}


def _option_list(listed: str) -> str:
    """The decklist the ``list`` option holds: out of its code block, a one-line list split back into lines."""
    return unflatten(strip_code_block(listed))


def decklist_of(interaction: dict) -> str | None:
    """The decklist an interaction asks to check, as :func:`answer` gets it (the list option, the form's box,
    the message's text), or None when it carries none or is malformed."""
    try:
        data = interaction.get("data") or {}
        if interaction.get("type") == MODAL_SUBMIT:
            return strip_code_block(find_input(data.get("components"), LIST_INPUT) or "")
        if _is_message_command(data):
            content = _message_content(data)
            return strip_code_block(content) if isinstance(content, str) else None
        listed = _options(data).get("list")
        return _option_list(listed) if isinstance(listed, str) else None
    except (AttributeError, TypeError, KeyError, RecursionError):  # a shape malformed() would refuse
        return None


def not_unicode_reply(body: bytes, refused: BodyError) -> dict:
    """The reply to a signed interaction holding a lone surrogate: when it is in the decklist, the line and
    column of the list (as a list typed with it gets from :func:`answer`), else where it is in the interaction.

    The strict reader refused the body; Python's own reader takes a lone surrogate escape, so the list is
    read with it only to say where."""
    try:
        interaction = json.loads(body.decode("utf-8").removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        interaction = None
    text = decklist_of(interaction) if isinstance(interaction, dict) else None
    fault = not_unicode(text) if text is not None else None
    if fault is None:
        return message(escape_markdown(refused.message))
    return message(f"This decklist is not valid Unicode text. {escape_markdown(fault.message)}")


def on_command(interaction: dict) -> dict:
    data = interaction.get("data") or {}
    if _is_message_command(data):
        content = _message_content(data)
        if not content.strip():
            return message(
                "That message has no text to check (a list in an attached file or an image cannot be "
                "read): paste the list with /decklist."
            )
        refused = too_long(content, MAX_MESSAGE_LENGTH, "message") or admitted(interaction)
        return refused or answer(strip_code_block(content), None, None, interaction)
    if data.get("name") != COMMAND:
        return message(f"This application has no command “{str(data.get('name'))[:40]}”: use /{COMMAND}.")
    options = _options(data)
    fmt, date, complaint = _read_options(options.get("format"), options.get("date"))
    if complaint:
        return message(complaint)
    listed = options.get("list")
    if isinstance(listed, str) and listed.strip():
        refused = too_long(listed, MAX_OPTION_LENGTH, "list option") or admitted(interaction)
        return refused or answer(_option_list(listed), fmt, date, interaction)
    if options.get("message"):
        return message(MESSAGE_LINK_HELP)
    return modal(fmt, date)


def on_modal_submit(interaction: dict) -> dict:
    data = interaction.get("data") or {}
    kind, _, rest = str(data.get("custom_id") or "").partition("|")
    if kind != MODAL_ID:
        return message("This form does not belong to deckcheck.")
    fmt_id, _, day = rest.partition("|")
    fmt, date, complaint = _read_options(fmt_id or None, day or None)
    if complaint:
        return message(complaint)
    text = find_input(data.get("components"), LIST_INPUT) or ""
    refused = too_long(text, MAX_INPUT_LENGTH, "decklist box") or admitted(interaction)
    return refused or answer(strip_code_block(text), fmt, date, interaction)


@bp.route("/interactions", methods=["POST"])
def interactions():
    """Discord's interactions endpoint (set as the application's Interactions Endpoint URL)."""
    config = current_app.config
    public_key = config.get("DISCORD_PUBLIC_KEY")
    if not public_key:
        return errors.envelope(503, NOT_CONFIGURED)
    body = read_body(request)  # within the body limit, chunked or not
    reason = verify(
        str(public_key),
        request.headers.get("X-Signature-Ed25519"),
        request.headers.get("X-Signature-Timestamp"),
        body,
        max_age=float(config["DISCORD_MAX_AGE"]),
    )
    if reason:
        return errors.envelope(401, reason, {}, name="Unauthorized")
    max_age = float(config["DISCORD_MAX_AGE"])
    # a signature is good for max_age either side of the server's clock: remember it that long, twice
    if not ratelimit.first_use(
        "discord-signature", request.headers["X-Signature-Ed25519"].strip().lower(), 2 * max_age
    ):
        return errors.envelope(401, "This signed request was already received: a replay.", {}, name="Unauthorized")
    try:
        interaction = read_json(body, "interaction")
    except BodyError as exc:
        if exc.status == 422:  # signed, but a text in it is not Unicode: tell the user why nothing was checked
            return jsonify(not_unicode_reply(body, exc))
        return errors.envelope(exc.status, exc.message, exc.details)
    if not isinstance(interaction, dict):
        return errors.envelope(400, "The interaction is not a JSON object.")
    kind = interaction.get("type")
    if kind == PING:
        return jsonify(type=PONG)
    if kind not in (APPLICATION_COMMAND, MODAL_SUBMIT):
        return errors.envelope(
            400,
            f"Interactions of type {str(kind)[:20]!r} are not handled here.",
            {"type": kind if isinstance(kind, str) or (isinstance(kind, int) and abs(kind) < 2**53) else None},
        )
    problem = malformed(interaction)
    if problem:
        return errors.envelope(400, f"The interaction is malformed: {problem}.", {"field": problem.split()[0]})
    try:
        answer = on_command(interaction) if kind == APPLICATION_COMMAND else on_modal_submit(interaction)
    except (AttributeError, TypeError, KeyError) as exc:  # a shape malformed() does not know yet
        current_app.logger.warning("malformed Discord interaction: %r", exc)
        return errors.envelope(400, "The interaction is malformed.")
    return jsonify(answer)


def main() -> int:
    """``python -m deckcheck.service.discord``: print the command definitions to register, as JSON."""
    json.dump(commands(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

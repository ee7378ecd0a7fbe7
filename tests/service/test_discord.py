"""The Discord interactions endpoint (deckcheck/service/discord.py): signatures, PING, /decklist, forms,
message command.

Every request is signed in the test with a freshly generated Ed25519 key pair,
as Discord signs them; tampered bodies, wrong keys and replayed timestamps are
refused. One test runs against a real gunicorn configured through the environment.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

import pytest
import requests
from conftest import start_gunicorn
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

import deckcheck
from deckcheck import chat, check, create_app
from deckcheck.formats import default_formats
from deckcheck.service import discord, web

DECKS = Path(__file__).resolve().parent.parent / "decks"
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
URL = "/api/v1/discord/interactions"
BASE = "https://deckcheck.example"
SIGNING = SigningKey.generate()
PUBLIC = SIGNING.verify_key.encode().hex()


def signed(body: bytes, timestamp: str | None = None, key: SigningKey = SIGNING) -> dict:
    timestamp = str(int(time.time())) if timestamp is None else timestamp
    return {
        "X-Signature-Ed25519": key.sign(timestamp.encode() + body).signature.hex(),
        "X-Signature-Timestamp": timestamp,
        "Content-Type": "application/json",
    }


def encode(interaction: dict) -> bytes:
    return json.dumps(interaction).encode()


@pytest.fixture()
def app():
    return create_app({"TESTING": True, "DISCORD_PUBLIC_KEY": PUBLIC, "PUBLIC_URL": BASE})


@pytest.fixture()
def post(app):
    client = app.test_client()

    def send(interaction: dict, headers: dict | None = None):
        body = encode(interaction)
        return client.post(URL, data=body, headers=headers or signed(body), base_url=BASE)

    return send


#: every interaction Discord sends has its own id, so no two signed bodies are the same
IDS = itertools.count(1)


def command(*options: tuple[str, str], user: str = "42") -> dict:
    return {
        "type": discord.APPLICATION_COMMAND,
        "id": str(next(IDS)),
        "token": "t",
        "member": {"user": {"id": user}},
        "data": {
            "id": "9",
            "name": "decklist",
            "type": discord.CHAT_INPUT,
            "options": [{"name": n, "type": 3, "value": v} for n, v in options],
        },
    }


def share(text: str, format_id: str = "standard") -> str:
    with create_app({"TESTING": True}).test_request_context("/"):
        return BASE + web.share_path(text, format_id, DATE)


def ephemeral(text: str) -> dict:
    return {"type": 4, "data": {"content": text, "allowed_mentions": {"parse": []}, "flags": 64}}


# -- signatures ---------------------------------------------------------------------


def test_ping_is_answered_with_pong(post):
    answer = post({"type": 1})
    assert (answer.status_code, answer.get_json()) == (200, {"type": 1})


def unauthorized(message: str) -> dict:
    return {"error": {"code": "unauthorized", "message": message, "details": {}}}


BODY = encode({"type": 1})
NOW = str(int(time.time()))
BAD_SIGNATURES = {
    "missing-both": (
        {"Content-Type": "application/json"},
        BODY,
        "The request is not signed: X-Signature-Ed25519 and X-Signature-Timestamp are required.",
    ),
    "missing-timestamp": (
        {"X-Signature-Ed25519": "ab" * 64},
        BODY,
        "The request is not signed: X-Signature-Ed25519 and X-Signature-Timestamp are required.",
    ),
    "not-hex": (
        {"X-Signature-Ed25519": "zz" * 64, "X-Signature-Timestamp": NOW},
        BODY,
        "X-Signature-Ed25519 is not an Ed25519 signature (128 hexadecimal characters).",
    ),
    "too-short": (
        {"X-Signature-Ed25519": "ab" * 10, "X-Signature-Timestamp": NOW},
        BODY,
        "X-Signature-Ed25519 is not an Ed25519 signature (128 hexadecimal characters).",
    ),
    "tampered-body": (
        signed(BODY, NOW),
        encode({"type": 2}),
        "The signature does not match the request's timestamp and body.",
    ),
    "tampered-timestamp": (
        {**signed(BODY, NOW), "X-Signature-Timestamp": str(int(NOW) + 1)},
        BODY,
        "The signature does not match the request's timestamp and body.",
    ),
    "another-key": (
        signed(BODY, NOW, SigningKey.generate()),
        BODY,
        "The signature does not match the request's timestamp and body.",
    ),
    "not-a-time": (signed(BODY, "yesterday"), BODY, "X-Signature-Timestamp is not a Unix time in seconds."),
}


@pytest.mark.parametrize("case", sorted(BAD_SIGNATURES))
def test_bad_or_missing_signatures_are_401_in_the_envelope(app, case):
    headers, body, message = BAD_SIGNATURES[case]
    answer = app.test_client().post(URL, data=body, headers=headers)
    assert (answer.status_code, answer.get_json()) == (401, unauthorized(message))
    assert answer.headers["X-Deckcheck-Version"] == deckcheck.__version__


@pytest.mark.parametrize(
    ("shift", "words"), [(-301, "301 seconds old"), (-3600, "3600 seconds old"), (400, "400 seconds in the future")]
)
def test_replayed_or_delayed_timestamps_are_refused(app, shift, words):
    stale = str(int(time.time()) + shift)
    answer = app.test_client().post(URL, data=BODY, headers=signed(BODY, stale))
    assert answer.status_code == 401
    message = answer.get_json()["error"]["message"]
    assert message.startswith("The request's timestamp is ") and message.endswith(
        "(at most 300 allowed): a replayed or delayed request."
    )
    assert abs(int(message.split()[4]) - abs(shift)) <= 2 and words.split()[-1] in message


def test_verify_is_a_pure_function():
    body, ts = b'{"type":1}', "1700000000"
    sig = SIGNING.sign(ts.encode() + body).signature.hex()
    assert discord.verify(PUBLIC, sig, ts, body, now=1700000000 + 299) is None
    assert "replayed" in discord.verify(PUBLIC, sig, ts, body, now=1700000000 + 301)
    assert discord.verify(PUBLIC, sig.upper(), ts, body, now=1700000000) is None


def test_without_a_public_key_the_endpoint_is_503_and_says_what_to_set():
    answer = create_app({"TESTING": True}).test_client().post(URL, data=BODY, headers=signed(BODY))
    assert (answer.status_code, answer.get_json()) == (
        503,
        {"error": {"code": "service_unavailable", "message": discord.NOT_CONFIGURED, "details": {}}},
    )


def test_a_malformed_public_key_stops_the_app_at_start_up():
    with pytest.raises(ValueError, match="DISCORD_PUBLIC_KEY must be the application's public key"):
        create_app({"TESTING": True, "DISCORD_PUBLIC_KEY": "not-a-key"})


def test_signed_bodies_that_are_not_interactions_are_400(post, app):
    body = b"[1, 2]"
    answer = app.test_client().post(URL, data=body, headers=signed(body))
    assert (answer.status_code, answer.get_json()["error"]["message"]) == (400, "The interaction is not a JSON object.")
    answer = post({"type": 3})
    assert answer.status_code == 400 and answer.get_json()["error"]["details"] == {"type": 3}


# -- /decklist ---------------------------------------------------------------------------


def test_a_legal_list_gets_a_green_embed(post):
    answer = post(command(("list", LEGAL), ("format", "standard"), ("date", DATE)))
    assert answer.status_code == 200
    assert answer.get_json() == {
        "type": 4,
        "data": {
            "allowed_mentions": {"parse": []},
            "embeds": [
                {
                    "title": "✅ Valid for Standard on 2026-05-01 (60 cards).",
                    "color": discord.GREEN,
                    "url": share(LEGAL),
                    "footer": {"text": f"deckcheck {deckcheck.__version__} · 60 cards · Standard on 2026-05-01"},
                }
            ],
        },
    }


def test_an_illegal_list_gets_a_red_embed_built_from_the_chat_reply(post):
    embed = post(command(("list", CHARIZARD), ("date", DATE))).get_json()["data"]["embeds"][0]
    result = check(CHARIZARD, "standard", DATE)
    assert embed["title"] == chat.verdict(result)
    assert embed["title"].startswith("❌ Not valid for Standard on 2026-05-01: ")
    assert embed["color"] == discord.RED
    assert embed["description"] == chat.body(result, share(CHARIZARD), 4096, escape=discord.escape_markdown)
    assert embed["description"].split("\n") == [chat.problem_line(p) for p in result.problems]  # all fit
    assert len(embed["description"]) <= 4096 and len(embed["title"]) <= 256


def test_a_long_result_is_cut_to_the_embed_limit_with_the_link(post):
    text = "".join(f"1 Not A Card Number {i}\n" for i in range(1, 200))
    embed = post(command(("list", text), ("date", DATE))).get_json()["data"]["embeds"][0]
    assert chat.length(embed["description"]) <= 4096
    assert embed["description"].endswith("more problems: " + embed.get("url", BASE + "/"))


def test_a_list_flattened_onto_one_line_is_split_back(post):
    flat = " ".join(LEGAL.split())
    embed = post(command(("list", flat), ("date", DATE))).get_json()["data"]["embeds"][0]
    assert embed["title"] == "✅ Valid for Standard on 2026-05-01 (60 cards)."


def test_unflatten():
    assert discord.unflatten("Pokémon: 2 1 Pikachu ex SSP 57 1 Mimikyu PAL 97 PH Trainer (1) 1 Iono PAL 185") == (
        "Pokémon: 2\n1 Pikachu ex SSP 57\n1 Mimikyu PAL 97 PH\nTrainer (1)\n1 Iono PAL 185"
    )
    assert discord.unflatten("4 Nest Ball SVI 181\n4 Iono") == "4 Nest Ball SVI 181\n4 Iono"  # has breaks: untouched


def test_a_list_in_a_code_block_is_read(post):
    embed = post(command(("list", f"```\n{LEGAL}```"), ("date", DATE))).get_json()["data"]["embeds"][0]
    assert embed["title"].startswith("✅")


def test_user_text_is_shown_literally_and_pings_no_one(post):
    answer = post(command(("list", "4 Nest Ball SVI 181\n*bold* ~~x~~ @everyone\n"), ("date", DATE))).get_json()
    assert answer["data"]["allowed_mentions"] == {"parse": []}
    assert (
        '• line 2 (warning): Line 2 is not a card line or a section header: "\\*bold\\* \\~\\~x\\~\\~ @everyone".'
        in answer["data"]["embeds"][0]["description"].split("\n")
    )


@pytest.mark.parametrize(
    ("options", "text"),
    [
        (
            (("list", LEGAL), ("date", "01/05/2026")),
            "“01/05/2026” is not a date: write it as YYYY-MM-DD, e.g. 2026-05-01.",
        ),
        (
            (("list", LEGAL), ("format", "modified")),
            "“modified” is not a format this service knows. Choose one of: "
            + ", ".join(default_formats()[f].name for f in sorted(default_formats()))
            + ".",
        ),
        ((("message", "https://discord.com/channels/1/2/3"),), discord.MESSAGE_LINK_HELP),
        ((("list", "x" * 6001),), "The list option is 6,001 characters long; Discord allows at most 6,000."),
        ((("list", "x\n" * 1001),), "This decklist has 1,001 lines; this service checks at most 1,000."),
    ],
)
def test_input_problems_are_answered_only_to_the_user(post, options, text):
    assert post(command(*options)).get_json() == ephemeral(text)


def test_without_a_list_a_form_opens_and_its_submission_is_checked(post):
    form = post(command(("format", "glc"), ("date", DATE))).get_json()
    assert form["type"] == 9
    assert form["data"]["custom_id"] == "decklist|glc|2026-05-01"
    box = form["data"]["components"][0]["components"][0]
    assert (box["type"], box["style"], box["custom_id"], box["max_length"]) == (4, 2, "list", 4000)
    assert len(form["data"]["title"]) <= 45 and len(box["label"]) <= 45 and len(box["placeholder"]) <= 100

    submitted = {
        "type": discord.MODAL_SUBMIT,
        "member": {"user": {"id": "42"}},
        "data": {
            "custom_id": form["data"]["custom_id"],
            "components": [{"type": 1, "components": [{"type": 4, "custom_id": "list", "value": LEGAL}]}],
        },
    }
    embed = post(submitted).get_json()["data"]["embeds"][0]
    assert embed["title"] == chat.verdict(check(LEGAL, "glc", DATE))
    assert embed["url"] == share(LEGAL, "glc")
    # newer modals wrap the text input in a label component
    submitted["data"]["components"] = [{"type": 18, "component": {"type": 4, "custom_id": "list", "value": LEGAL}}]
    assert post(submitted).get_json()["data"]["embeds"][0] == embed


def test_the_message_command_checks_the_message_it_is_used_on(post):
    def used_on(content: str) -> dict:
        return {
            "type": 2,
            "user": {"id": "7"},
            "data": {
                "name": discord.MESSAGE_COMMAND_NAME,
                "type": discord.MESSAGE_COMMAND,
                "target_id": "555",
                "resolved": {"messages": {"555": {"id": "555", "content": content}}},
            },
        }

    embed = post(used_on(f"my list:\n```\n{CHARIZARD}```")).get_json()
    assert embed["data"]["embeds"][0]["title"].startswith("❌ Not valid for Standard on ")
    assert post(used_on("")).get_json() == ephemeral(
        "That message has no text to check (a list in an attached file or an image cannot be read): "
        "paste the list with /decklist."
    )


def test_each_discord_user_has_a_limit_and_the_api_address_limit_does_not_apply():
    app = create_app(
        {
            "TESTING": True,
            "DISCORD_PUBLIC_KEY": PUBLIC,
            "DISCORD_RATELIMIT": "2 per minute",
            "RATELIMIT_DEFAULT": "1 per minute",
        }
    )
    client = app.test_client()

    def send(interaction):
        body = encode(interaction)
        return client.post(URL, data=body, headers=signed(body))

    answers = [send(command(("list", LEGAL), ("date", DATE), user="1")) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [("embeds" in a.get_json()["data"]) for a in answers] == [True, True, False]
    note = answers[2].get_json()
    assert note["data"]["flags"] == 64
    assert note["data"]["content"].startswith(
        "You are checking decks faster than this service allows (2 per minute): try again in "
    )
    assert "embeds" in send(command(("list", LEGAL), user="2")).get_json()["data"]
    assert [send({"type": 1, "id": str(next(IDS))}).status_code for _ in range(3)] == [
        200,
        200,
        200,
    ]  # PINGs are never limited
    assert "X-RateLimit-Limit" not in answers[0].headers


# -- hostile input: the work before the check is linear, bounded, and done only for admitted users -------

#: the one-line splitting as it was written first (quadratic on a run of blanks): the reference for what it does
_REFERENCE_HEADER = re.compile(rf"\s+(?=(?:{discord._HEADER}|Total Cards\s*:))")
_REFERENCE_COUNT = re.compile(rf"({discord._HEADER})\s+(?=\d)")
_REFERENCE_CARD = re.compile(rf"({discord._CARD_END})\s+(?=\d{{1,2}}\s+\S)")


def reference_unflatten(text: str) -> str:
    if "\n" in text or "\r" in text:
        return text
    out = _REFERENCE_HEADER.sub("\n", text.strip())
    out = _REFERENCE_COUNT.sub(r"\1\n", out)
    return _REFERENCE_CARD.sub(r"\1\n", out)


FLAT_PIECES = st.sampled_from(
    [
        " ",
        "  ",
        "\t",
        "\u3000",
        "4",
        "12",
        "Pokémon: 12",
        "Trainer (3)",
        "Energy:",
        "Total Cards: 60",
        "SVI",
        "PR-SV",
        "181",
        "a",
        "PH",
        "Nest Ball",
        ":",
        "(",
    ]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pieces=st.lists(FLAT_PIECES, max_size=30))
def test_unflatten_splits_a_list_as_the_reference_does(pieces):
    text = " ".join(pieces)
    assert discord.unflatten(text) == reference_unflatten(text)


def _cost(fn, text: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


#: one-line hostile texts at Discord's limit for the option (6,000 characters): long runs the patterns scan
HOSTILE_FLAT = [
    "a" + " " * (discord.MAX_OPTION_LENGTH - 2) + "a",
    "4 A " + "\t " * (discord.MAX_OPTION_LENGTH // 2 - 3) + "x",
    ("ABC" + " " * 2995 + "1 ") * 2,
    ("Energy:" + " " * 53) * (discord.MAX_OPTION_LENGTH // 60),
    "Pokémon: " + "1" * (discord.MAX_OPTION_LENGTH - 20) + " x",
    ("SVI 1" + " " * 95) * (discord.MAX_OPTION_LENGTH // 100),
    "x" + " \u3000" * (discord.MAX_OPTION_LENGTH // 2 - 1),
]


@pytest.mark.parametrize("text", HOSTILE_FLAT, ids=range(len(HOSTILE_FLAT)))
def test_unflatten_is_linear_at_the_option_limit(text):
    """A run of 6,000 blanks took 0.4 s (quadratic; 60,000 killed the worker): within 100x of a real list's cost."""
    assert len(text) <= discord.MAX_OPTION_LENGTH
    normal = " ".join(LEGAL.split("\n"))
    normal = (normal * (len(text) // len(normal) + 1))[: len(text)]
    bound = 100 * max(_cost(discord.unflatten, normal), 1e-4)
    assert _cost(discord.unflatten, text) < bound


@pytest.fixture()
def counted(monkeypatch):
    """How often the work on a list's text ran: unflatten, strip_code_block and the check."""
    calls = {"unflatten": 0, "strip_code_block": 0, "check": 0}
    for name in calls:
        real = getattr(discord, name)

        def wrapper(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(discord, name, wrapper)
    return calls


def test_a_rate_limited_user_costs_no_work_on_the_text(counted):
    app = create_app({"TESTING": True, "DISCORD_PUBLIC_KEY": PUBLIC, "DISCORD_RATELIMIT": "1 per minute"})
    client = app.test_client()
    flat = " ".join(LEGAL.split("\n"))
    for interaction in (command(("list", flat), user="3"), command(("list", flat), user="3")):
        body = encode(interaction)
        client.post(URL, data=body, headers=signed(body))
    assert counted == {"unflatten": 1, "strip_code_block": 1, "check": 1}  # the second: the limit, nothing else
    modal = {
        "type": 5,
        "id": "m",
        "member": {"user": {"id": "3"}},
        "data": {
            "custom_id": "decklist||",
            "components": [{"type": 1, "components": [{"type": 4, "custom_id": "list", "value": LEGAL}]}],
        },
    }
    body = encode(modal)
    note = client.post(URL, data=body, headers=signed(body)).get_json()
    assert note["data"]["content"].startswith("You are checking decks faster than this service allows")
    assert counted == {"unflatten": 1, "strip_code_block": 1, "check": 1}


@pytest.mark.parametrize(
    "interaction, what, limit",
    [
        (command(("list", "a" + " " * 60_000 + "a")), "list option", discord.MAX_OPTION_LENGTH),
        (
            {
                "type": 5,
                "id": "m",
                "member": {"user": {"id": "4"}},
                "data": {
                    "custom_id": "decklist||",
                    "components": [
                        {"type": 1, "components": [{"type": 4, "custom_id": "list", "value": "4 a" * 2000}]}
                    ],
                },
            },
            "decklist box",
            discord.MAX_INPUT_LENGTH,
        ),
    ],
    ids=["option", "form"],
)
def test_a_text_longer_than_discord_allows_is_refused_before_any_work(post, counted, interaction, what, limit):
    answer = post(interaction).get_json()
    size = 60_002 if what == "list option" else 6000
    assert answer == ephemeral(f"The {what} is {size:,} characters long; Discord allows at most {limit:,}.")
    assert counted == {"unflatten": 0, "strip_code_block": 0, "check": 0}


def test_the_commands_to_register(capsys):
    decklist, message_command = discord.commands()
    assert decklist["name"] == "decklist" and message_command == {"name": "Check decklist", "type": 3}
    assert [o["name"] for o in decklist["options"]] == ["list", "format", "date", "message"]
    assert [c["value"] for c in decklist["options"][1]["choices"]] == sorted(default_formats())
    assert all(len(o["description"]) <= 100 for o in decklist["options"]) and len(decklist["description"]) <= 100
    assert discord.main() == 0
    assert json.loads(capsys.readouterr().out) == discord.commands()


# -- over real HTTP -----------------------------------------------------------------------


@pytest.mark.server
def test_under_gunicorn_configured_from_the_environment():
    proc, base = start_gunicorn(
        env={"DECKCHECK_DISCORD_PUBLIC_KEY": PUBLIC, "DECKCHECK_PUBLIC_URL": "https://decks.example.org"}
    )
    try:
        pong = requests.post(base + URL, data=BODY, headers=signed(BODY), timeout=30)
        assert (pong.status_code, pong.json()) == (200, {"type": 1})
        body = encode({"type": 1, "id": "tampered"})
        forged = requests.post(base + URL, data=body, headers=signed(BODY), timeout=30)
        assert (forged.status_code, forged.json()["error"]["code"]) == (401, "unauthorized")
        stale = requests.post(base + URL, data=BODY, headers=signed(BODY, str(int(time.time()) - 600)), timeout=30)
        assert stale.status_code == 401 and "replayed" in stale.json()["error"]["message"]
        body = encode(command(("list", CHARIZARD), ("date", DATE)))
        embed = requests.post(base + URL, data=body, headers=signed(body), timeout=30).json()["data"]["embeds"][0]
        assert embed["title"] == chat.verdict(check(CHARIZARD, "standard", DATE))
        assert embed["url"].startswith("https://decks.example.org/?d=")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


MALFORMED = [
    {"type": 2, "data": [1]},
    {"type": 2, "data": "decklist"},
    {"type": 2, "data": {"name": "decklist", "options": "list"}},
    {"type": 2, "data": {"name": "decklist", "options": [1, 2]}},
    {"type": 2, "data": {"name": ["decklist"]}},
    {"type": 2, "member": [], "data": {"name": "decklist", "options": [{"name": "list", "value": "4 Nest Ball"}]}},
    {
        "type": 2,
        "member": {"user": "42"},
        "data": {"name": "decklist", "options": [{"name": "list", "value": "4 Nest Ball"}]},
    },
    {"type": 2, "data": {"type": 3, "target_id": "1", "resolved": []}},
    {"type": 2, "data": {"type": 3, "target_id": "1", "resolved": {"messages": {"1": {"content": 5}}}}},
    {"type": 5, "data": {"custom_id": "decklist||", "components": {"a": 1}}},
    {"type": 5, "data": {"custom_id": 7}},
    {"type": [2]},
    {"type": 2},
    {"type": 2, "data": {}},
    {"type": 2, "data": {"name": 5}},
    {"type": 5},
    {"type": 5, "data": {"components": []}},
]


@pytest.mark.parametrize("interaction", MALFORMED, ids=[json.dumps(m)[:60] for m in MALFORMED])
def test_signed_but_malformed_interactions_are_400_in_the_envelope(post, interaction):
    answer = post({**interaction, "id": str(next(IDS))})
    assert answer.status_code == 400, answer.get_data(as_text=True)
    assert answer.get_json()["error"]["code"] == "bad_request"


@pytest.mark.parametrize("kind", [99999999999999999999999, -(2**64), 1e300, True and "2"])
def test_an_unhandled_type_of_any_size_is_400(post, kind):
    # an integer past 64 bits made the JSON encoder of the error envelope raise (a 500); the strict
    # reader reads one as a double (RFC 8259's interoperable range)
    answer = post({"type": kind, "id": str(next(IDS))})
    assert answer.status_code == 400
    read = float(kind) if isinstance(kind, int) and not -(2**63) <= kind < 2**64 else kind
    assert answer.get_json()["error"]["message"] == f"Interactions of type {str(read)[:20]!r} are not handled here."


def test_a_replayed_signature_is_refused_within_the_window(app):
    client = app.test_client()
    body = encode(command(("list", LEGAL), ("date", DATE)))
    headers = signed(body)
    first = client.post(URL, data=body, headers=headers)
    again = client.post(URL, data=body, headers=headers)
    assert first.status_code == 200
    assert again.status_code == 401
    assert again.get_json()["error"]["message"] == "This signed request was already received: a replay."


def test_replays_are_caught_without_rate_limits_too():
    app = create_app({"TESTING": True, "DISCORD_PUBLIC_KEY": PUBLIC, "RATELIMIT_ENABLED": False})
    client = app.test_client()
    body = encode({"type": 1, "id": str(next(IDS))})
    headers = signed(body)
    assert [client.post(URL, data=body, headers=headers).status_code for _ in range(2)] == [200, 401]


@pytest.mark.parametrize("age", [float("inf"), float("nan"), 1e400, 0, -5, 10**400, "300", True, 86_401])
def test_a_signature_age_that_is_no_number_of_seconds_stops_the_app_at_start_up(age):
    # 1e400 from the environment was inf: every timestamp passed, and the "too old" message raised
    with pytest.raises(ValueError, match="DISCORD_MAX_AGE .* must be a number of seconds from 1 to 86,400"):
        create_app({"TESTING": True, "DISCORD_PUBLIC_KEY": PUBLIC, "DISCORD_MAX_AGE": age})

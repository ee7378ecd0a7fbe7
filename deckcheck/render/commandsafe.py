"""Text a CI log may carry: one line per problem, and nothing a GitHub Actions runner reads as a workflow
command (``::`` at a line's start, ``##[`` anywhere: ``##[error]``, ``##[add-mask]``, ``##[set-output]``).

Every output that can end up in a log goes through these: the ``github`` format always, ``text`` with
``--command-safe`` (inside Actions), and the JSON and XML documents, whose escapes keep the same data.
"""

from __future__ import annotations

from ..patterns import Pattern

#: ZERO WIDTH SPACE: put inside ``::`` and ``##[`` in text a deck, a file or a folder supplied, it keeps
#: the text as it reads while no runner can take it for a command
GITHUB_BREAK = "\u200b"


#: the control characters a pasted list may hold (tab excepted), each shown as its escape
_CONTROL = Pattern("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


#: what the Actions runner reads as a workflow command in a log line: ``::`` (a line that starts with it,
#: after spaces) and ``##[`` (its legacy form, anywhere in a line); each match's first character is where
#: :data:`GITHUB_BREAK` goes
_GITHUB_COMMAND = Pattern(r":(?=:)|#(?=#\[)")


def one_line(text: str) -> str:
    """Control characters from a pasted list as escapes: one problem stays one terminal line, colourless."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def github_safe(text: str) -> str:
    """Text no runner reads as a workflow command: a zero-width space (:data:`GITHUB_BREAK`) after the
    first character of every ``::`` and ``##[``. Linear in the text."""
    return _GITHUB_COMMAND.sub(lambda m: m.group() + GITHUB_BREAK, text)


def github_text(text: str) -> str:
    """User text (a card name, a file name, a message quoting either) as a ``github`` log line may carry
    it: one line (control characters as escapes, :func:`one_line`), and :func:`github_safe`."""
    return github_safe(one_line(text))


def json_command_safe(document: str) -> str:
    """A JSON document in which no runner finds a workflow command, with the same data: ``#`` of every
    ``##[`` and ``:`` of every ``::`` written as JSON's ``\\u0023`` and ``\\u003a`` escapes. (Neither
    ``##[`` nor ``::`` can occur in JSON outside a string, so the replacement never touches its structure;
    a CI log that prints a report cannot be told to mask, fail or set an output by a card's name.)"""
    return document.replace("##[", "\\u0023#[").replace("::", ":\\u003a")


def xml_command_safe(document: str) -> str:
    """:func:`json_command_safe` for XML: character references ``&#35;`` and ``&#58;``, the same text."""
    return document.replace("##[", "&#35;#[").replace("::", ":&#58;")

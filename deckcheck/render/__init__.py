"""Render reports and decks as text: a clean PTCGL export, the CI output formats, the registration sheet.

One module per output: :mod:`~deckcheck.render.text`, :mod:`~deckcheck.render.json` (``json`` and
``jsonl``), :mod:`~deckcheck.render.github`, :mod:`~deckcheck.render.sarif`, :mod:`~deckcheck.render.junit`;
:mod:`~deckcheck.render.export` (the PTCGL export) and :mod:`~deckcheck.render.sheet` (the registration
sheet). Beside them, :mod:`~deckcheck.render.results` (a run's results, the options, pass or fail) and
:mod:`~deckcheck.render.commandsafe` (what a CI log may carry), which every output shares.

Each CI renderer takes a run's results, a list of ``(path, Report)``, and returns the whole output as one
string; escaping for each target lives with its renderer. :data:`RENDERERS` is the one list of the output
formats: a renderer's module is imported when its format is first rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from .commandsafe import GITHUB_BREAK, github_safe, github_text, json_command_safe, xml_command_safe
from .export import SECTIONS, export_name, ptcgl_export, section_counts
from .github import (
    GITHUB_ANNOTATIONS_PER_JOB,
    GITHUB_ANNOTATIONS_PER_LEVEL,
    GITHUB_SUMMARY_MAX_BYTES,
    github_annotations,
    github_data,
    github_property,
    github_summary,
    render_github,
)
from .results import DEFAULT_OPTIONS, Options, Results, failing, fails, summary_line
from .text import render_text

__all__ = [
    "GITHUB_ANNOTATIONS_PER_JOB",
    "GITHUB_ANNOTATIONS_PER_LEVEL",
    "GITHUB_BREAK",
    "GITHUB_SUMMARY_MAX_BYTES",
    "OUTPUT_FORMATS",
    "RENDERERS",
    "SECTIONS",
    "Options",
    "Renderer",
    "Results",
    "export_name",
    "failing",
    "fails",
    "github_annotations",
    "github_data",
    "github_property",
    "github_safe",
    "github_summary",
    "github_text",
    "json_command_safe",
    "ptcgl_export",
    "render",
    "render_github",
    "render_text",
    "renderer",
    "section_counts",
    "summary_line",
    "xml_command_safe",
]

Renderer = Callable[[Results, Options], str]

#: output format -> (its module in this package, the renderer in it), in the order the command line offers
#: them: the one list of the output formats
RENDERERS: dict[str, tuple[str, str]] = {
    "text": ("text", "render_text"),
    "json": ("json", "render_json"),
    "jsonl": ("json", "render_jsonl"),
    "github": ("github", "render_github"),
    "sarif": ("sarif", "render_sarif"),
    "junit": ("junit", "render_junit"),
}
#: the output formats: the renderers' names
OUTPUT_FORMATS = tuple(RENDERERS)


def renderer(output_format: str) -> Renderer:
    """The function that writes ``output_format`` (one of :data:`OUTPUT_FORMATS`), its module imported now."""
    module, function = RENDERERS[output_format]
    found: Renderer = getattr(import_module(f"{__name__}.{module}"), function)
    return found


def render(output_format: str, results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
    """Render a run's results, a list of (path, Report), in one of :data:`OUTPUT_FORMATS`."""
    return renderer(output_format)(results, opts)


def __getattr__(name: str) -> Renderer:
    """A renderer of :data:`RENDERERS` by its function's name (``render_sarif``), imported on first use."""
    for output_format, (_module, function) in RENDERERS.items():
        if function == name:
            return renderer(output_format)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

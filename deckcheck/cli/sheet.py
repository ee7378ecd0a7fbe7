"""``deckcheck sheet FILE``: a valid deck's registration sheet (:mod:`deckcheck.render.sheet`) as an HTML or PDF file.

HTML needs nothing more: open it in a browser and print it. A PDF is printed by Chromium through
Playwright (the ``playwright`` package, with the browser ``playwright install chromium`` fetches, or
the Chromium at ``DECKCHECK_CHROMIUM``); without them the command says so and writes nothing.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

import click

from ..engine import check
from ..render.sheet import DIVISIONS, Player, SheetError, build_sheet, render_sheet
from .common import STDIN, _database, _date_option, _format_option, _formats, _read, _shown

#: paper sizes a PDF is printed on (the sheet fits either)
PAPERS = {"a4": "A4", "letter": "Letter"}
#: the environment variable naming a Chromium executable for PDFs (else Playwright's own)
CHROMIUM_ENV = "DECKCHECK_CHROMIUM"
PDF_HELP = (
    "a PDF is printed by Chromium through Playwright: pip install playwright and run "
    f"'playwright install chromium' (or set {CHROMIUM_ENV} to a Chromium executable); "
    "or write HTML (--output sheet.html) and print it from any browser"
)


class SheetFailed(click.ClickException):
    """No sheet was written (the deck is not valid, the file unreadable, no browser for a PDF): exit 1."""

    exit_code = 1


def print_pdf(html: str, paper: str) -> bytes:
    """``html`` (a page with its style inside) printed to PDF by Chromium through Playwright."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SheetFailed(f"Playwright is not installed: {PDF_HELP}.") from None
    executable = os.environ.get(CHROMIUM_ENV) or None
    # Chromium refuses to run as root inside its sandbox (a container): there it runs without one
    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable, headless=True, args=args)
            try:
                page = browser.new_page()
                page.set_content(html, wait_until="load")
                page.emulate_media(media="print")
                return page.pdf(format=PAPERS[paper], print_background=True)
            finally:
                browser.close()
    except PlaywrightError as exc:
        first = (str(exc).strip().splitlines() or ["no message"])[0]
        raise SheetFailed(f"Chromium could not print the PDF ({first}): {PDF_HELP}.") from None


@click.command("sheet")
@click.argument("path", metavar="FILE", type=click.Path(allow_dash=True, dir_okay=False))
@click.option("--format", "format_", metavar="FORMAT", callback=_format_option, help="Format (default: standard).")
@click.option("--as-of", metavar="YYYY-MM-DD", callback=_date_option, help="Legality on this date (default: today).")
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    default=STDIN,
    show_default=True,
    help="Write the sheet here: a .pdf file is printed by Chromium, any other name is HTML; - is HTML on stdout.",
)
@click.option("--paper", type=click.Choice(sorted(PAPERS)), default="a4", show_default=True, help="PDF paper size.")
@click.option("--player-name", default="", help="Printed in the Player name box (blank to write by hand).")
@click.option("--player-id", default="", help="Printed in the Player ID box.")
@click.option("--birth-date", default="", metavar="DATE", help="Printed in the Date of birth box.")
@click.option("--division", type=click.Choice([k for k, _ in DIVISIONS]), default=None, help="The age division ticked.")
def sheet_cmd(
    path: str,
    format_: str | None,
    as_of: dt.date | None,
    output: str,
    paper: str,
    player_name: str,
    player_id: str,
    birth_date: str,
    division: str | None,
) -> None:
    """Write the deck registration sheet of a valid deck in FILE (- for stdin), ready to print on A4 or Letter.

    Exit status: 0 written, 1 no sheet (the deck is not valid, FILE cannot be read or the output written, no
    Chromium for a PDF),
    2 usage error, 3 card database missing or unreadable.
    """
    text, problem = _read(path)
    if text is None:
        raise SheetFailed(f"{_shown(path)}: {problem.message if problem else 'not read'}")
    fmt = _formats()[format_ or "standard"]
    report = check(text, fmt, as_of or dt.date.today(), db=_database())
    try:
        made = build_sheet(report, Player(player_name, player_id, birth_date, division or ""))
    except SheetError as exc:
        raise SheetFailed(f"{_shown(path)}: {exc}") from None
    html = render_sheet(made)
    if output == STDIN:
        sys.stdout.write(html)
        return
    target = Path(output)
    data = print_pdf(html, paper) if target.suffix.lower() == ".pdf" else html.encode("utf-8")
    try:
        target.write_bytes(data)
    except OSError as exc:  # as check --report: one line, exit 1
        raise click.FileError(output, exc.strerror or str(exc)) from None
    click.echo(f"Wrote the registration sheet of {_shown(path)} ({made.total} cards) to {output}.", err=True)

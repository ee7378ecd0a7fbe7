"""The web page in a real browser: Playwright driving Debian's Chromium against gunicorn.

These tests never skip: without /usr/bin/chromium they fail and say how to get
it (tests/run.sh installs the ``chromium`` package). Screenshots are kept in
``test-artifacts/`` for a human to look at.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
DECKS = Path(__file__).resolve().parent / "decks"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
#: Chromium logs a refused request as a console error; the page shows the 413 itself
EXPECTED_CONSOLE = re.compile(r"^Failed to load resource: the server responded with a status of 413\b")
TIMEOUT = 15_000  # ms: generous for a 2-core CI runner


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (bash tests/run.sh does it); "
                    "the browser tests do not skip.", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def open_page(browser, live_server):
    """``open_page(path="/", **context_options)`` -> a page with console and CSP errors recorded."""
    contexts, problems = [], []

    def _open(path: str = "/", **options):
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT)
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda msg: msg.type == "error" and not EXPECTED_CONSOLE.search(msg.text)
                and problems.append(msg.text))
        page.on("pageerror", lambda exc: problems.append(f"uncaught: {exc}"))
        page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
        page.goto(live_server + path)
        return page

    yield _open
    for context in contexts:
        context.close()
    # no CSP violation, no script error, no alert() from pasted text
    assert problems == []


def shot(page, name: str, full_page: bool = True) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 1000
    return path


def fill_form(page, decklist: str, fmt: str = "standard", as_of: str = DATE):
    page.select_option("#format", fmt)
    page.fill("#as_of", as_of)
    page.fill("#decklist", decklist)


def submit(page):
    with page.expect_navigation():
        page.get_by_role("button", name="Validate").click()


def test_legal_deck_is_valid(open_page):
    from playwright.sync_api import expect

    page = open_page()
    fill_form(page, LEGAL)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    expect(page.locator("#verdict")).to_contain_text("Valid for Standard on 2026-05-01: 60 cards.")
    # focus moved to the verdict after the submit
    assert page.evaluate("document.activeElement.id") == "verdict"
    expect(page.locator(".echo .status--legal")).to_have_count(25)
    expect(page.locator(".echo .status--not-legal")).to_have_count(0)
    expect(page.locator("#line-4")).to_contain_text("Dragapult ex (TWM 130)")
    expect(page.locator("#odds")).to_contain_text("74.1%")
    expect(page.locator("#export")).to_have_value(re.compile(r"^Pokémon: 9\n"))
    shot(page, "web-legal-desktop")


def test_illegal_deck_marks_lines(open_page):
    from playwright.sync_api import expect

    page = open_page()
    fill_form(page, CHARIZARD)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    expect(page.locator("#verdict")).to_contain_text("Not valid for Standard on 2026-05-01")
    expect(page.locator(".problems")).to_contain_text("Errors (14)")
    expect(page.locator(".problem--error")).to_have_count(14)
    iono = page.locator("#line-22")
    expect(iono).to_contain_text("3 Iono PAL 185")
    expect(iono.locator(".status")).to_have_text("✗ Not legal")
    expect(iono).to_contain_text("Iono (PAL 185)")
    # a problem's line link leads to the marked line
    page.locator(".problem", has_text="Iono (PAL 185)").get_by_role("link", name="line 22").click()
    assert page.url.endswith("#line-22")
    shot(page, "web-illegal-desktop")


def test_submit_without_javascript(open_page):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=False)
    assert page.get_attribute("#deck-form", "data-enhanced") is None
    fill_form(page, CHARIZARD)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    expect(page.locator("#line-22 .status")).to_have_text("✗ Not legal")
    assert page.evaluate("document.activeElement.id") == "verdict"
    # no script: the copy button stays hidden, the export is still there to select
    expect(page.locator("#copy-export")).to_be_hidden()
    expect(page.locator("#export")).to_have_value(re.compile(r"Total Cards: 60\n$"))
    expect(page.locator("#decklist")).to_have_value(CHARIZARD)


def test_live_validation_while_typing(open_page):
    """Debounced validation through the JSON API, without pressing Validate."""
    from playwright.sync_api import expect

    page = open_page()
    start_url = page.url
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    api_calls = []
    page.on("request", lambda req: req.url.endswith("/api/v1/validate") and api_calls.append(req.method))
    fill_form(page, CHARIZARD + "\n<script>alert(1)</script>")
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    expect(page.locator("#line-22 .status")).to_have_text("✗ Not legal")
    expect(page.locator("#line-22")).to_contain_text("Iono (PAL 185)")
    # pasted markup is shown as text
    evil = f"#line-{CHARIZARD.count(chr(10)) + 2}"
    expect(page.locator(f"{evil} .raw")).to_have_text("<script>alert(1)</script>")
    expect(page.locator(f"{evil} .status")).to_have_text("✗ Not a card line")
    assert api_calls and set(api_calls) == {"POST"}
    # the script's result reads the same as the server's for the same list
    live_problems = page.locator(".problems").inner_text()
    live_lines = page.locator(".echo").inner_text()
    server = open_page(page.locator("#share-link").get_attribute("href"), java_script_enabled=False)
    assert server.locator(".problems").inner_text() == live_problems
    assert server.locator(".echo").inner_text() == live_lines

    # typing several characters quickly makes one request, after the pause
    page.fill("#decklist", LEGAL)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    page.wait_for_timeout(500)
    before = len(api_calls)
    page.locator("#decklist").press("End")
    page.locator("#decklist").type("\n\n\n", delay=40)
    expect(page.locator("#live-status")).to_contain_text("Valid for Standard on 2026-05-01")
    page.wait_for_timeout(600)
    assert len(api_calls) == before + 1
    expect(page.locator("#odds")).to_contain_text("74.1%")
    expect(page.locator("#export")).to_have_value(re.compile(r"^Pokémon: 9\n"))
    expect(page.locator("#share-link")).to_have_attribute("href", re.compile(r"^/\?d=[A-Za-z0-9_-]+&format=standard"))
    assert page.url == start_url  # never left the page

    # the API's refusal is shown in the page
    page.fill("#decklist", "1 Iono PAL 185\n" * 1001)
    expect(page.locator("#error")).to_contain_text("1,001 lines")
    expect(page.locator("#verdict")).to_have_count(0)


def test_share_link_reproduces_the_result(open_page, browser, live_server):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=False)
    fill_form(page, CHARIZARD, fmt="expanded")
    submit(page)
    verdict = page.locator("#verdict").inner_text()
    iono = page.locator("#line-22").inner_text()
    link = page.locator("#share-url").input_value()
    assert link.startswith(live_server + "/?d=") and "format=expanded" in link and f"as_of={DATE}" in link

    other = open_page(link.removeprefix(live_server))
    expect(other.locator("#verdict")).to_have_text(verdict)
    assert other.locator("#line-22").inner_text() == iono
    expect(other.locator("#decklist")).to_have_value(CHARIZARD)
    expect(other.locator("#format")).to_have_value("expanded")
    expect(other.locator("#as_of")).to_have_value(DATE)


def test_copy_as_ptcgl_export(open_page):
    from playwright.sync_api import expect

    page = open_page(permissions=["clipboard-read", "clipboard-write"])
    fill_form(page, CHARIZARD)
    submit(page)
    button = page.get_by_role("button", name="Copy as PTCGL export")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("#copy-status")).to_have_text("Copied the PTCGL export.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#export").input_value()
    assert "3 Iono PAL 185" in copied and copied.endswith("Total Cards: 60\n")


def test_keyboard_and_phone(open_page):
    """A 390x844 phone: skip link first in focus order, no sideways scrolling, screenshots kept."""
    from playwright.sync_api import expect

    page = open_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to the decklist")
    page.keyboard.press("Enter")
    expect(page.locator("#decklist")).to_be_focused()
    fill_form(page, CHARIZARD)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "web-phone-verdict", full_page=False)
    shot(page, "web-phone-full")

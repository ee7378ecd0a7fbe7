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

ROOT = Path(__file__).resolve().parent.parent.parent
DECKS = Path(__file__).resolve().parent.parent / "decks"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DATE = "2026-05-01"
LEGAL = (DECKS / "standard-legal-dragapult.txt").read_text(encoding="utf-8")
CHARIZARD = (DECKS / "ptcgl-en-charizard.txt").read_text(encoding="utf-8")
#: 60 cards, one of them a printing that is not legal (a legal printing with other text exists)
ONE_BAD = LEGAL.replace("1 Budew PRE 4", "1 Chansey BS 3")
#: 61 cards: 5 Ultra Ball (over the limit) and a misspelt Rare Candy (unknown)
FIXABLE = LEGAL.replace("4 Ultra Ball MEG 131", "5 Ultra Ball MEG 131").replace(
    "4 Rare Candy MEG 125", "4 Rare Candee MEG"
)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
#: Chromium logs a refused request as a console error; the page shows the 413 itself
EXPECTED_CONSOLE = re.compile(r"^Failed to load resource: the server responded with a status of 413\b")
TIMEOUT = 15_000  # ms: generous for a 2-core CI runner


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package (bash tests/run.sh does it); "
            "the browser tests do not skip.",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def open_page(browser, live_server):
    """``open_page(path="/", **context_options)`` -> a page with console and CSP errors recorded."""
    contexts, problems = [], []

    def _open(path: str = "/", allow_console: re.Pattern | None = None, **options):
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(**options)
        context.set_default_timeout(TIMEOUT)
        contexts.append(context)
        page = context.new_page()
        page.on(
            "console",
            lambda msg: (
                msg.type == "error"
                and not EXPECTED_CONSOLE.search(msg.text)
                and not (allow_console and allow_console.search(msg.text))
                and problems.append(msg.text)
            ),
        )
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
    expect(page.locator("#export")).to_have_value(re.compile(r"^Pokémon: 19\n"))
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
    """Debounced validation through POST /extras, without pressing Validate."""
    from playwright.sync_api import expect

    page = open_page()
    start_url = page.url
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    api_calls = []
    page.on("request", lambda req: req.url.endswith("/extras") and api_calls.append(req.method))
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
    expect(page.locator("#export")).to_have_value(re.compile(r"^Pokémon: 19\n"))
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
    # no DECKCHECK_PUBLIC_URL: the link is root-relative, never on the request's Host header
    assert link.startswith("/?d=") and "format=expanded" in link and f"as_of={DATE}" in link

    other = open_page(link)
    expect(other.locator("#verdict")).to_have_text(verdict)
    assert other.locator("#line-22").inner_text() == iono
    expect(other.locator("#decklist")).to_have_value(CHARIZARD)
    expect(other.locator("#format")).to_have_value("expanded")
    expect(other.locator("#as_of")).to_have_value(DATE)
    # the page's script offers the whole address to copy: the link on the page's own address
    expect(other.locator("#share-url")).to_have_value(live_server + link)


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


# -- the deck as cards, fixes, numbers ---------------------------------------------------------


def in_first_screen(page, selector: str) -> bool:
    """Is the element wholly inside the viewport as the page first shows it?"""
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


def wait_until(page, script: str) -> None:
    """Poll ``script`` until it is true (wait_for_function evaluates a string, which the CSP forbids)."""
    for _ in range(TIMEOUT // 100):
        if page.evaluate(script):
            return
        page.wait_for_timeout(100)
    raise AssertionError(
        f"still false after {TIMEOUT} ms: {script}; images not loaded: "
        + repr(
            page.evaluate(
                "Array.from(document.querySelectorAll('img')).filter(i => !(i.complete && i.naturalWidth > 0))"
                ".map(i => [i.src, i.offsetParent && i.offsetParent.id])"
            )
        )
    )


def all_images_loaded(page) -> None:
    """Bring every image shown into view (they are lazy-loaded), then wait for each of them."""
    images = page.locator("img:visible")
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        page.wait_for_timeout(20)  # the lazy-loading observer fires between frames
    wait_until(
        page,
        "Array.from(document.querySelectorAll('img')).filter(img => img.offsetParent)"
        ".every(img => img.complete && img.naturalWidth > 0)",
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_invalid_list_shows_verdict_problems_and_the_card_first(open_page, size):
    from playwright.sync_api import expect

    page = open_page(**({"viewport": DESKTOP} if size == "desktop" else PHONE))
    fill_form(page, ONE_BAD)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    expect(page.locator(".problems")).to_contain_text("Errors (1)")
    # "only lines with problems" is on for an invalid deck: the one offending card is the one shown
    expect(page.locator("#only-problems")).to_be_checked()
    expect(page.locator(".tile:visible")).to_have_count(1)
    expect(page.locator("#card-9 img")).to_have_attribute("alt", "Chansey (BS 3)")
    expect(page.locator("#card-9")).to_contain_text("Not legal")
    # the offending card is shown beside its problem, and (on a desktop) in the deck below
    expect(page.locator("#problem-1 img")).to_have_attribute("alt", "Chansey (BS 3)")
    wait_until(page, "document.querySelector('#problem-1 img').naturalWidth > 0")
    for selector in ("#verdict", "#problem-1", "#problem-1 img") + (("#card-9",) if size == "desktop" else ()):
        assert in_first_screen(page, selector), selector
    shot(page, f"web-invalid-one-{size}", full_page=False)
    # untick: the whole deck, grouped by supertype with the counts of the table
    page.get_by_label("Show only lines with problems (1)").uncheck()
    expect(page.locator(".tile:visible")).to_have_count(25)
    expect(page.locator(".group-title")).to_have_text(["Pokémon (19)", "Trainer (31)", "Energy (10)"])


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize(
    "name,deck", [("valid", LEGAL), ("invalid", CHARIZARD), ("unknown", FIXABLE)], ids=["valid", "invalid", "unknown"]
)
def test_screenshots(open_page, size, name, deck):
    """Kept in test-artifacts/ for a person to look at: a valid list, an invalid one, one with an unknown card."""
    from playwright.sync_api import expect

    page = open_page(**({"viewport": DESKTOP} if size == "desktop" else PHONE))
    fill_form(page, deck)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid" if name == "valid" else "Not valid")
    assert in_first_screen(page, "#verdict") and in_first_screen(page, "#problems-title")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    all_images_loaded(page)
    page.evaluate("document.getElementById('verdict').scrollIntoView()")
    shot(page, f"web-{name}-{size}", full_page=False)
    shot(page, f"web-{name}-{size}-full")


def test_images_come_from_the_image_host_with_alt_text(open_page, image_server):
    from playwright.sync_api import expect

    page = open_page()
    fill_form(page, LEGAL)
    submit(page)
    images = page.locator("img.tile-img")
    expect(images).to_have_count(25)
    all_images_loaded(page)
    for i in range(25):
        img = images.nth(i)
        assert img.get_attribute("src").startswith(image_server.base + "/en/")
        assert re.fullmatch(r".+ \([A-Z0-9-]+ [A-Z0-9]+\)", img.get_attribute("alt"))
        assert (img.get_attribute("width"), img.get_attribute("height"), img.get_attribute("loading")) == (
            "245",
            "337",
            "lazy",
        )
    expect(page.locator("#card-2 img")).to_have_attribute("alt", "Dreepy (TWM 128)")
    assert "/en/sv/sv06/128/low.webp" in image_server.requests


@pytest.mark.parametrize("script", [True, False])
def test_blocked_images_fall_back_to_text(open_page, image_server, script):
    from playwright.sync_api import expect

    page = open_page(allow_console=re.compile(r"Failed to load resource: net::ERR_FAILED"), java_script_enabled=script)
    page.route(image_server.base + "/**", lambda route: route.abort())
    fill_form(page, LEGAL)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    if script:
        # each tile shows the card's name and printing as text instead of the image
        expect(page.locator(".tile--noimage")).to_have_count(25)
        expect(page.locator("#card-2 .tile-face")).to_be_visible()
        expect(page.locator("#card-2 .tile-face")).to_have_text("Dreepy TWM 128")
    # and the text view, one click away, has every line
    page.get_by_role("radio", name="Text").check()
    expect(page.locator("#line-2")).to_be_visible()
    expect(page.locator("#line-2")).to_contain_text("Dreepy (TWM 128)")
    expect(page.locator(".deck-grid")).to_be_hidden()
    shot(page, f"web-images-blocked-{'js' if script else 'nojs'}", full_page=False)


def test_fix_by_clicks_without_javascript(open_page, live_server):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=False)
    fill_form(page, FIXABLE)
    submit(page)
    expect(page.locator("#verdict .verdict-summary")).to_have_text(
        "Not valid for Standard on 2026-05-01: 61 cards, 3 errors, 1 warning."
    )
    with page.expect_navigation():
        page.get_by_role("link", name="Set to the limit, 4").click()
    expect(page.locator("#verdict .verdict-summary")).to_have_text(
        "Not valid for Standard on 2026-05-01: 60 cards, 1 error."
    )
    assert "fix=" not in page.url and "d=" in page.url  # the fixed list's own share link
    with page.expect_navigation():
        page.get_by_role("link", name="Use Rare Candy (MEG 125)").click()
    expect(page.locator("#verdict .verdict-summary")).to_have_text("Valid for Standard on 2026-05-01: 60 cards.")
    fixed = page.locator("#decklist").input_value()
    assert "4 Ultra Ball MEG 131\n4 Rare Candy MEG 125\n" in fixed
    assert "4 Rare Candy MEG 125" in page.locator("#export").input_value()
    # the share link of the fixed list reproduces the valid result
    other = open_page(page.locator("#share-link").get_attribute("href"), java_script_enabled=False)
    expect(other.locator("#verdict .verdict-word")).to_have_text("Valid")
    expect(other.locator("#decklist")).to_have_value(fixed)

    page = open_page(java_script_enabled=False)
    fill_form(page, ONE_BAD)
    submit(page)
    with page.expect_navigation():
        page.get_by_role("link", name="Use the legal printing, Chansey (TWM 133)").click()
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    expect(page.locator("#decklist")).to_have_value(ONE_BAD.replace("1 Chansey BS 3", "1 Chansey TWM 133"))


def test_fix_by_clicks_with_javascript(open_page, live_server):
    from playwright.sync_api import expect

    page = open_page()
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    fill_form(page, FIXABLE)
    expect(page.locator("#verdict .verdict-summary")).to_have_text(
        "Not valid for Standard on 2026-05-01: 61 cards, 3 errors, 1 warning."
    )
    start_url = page.url
    page.get_by_role("link", name="Set to the limit, 4").click()
    expect(page.locator("#verdict .verdict-summary")).to_have_text(
        "Not valid for Standard on 2026-05-01: 60 cards, 1 error."
    )
    expect(page.locator("#decklist")).to_have_value(re.compile(r"\n4 Ultra Ball MEG 131\n"))
    expect(page.locator("#verdict")).to_be_focused()
    # the unknown card: the server's recommended printing, as without the script, and a box to find another
    find = page.get_by_label("Find a card for line 15")
    expect(find).to_have_value("Rare Candee")
    expect(page.locator(".pick-results .fix")).to_have_count(0)
    find.fill("Rare Candy")
    picks = page.locator(".pick-results .fix")
    expect(picks.first).to_have_text("Use Rare Candy (MEG 125)")
    served = page.locator(".problem", has=page.locator(".pick")).locator(".fixes:not(.pick-results), .more-fixes")
    for node in served.all():
        expect(node).to_be_hidden()
    picks.first.click()
    expect(page.locator("#verdict .verdict-summary")).to_have_text("Valid for Standard on 2026-05-01: 60 cards.")
    assert page.url == start_url  # fixed in place, never left the page
    fixed = page.locator("#decklist").input_value()
    assert "4 Ultra Ball MEG 131\n4 Rare Candy MEG 125\n" in fixed
    expect(page.locator("#export")).to_have_value(re.compile(r"\n4 Rare Candy MEG 125\n"))
    other = open_page(page.locator("#share-link").get_attribute("href"), java_script_enabled=False)
    expect(other.locator("#verdict .verdict-word")).to_have_text("Valid")
    expect(other.locator("#decklist")).to_have_value(fixed)

    # a not-legal printing swapped for the legal one
    page.fill("#decklist", ONE_BAD)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    page.get_by_role("link", name="Use the legal printing, Chansey (TWM 133)").click()
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    expect(page.locator("#decklist")).to_have_value(ONE_BAD.replace("1 Chansey BS 3", "1 Chansey TWM 133"))


@pytest.mark.parametrize("script", [True, False])
def test_export_headers_agree_with_the_counts_table(open_page, script):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=script)
    fill_form(page, FIXABLE.replace("Trainer: 13", "Trainer: 30"))
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    table = dict(
        zip(page.locator(".counts th").all_inner_texts(), page.locator(".counts td").all_inner_texts(), strict=True)
    )
    export = page.locator("#export").input_value()
    headers = dict(re.findall(r"^(Pokémon|Trainer|Energy): (\d+)$", export, re.MULTILINE))
    assert (
        headers
        == {k: v for k, v in table.items() if k != "Total"}
        == {"Pokémon": "19", "Trainer": "32", "Energy": "10"}
    )
    assert re.search(r"^Total Cards: (\d+)$", export, re.MULTILINE).group(1) == table["Total"] == "61"
    # the pasted header that matches neither the cards nor the lines is pointed out on its line
    page.get_by_role("radio", name="Text").check()
    expect(page.locator("#line-12 .header-note")).to_have_text(
        "This header says 30, but the Trainer section under it has 32 cards on 13 lines."
    )


CONTRAST = """(selectors) => {
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) { return c; }
    }
    return [255, 255, 255];
  };
  const out = {};
  for (const sel of selectors) {
    const el = document.querySelector(sel);
    if (!el) { out[sel] = null; continue; }
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(background(el));
    out[sel] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  return out;
}"""


def test_labels_alt_text_and_contrast_of_the_result(open_page):
    """Every control has a label, every image alt text naming the card and printing, and the
    result's text (tiles, fixes, notes, badges) has at least 4.5:1 contrast."""
    from playwright.sync_api import expect

    page = open_page()
    fill_form(page, FIXABLE.replace("Trainer: 13", "Trainer: 30").replace("1 Budew PRE 4", "1 Chansey BS 3"))
    page.get_by_label(re.compile(r"^Find a card for line")).fill("Rare Candy")
    expect(page.locator(".pick-results .fix").first).to_be_visible()
    page.get_by_label(re.compile(r"^Show only lines with problems")).uncheck()
    assert (
        page.evaluate(
            "Array.from(document.querySelectorAll('input, select, textarea'))"
            ".filter(e => !e.labels || e.labels.length === 0).map(e => e.id)"
        )
        == []
    )
    alts = page.locator("img").evaluate_all("imgs => imgs.map(i => i.alt)")
    assert alts and all(re.fullmatch(r".+ \([A-Z0-9-]+ [A-Z0-9]+\)", alt) for alt in alts)
    selectors = [
        ".verdict-summary",
        ".verdict-word",
        ".problem-message",
        ".problem-hint",
        ".problem-lines a",
        ".fix",
        ".badge--error",
        ".badge--warning",
        ".tile-count",
        ".tile-name",
        ".tile-printing",
        ".tile .status",
        ".group-title",
        ".deck-total",
        ".view-switch legend",
        ".header-note",
        ".pick label",
        ".help",
    ]
    page.get_by_role("radio", name="Text").check()
    ratios = page.evaluate(CONTRAST, selectors)
    page.get_by_role("radio", name="Cards").check()
    ratios.update({k: v for k, v in page.evaluate(CONTRAST, selectors).items() if v is not None})
    assert {k: v for k, v in ratios.items() if v is None or v < 4.5} == {}


# -- a rotated deck: one block per rotation date, one fix ----------------------------------------

#: the lines of CHARIZARD whose regulation mark G rotated out on 2026-04-10
ROTATED_G = (2, 3, 4, 6, 10, 11, 12, 14, 19, 22, 23, 24)


@pytest.mark.parametrize("script", [True, False])
def test_rotated_cards_are_one_block_with_one_fix(open_page, script):
    """The cards that left Standard on one date are one block with one fix that removes them all, and per
    card the legal printing of the same name; each keeps its own problem (the error count is unchanged)."""
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=script)
    fill_form(page, CHARIZARD)
    submit(page)
    expect(page.locator(".problems")).to_contain_text("Errors (14)")
    blocks = page.locator(".problem-group")
    expect(blocks).to_have_count(2)
    expect(blocks.locator(".group-message")).to_have_text(
        [  # where each block's first card is in the list
            "27 cards on 12 lines rotated out on 2026-04-10 (regulation mark G).",
            "2 cards on 2 lines rotated out on 2025-04-11 (regulation mark F).",
        ]
    )
    g = blocks.nth(0)
    expect(g.locator(".problem--member")).to_have_count(12)
    expect(g.locator(".problem--member").first).to_contain_text("2 Pidgey (MEW 16), mark G")
    expect(g.locator(".problem--member").first).to_contain_text("No printing of this name is legal.")
    charmander = g.locator(".problem--member", has_text="Charmander (PAF 7)")
    expect(charmander.get_by_role("link", name="Use the legal printing, Charmander (ASC 20)")).to_be_visible()
    # the echo's badge still leads to the card's own problem, inside the block
    expect(page.locator("#line-22 a.badge")).to_have_attribute("href", re.compile(r"^#problem-\d+$"))
    page.evaluate("document.getElementById('verdict').scrollIntoView()")
    shot(page, f"web-rotated-{'js' if script else 'nojs'}")
    remove = g.get_by_role("link", name="Remove all 12 lines that rotated out")
    if script:
        remove.click()
        expect(page.locator(".problem-group")).to_have_count(1)
    else:
        with page.expect_navigation():
            remove.click()
    expect(page.locator(".problem-group .group-message")).to_have_text(
        "2 cards on 2 lines rotated out on 2025-04-11 (regulation mark F)."
    )
    kept = page.locator("#decklist").input_value().split("\n")
    original = CHARIZARD.split("\n")
    assert kept == [line for n, line in enumerate(original, start=1) if n not in ROTATED_G]
    expect(page.locator("#verdict .verdict-summary")).to_have_text(
        "Not valid for Standard on 2026-05-01: 33 cards, 3 errors, 1 warning."
    )


@pytest.mark.parametrize("script", [True, False])
def test_a_lone_rotated_card_is_a_block_with_its_fix(open_page, script):
    """One card that left the format on its date (with no legal printing of its name) is a block of one: its
    card beside it, and the fix that removes its line."""
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=script)
    fill_form(page, LEGAL.replace("1 Budew PRE 4", "1 Iono PAL 185"))
    submit(page)
    block = page.locator(".problem-group")
    expect(block).to_have_count(1)
    expect(block.locator(".group-message")).to_have_text(
        "1 card on 1 line rotated out on 2026-04-10 (regulation mark G)."
    )
    expect(block.locator(".problem--member img")).to_have_attribute("alt", "Iono (PAL 185)")
    expect(block.locator(".problem--member")).to_contain_text("No printing of this name is legal.")
    shot(page, f"web-rotated-one-{'js' if script else 'nojs'}", full_page=False)
    remove = block.get_by_role("link", name="Remove the line that rotated out")
    with page.expect_navigation() if not script else _nothing():
        remove.click()
    expect(page.locator(".problem-group")).to_have_count(0)
    expect(page.locator("#verdict .verdict-summary")).to_have_text(
        "Not valid for Standard on 2026-05-01: 59 cards, 1 error, 1 warning."
    )
    assert "Iono" not in page.locator("#decklist").input_value()


# -- recommendations, not lists ------------------------------------------------------------------

#: an unknown name, a set code and number with another card's name, a misspelt name with the right printing
GUESSES = (
    LEGAL.replace("3 Boss's Orders MEG 114", "3 Boss Orders")
    .replace("4 Ultra Ball MEG 131", "4 Crispin MEG 131")
    .replace("1 Budew PRE 4", "1 Budeww PRE 4")
)


def fix_choices(page) -> dict[str, list[str]]:
    """Each problem's first fix and the choices behind it, by the problem's message."""
    out = {}
    for item in page.locator(".problem").all():
        fixes = item.locator(".fix").evaluate_all("els => els.map(e => e.textContent)")
        if fixes:
            out[item.locator(".problem-message").inner_text()] = fixes
    return out


@pytest.mark.parametrize("script", [True, False])
def test_a_fix_recommends_one_printing_and_keeps_the_rest_behind_it(open_page, script):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=script)
    fill_form(page, GUESSES)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    boss = page.locator(".problem", has_text='no card named "Boss Orders"')
    # the newest regular-art printing legal on the date first, shown; the rest behind "Other choices"
    first = boss.locator(".fixes").first.locator(".fix")
    expect(first).to_have_text(["Use Boss's Orders (ASC 183)"])
    expect(boss.get_by_role("link", name="Use Boss's Orders (ASC 256)")).to_be_hidden()
    boss.locator("summary", has_text="Other choices").click()
    expect(boss.locator(".more-fixes .fix")).to_have_text(
        ["Use Boss's Orders (MEG 114)", "Use Boss's Orders (ASC 256)", "Use Boxed Order (TEF 143)"]
    )
    assert "PAL" not in boss.inner_text()  # mark G: not legal on the date
    # a set code and number that name another card: use that card's name, or the card named as written
    crispin = page.locator(".problem", has_text='names "Crispin", but MEG 131 is Ultra Ball')
    expect(crispin.locator(".fix:visible")).to_have_text(
        ["Use the name of MEG 131, Ultra Ball", "Use the card named Crispin, Crispin (PRE 105)"]
    )
    budew = page.locator(".problem", has_text='names "Budeww"')
    expect(budew.locator(".fix")).to_have_text(["Use the name of PRE 4, Budew"])
    choices = fix_choices(page)
    if script:
        # the same choices as the page without its script gives
        other = open_page(page.locator("#share-link").get_attribute("href"), java_script_enabled=False)
        assert fix_choices(other) == choices
    with page.expect_navigation() if not script else _nothing():
        budew.get_by_role("link", name="Use the name of PRE 4, Budew").click()
    expect(page.locator("#decklist")).to_have_value(re.compile(r"\n1 Budew PRE 4\n"))
    # a fix applies to the list its result was made from: wait for the result of the fixed list
    expect(budew).to_have_count(0)
    with page.expect_navigation() if not script else _nothing():
        crispin.get_by_role("link", name=re.compile("^Use the name")).click()
    expect(page.locator("#decklist")).to_have_value(re.compile(r"\n4 Ultra Ball MEG 131\n"))
    expect(crispin).to_have_count(0)
    with page.expect_navigation() if not script else _nothing():
        page.get_by_role("link", name="Use Boss's Orders (ASC 183)").click()
    expect(page.locator("#verdict .verdict-summary")).to_have_text("Valid for Standard on 2026-05-01: 60 cards.")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# -- text that is not a decklist -------------------------------------------------------------------

#: 999 lines of prose with one card line in the middle: 1,000 lines, the most the page checks
JUNK = "\n".join(
    "3 Nest Ball SVI 181" if n == 500 else f"Paragraph {n}: the quick brown fox jumps over the lazy dog."
    for n in range(1, 1001)
)


@pytest.mark.parametrize("script", [True, False])
def test_a_paste_that_is_not_a_decklist_is_one_problem_on_a_short_page(open_page, script):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=script)
    fill_form(page, JUNK)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    first = page.locator(".problem").first
    expect(first).to_contain_text(
        "This does not look like a decklist: 999 of its 1,000 lines are not card lines. "
        'The first line that looks like a card is line 500: "3 Nest Ball SVI 181".'
    )
    expect(page.locator(".problem", has_text="is not a card line")).to_have_count(0)
    # the page shows the first lines and says how many more there are
    expect(page.locator(".echo-row")).to_have_count(100)  # web.MAX_SHOWN_LINES
    expect(page.locator(".deck-panel .more")).to_have_text("900 more lines of the list not shown (the first 100 are).")
    assert page.evaluate("document.documentElement.scrollHeight") < 20_000
    expect(page.locator("#decklist")).to_have_value(JUNK)


# -- plain words first -----------------------------------------------------------------------------


def test_a_problem_s_code_follows_its_words_and_leads_to_the_rules_page(open_page):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=False)
    fill_form(page, LEGAL.replace("1 Budew PRE 4", "1 Budeww PRE 4"))
    submit(page)
    problem = page.locator(".problem", has_text='names "Budeww"')
    words = problem.locator(".problem-message").bounding_box()
    link = problem.get_by_role("link", name="rule C103")
    box = link.bounding_box()
    assert (box["y"], box["x"]) > (words["y"], words["x"])  # after the message, in reading order
    expect(problem.locator(".problem-hint")).to_have_text(
        '"Budeww" looks like a misspelling of Budew: the set code and number decide the card.'
    )
    with page.expect_navigation():
        link.click()
    assert page.url.endswith("/rules#name-mismatch")
    entry = page.locator("#name-mismatch")
    expect(entry).to_be_in_viewport()
    expect(entry).to_contain_text("The set code and number name a different card from the one written")
    expect(entry).to_contain_text("deckcheck/rules/reading.py")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


# -- the date field, the title, the phone --------------------------------------------------------


def test_the_date_is_a_native_date_field_and_the_server_reads_both_forms(open_page):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=False)
    expect(page.locator("#as_of")).to_have_attribute("type", "date")
    assert page.locator("#as_of").get_attribute("pattern") is None
    # a link with the date as YYYYMMDD: the same result, the field holding the date it stands for
    other = open_page(
        f"/?deck={LEGAL.replace(chr(10), '%0A')}&format=standard&as_of=20260501", java_script_enabled=False
    )
    expect(other.locator("#verdict .verdict-summary")).to_have_text("Valid for Standard on 2026-05-01: 60 cards.")
    expect(other.locator("#as_of")).to_have_value("2026-05-01")
    # the format's description is the one on the chosen date, without the script too
    fill_form(page, LEGAL, as_of="2025-06-01")
    submit(page)
    expect(page.locator("#format-help")).to_have_text(
        "Regulation-mark format: G, H, I and later marks since 2025-04-11."
    )
    expect(page).to_have_title(re.compile(r"^Not valid – "))
    # a date the server cannot read: an error, and the title says the list was not checked
    bad = open_page(
        "/?deck=1%20Iono%20PAL%20185&as_of=2026-13-45",
        java_script_enabled=False,
        allow_console=re.compile(r"status of 400 \(BAD REQUEST\)"),
    )
    expect(bad.locator("#error")).to_contain_text("“2026-13-45” is not a date")
    expect(bad).to_have_title(re.compile(r"^Not checked – "))


def test_the_title_and_the_format_follow_the_result_and_the_date(open_page):
    from playwright.sync_api import expect

    page = open_page()
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    fill_form(page, LEGAL)
    expect(page).to_have_title(re.compile(r"^Valid – "))
    expect(page.locator("#format-help")).to_have_text(
        "Regulation-mark format: H, I, J and later marks since 2026-04-10."
    )
    page.fill("#as_of", "2025-06-01")
    expect(page).to_have_title(re.compile(r"^Not valid – "))
    expect(page.locator("#format-help")).to_have_text(
        "Regulation-mark format: G, H, I and later marks since 2025-04-11."
    )
    # a date half typed: not checked as today's, and no stale "Valid" title
    page.fill("#as_of", "2026-05-01")
    expect(page).to_have_title(re.compile(r"^Valid – "))
    page.locator("#as_of").fill("")
    page.locator("#as_of").click()
    page.keyboard.type("05")
    assert page.evaluate("document.getElementById('as_of').validity.badInput")
    page.locator("#decklist").press("End")
    page.locator("#decklist").type("\n")
    expect(page.locator("#error")).to_contain_text("The date is not complete")
    expect(page).to_have_title(re.compile(r"^Not checked – "))


#: the page's title without a verdict
NAME = "deckcheck: check a Pokémon TCG decklist"


def test_the_title_follows_the_result_when_the_list_is_cleared(open_page):
    from playwright.sync_api import expect

    page = open_page()
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    expect(page).to_have_title(NAME)
    for text, title in ((LEGAL, "Valid – " + NAME), ("", NAME), (ONE_BAD, "Not valid – " + NAME), (" \n", NAME)):
        page.fill("#decklist", text)
        if text.strip():
            page.fill("#as_of", DATE)
            expect(page.locator("#verdict")).to_have_count(1)
        else:
            expect(page.locator("#result > *")).to_have_count(0)
        expect(page).to_have_title(title)


@pytest.mark.parametrize("fmt", ["standard", "standard-ptcgl", "glc"])
def test_the_format_s_description_follows_the_date_without_a_list(open_page, fmt):
    """With the script and no list, the help under the format is the server's sentence for the chosen
    date (the page without the script, GET /?as_of=…), whatever the date; cleared, today's."""
    from playwright.sync_api import expect

    page = open_page()
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    today = page.locator("#format-help").inner_text()
    page.select_option("#format", fmt)
    for day in ("2025-06-01", "2026-03-30", "2023-04-13", "2019-01-01", "2006-08-31", "2026-04-10"):
        served = open_page(f"/?format={fmt}&as_of={day}", java_script_enabled=False)
        expected = served.locator("#format-help").inner_text()
        served.close()
        page.fill("#as_of", day)
        expect(page.locator("#format-help")).to_have_text(expected)
        assert page.locator("#result > *").count() == 0
    page.fill("#as_of", "")
    page.select_option("#format", "standard")
    expect(page.locator("#format-help")).to_have_text(today)


def test_on_a_phone_the_verdict_comes_into_view_after_a_paste_and_a_fix(open_page):
    from playwright.sync_api import expect

    page = open_page(**PHONE, permissions=["clipboard-read", "clipboard-write"])
    expect(page.locator("#deck-form")).to_have_attribute("data-enhanced", "true")
    page.fill("#as_of", DATE)
    page.evaluate("text => navigator.clipboard.writeText(text)", ONE_BAD)
    page.locator("#decklist").focus()
    page.keyboard.press("Control+V")
    expect(page.locator("#verdict .verdict-word")).to_have_text("Not valid")
    expect(page.locator("#verdict")).to_be_in_viewport()
    assert page.evaluate("window.scrollY") > 300  # the page moved to the verdict
    shot(page, "web-phone-after-paste", full_page=False)
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_role("link", name="Use the legal printing, Chansey (TWM 133)").click()
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    expect(page.locator("#verdict")).to_be_in_viewport()
    shot(page, "web-phone-after-fix", full_page=False)


# -- the deck registration sheet ----------------------------------------------------------------

MM = 96 / 25.4  # CSS pixels in a millimetre


def pdf_pages(data: bytes) -> list[tuple[float, float]]:
    """The size in points of each page of a PDF Chromium printed (its page objects are not compressed)."""
    assert data.startswith(b"%PDF-")
    boxes = re.findall(rb"/Type\s*/Page\b(?!s).*?/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data, re.DOTALL)
    if not boxes:  # the MediaBox before the /Type
        boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    return [(int(float(w)), int(float(h))) for w, h in boxes]


@pytest.mark.parametrize("script", [True, False])
def test_a_valid_deck_prints_its_registration_sheet(open_page, script):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=script)
    fill_form(page, LEGAL)
    submit(page)
    expect(page.locator("#verdict .verdict-word")).to_have_text("Valid")
    with page.expect_navigation():
        page.get_by_role("link", name="Print the deck registration sheet").click()
    expect(page).to_have_title(re.compile(r"^Deck registration sheet"))
    # blank boxes to fill by hand, or the fields given: the form puts them in the address
    expect(page.locator("#player-name")).to_have_text("")
    page.get_by_label("Player name").fill("Ash Ketchum")
    page.get_by_label("Player ID").fill("1234567")
    page.get_by_label("Date of birth").fill("2000-05-22")
    page.get_by_label("Age division").select_option("masters")
    with page.expect_navigation():
        page.get_by_role("button", name="Put these on the sheet").click()
    assert "name=Ash+Ketchum" in page.url and "division=masters" in page.url
    expect(page.locator("#player-name")).to_have_text("Ash Ketchum")
    expect(page.locator("#player-id")).to_have_text("1234567")
    expect(page.locator("#player-dob")).to_have_text("2000-05-22")
    expect(page.locator(".division--on")).to_contain_text("Masters")
    rows = page.locator(".cards tbody tr")
    expect(rows).to_have_count(25)
    # Pokémon on the left, Trainer on the right, Energy under the shorter column (the Pokémon here)
    expect(page.locator(".section-title")).to_have_text(["Pokémon", "Energy", "Trainer"])
    expect(page.locator(".section-total")).to_have_text(["19", "10", "31"])
    expect(rows.first).to_have_text(re.compile(r"^4\s*Dreepy\s*TWM\s*128\s*H$"))
    expect(page.locator(".section--3 tbody tr").first).to_have_text(re.compile(r"^4\s*Fire Energy\s*SVE\s*2\s*$"))
    expect(page.locator(".sheet-total")).to_have_text("Total cards: 60")
    if script:
        return
    # printed: the controls are not on paper, and the sheet fits one page of A4 and of Letter
    page.emulate_media(media="print")
    expect(page.locator(".sheet-controls")).to_be_hidden()
    box = page.locator("#sheet").bounding_box()
    assert box["width"] <= 190 * MM + 1 and box["height"] <= 259 * MM, box
    shot(page, "sheet-printed")
    assert pdf_pages(page.pdf(format="A4", print_background=True)) == [(595, 842)]
    assert pdf_pages(page.pdf(format="Letter", print_background=True)) == [(612, 792)]


def test_an_invalid_deck_has_no_sheet(open_page):
    from playwright.sync_api import expect

    page = open_page(java_script_enabled=False)
    fill_form(page, ONE_BAD)
    submit(page)
    expect(page.get_by_role("link", name="Print the deck registration sheet")).to_have_count(0)
    sheet = open_page(
        page.locator("#share-link").get_attribute("href").replace("/?", "/sheet?"),
        java_script_enabled=False,
        allow_console=re.compile(r"status of 422"),
    )
    expect(sheet.locator("#error")).to_contain_text(
        "Not valid for Standard on 2026-05-01: 60 cards, 1 error. A registration sheet is for a valid deck"
    )

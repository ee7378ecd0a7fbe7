/* deckcheck: progressive enhancement of the decklist form.
 *
 * Without this script the form posts to "/" and the server renders the result, and every
 * fix is a link that reloads the page with the fix applied. With it, the list is checked
 * while typing (debounced) through POST /extras, which answers the result as the server's
 * template renders it; a fix edits the text box and checks again; an unknown card offers
 * cards from the lookup API (GET /api/v1/cards) to pick. Nodes the script makes itself
 * take text through textContent only.
 */
(function () {
  "use strict";

  var DELAY_MS = 400;
  var LINE_BREAK = /\r\n|\r|\n/;
  var form = document.getElementById("deck-form");
  var result = document.getElementById("result");
  if (!form || !result || !window.fetch || !window.Promise) {
    return;
  }
  var deck = form.elements.namedItem("decklist");
  var format = form.elements.namedItem("format");
  var date = form.elements.namedItem("as_of");
  var live = document.getElementById("live-status");
  var formatHelp = document.getElementById("format-help");
  var extrasUrl = form.getAttribute("data-extras-url");
  var cardsUrl = form.getAttribute("data-cards-url");

  var timer = null;
  var seq = 0;
  var inflight = null;
  var NAME = "deckcheck: check a Pok\u00e9mon TCG decklist";
  var TITLE = " \u2013 " + NAME; // after the verdict: "Valid – deckcheck: …"
  var ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
  // the form above the result (a phone): after a paste or a fix the verdict is brought into view
  var stacked = window.matchMedia ? window.matchMedia("(max-width: 63.99rem)") : null;
  var revealNext = false;

  /* -- DOM building: text only ------------------------------------------------ */

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) {
        return;
      }
      if (name === "className") {
        node.className = value;
      } else {
        node.setAttribute(name, value === true ? "" : String(value));
      }
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === false) {
        return;
      }
      node.appendChild(typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child)) : child);
    });
    return node;
  }

  function setStatus(text) {
    if (live) {
      live.textContent = text;
    }
  }

  /* -- the result ------------------------------------------------------------- */

  // the user's choices in the result (view, "only lines with problems") survive a re-check
  var chosen = {};
  // the text the result on the page was made from: a fix applies to that text only
  var shownText = result.firstElementChild ? deck.value : null;

  function remember(event) {
    var target = event.target;
    if (target && (target.name === "deck-view" || target.id === "only-problems")) {
      chosen[target.id] = target.checked;
      if (target.name === "deck-view") {
        chosen[target.id === "view-cards" ? "view-text" : "view-cards"] = !target.checked;
      }
    }
  }

  function restoreChoices() {
    Object.keys(chosen).forEach(function (id) {
      var input = document.getElementById(id);
      if (input) { input.checked = chosen[id]; }
    });
  }

  function markBroken(img) {
    var tile = img.closest && img.closest(".tile");
    if (tile) {
      tile.classList.add("tile--noimage");
    } else if (img.classList.contains("problem-card")) {
      img.hidden = true; // the problem names the card in words
    }
  }

  function enhanceResult() {
    // fixes that need the script (a list too long for a link) and the copy button
    Array.prototype.forEach.call(result.querySelectorAll("button.fix[hidden], #copy-export[hidden]"), function (b) {
      b.hidden = false;
    });
    Array.prototype.forEach.call(result.querySelectorAll("img.tile-img, img.problem-card"), function (img) {
      if (img.complete && img.naturalWidth === 0 && img.getAttribute("src")) { markBroken(img); }
    });
    Array.prototype.forEach.call(result.querySelectorAll(".pick"), setUpPick);
    // without DECKCHECK_PUBLIC_URL the server offers the share link root-relative (never on the request's
    // Host header): the address to copy is that path on the page's own address
    var share = result.querySelector("#share-url");
    if (share && share.value.charAt(0) === "/") { share.value = new URL(share.value, document.baseURI).href; }
  }

  /* The page's result comes from the server's template (POST /extras answers it as "html"),
   * the same markup a submitted form gets: one implementation of the result. That markup is
   * the server's own, with every user text escaped by the template; it is parsed inert
   * (DOMParser runs no script) and the CSP applies to it as to the page. */
  function render(text, answer) {
    var doc = new DOMParser().parseFromString(answer.html, "text/html");
    result.replaceChildren.apply(result, Array.prototype.slice.call(doc.body.childNodes));
    shownText = text;
    restoreChoices();
    enhanceResult();
    var verdict = document.getElementById("verdict");
    var valid = verdict && verdict.getAttribute("data-valid") === "true";
    document.title = (valid ? "Valid" : "Not valid") + TITLE;
    if (formatHelp && typeof answer.format_description === "string") {
      formatHelp.textContent = answer.format_description; // the format on the checked date
    }
    var summary = result.querySelector(".verdict-summary");
    return summary ? summary.textContent : "";
  }

  function renderError(message) {
    shownText = null;
    document.title = "Not checked" + TITLE; // never a stale "Valid" beside an error
    result.replaceChildren(el("div", {id: "error", className: "alert", role: "alert", tabindex: "-1"}, [
      el("h2", {className: "alert-title"}, [el("span", {"aria-hidden": "true"}, ["! "]), "The list was not checked"]),
      el("p", {className: "alert-message"}, [message])
    ]));
  }

  /* -- fixing in place ---------------------------------------------------------- */

  /* The edits of a fix, "fix=12%3A4+Nest+Ball+SVI+181&fix=...", applied as the server does
   * (deckview.apply_edits): each numbered line replaced, or removed when the new one is empty. */
  function applyEdits(text, query) {
    var lines = text.split(LINE_BREAK);
    var trailing = lines.length > 1 && lines[lines.length - 1] === "";
    if (trailing) { lines.pop(); }
    var out = lines.slice();
    var ok = true;
    new URLSearchParams(query).getAll("fix").forEach(function (edit) {
      var m = /^([1-9][0-9]{0,5}):([\s\S]*)$/.exec(edit);
      var n = m ? Number(m[1]) : 0;
      if (!m || n > lines.length) { ok = false; return; }
      out[n - 1] = m[2].trim() ? m[2] : null;
    });
    if (!ok) { return null; }
    return out.filter(function (line) { return line !== null; }).join("\n") + (trailing ? "\n" : "");
  }

  function applyFix(query) {
    if (shownText === null || deck.value !== shownText) {
      return false;
    }
    var fixed = applyEdits(deck.value, query);
    if (fixed === null) { return false; }
    deck.value = fixed;
    validateNow(true);
    return true;
  }

  var pickSeq = 0;

  /* An unknown card: a search box for another card, whose results (up to five cards from the lookup
   * API, GET /api/v1/cards) replace the server's choices once something is typed in it. */
  function setUpPick(holder) {
    if (holder.firstChild) { return; }
    var line = holder.getAttribute("data-line");
    var count = holder.getAttribute("data-count");
    var id = "pick-" + line + "-" + (++pickSeq);
    var input = el("input", {id: id, type: "search", autocomplete: "off", spellcheck: "false",
      value: holder.getAttribute("data-name") || ""});
    var list = el("span", {className: "fixes pick-results", role: "group", "aria-label": "Cards found for line " + line}, []);
    var pending = null;
    var served = holder.parentNode ? holder.parentNode.querySelectorAll(".fixes:not(.pick-results), .more-fixes") : [];
    function search() {
      var q = input.value.trim();
      if (!q) { list.replaceChildren(); return; }
      fetch(cardsUrl + "?limit=5&q=" + encodeURIComponent(q), {headers: {"Accept": "application/json"},
        credentials: "same-origin"}).then(function (res) {
        return res.ok ? res.json() : null;
      }).then(function (body) {
        if (!body || input.value.trim() !== q) { return; }
        list.replaceChildren.apply(list, (body.cards || []).map(function (card) {
          var edit = "fix=" + encodeURIComponent(line + ":" + count + " " + card.name + " " + card.set + " " + card.number);
          return el("button", {type: "button", className: "fix", "data-edits": edit},
            ["Use " + card.name + " (" + card.set + " " + card.number + ")"]);
        }));
        if (!list.firstChild) {
          list.appendChild(el("span", {className: "help"}, ["No card found."]));
        } else {
          // the API's cards replace the server's choices
          Array.prototype.forEach.call(served, function (node) { node.hidden = true; });
        }
      }).catch(function () { /* the links the server offered still work */ });
    }
    input.addEventListener("input", function () {
      clearTimeout(pending);
      pending = setTimeout(search, 250);
    });
    // the server's choices (the recommended printing first) stay until something else is searched:
    // the same choices as without the script
    holder.replaceChildren(el("label", {"for": id}, ["Find a card for line " + line]), input, list);
  }

  /* -- talking to the server -------------------------------------------------- */

  function HttpError(status, message) {
    this.name = "HttpError";
    this.status = status;
    this.message = message;
  }
  HttpError.prototype = Object.create(Error.prototype);

  function errorText(body, status) {
    if (body && typeof body === "object") {
      var msg = body.message || body.error || body.detail;
      if (msg && typeof msg === "object") {
        msg = msg.message || JSON.stringify(msg);
      }
      if (body.errors && typeof body.errors === "object") {
        var details = JSON.stringify(body.errors);
        msg = msg ? msg + " " + details : details;
      }
      if (msg) { return String(msg); }
    }
    return "The server answered HTTP " + status + ".";
  }

  function postJson(url, payload, signal) {
    return fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: JSON.stringify(payload),
      credentials: "same-origin",
      signal: signal
    }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (body) {
        if (!res.ok) {
          throw new HttpError(res.status, errorText(body, res.status));
        }
        if (!body || typeof body !== "object") {
          throw new HttpError(res.status, "The server's answer was not JSON.");
        }
        return body;
      });
    });
  }

  function validateNow(focusVerdict) {
    clearTimeout(timer);
    timer = null;
    var text = deck.value;
    if (inflight) {
      inflight.abort();
      inflight = null;
    }
    var mine = ++seq;
    if (!text.trim()) {
      result.replaceChildren();
      shownText = null;
      document.title = NAME; // no list, no verdict: the title the page has without one
      setStatus("");
      return;
    }
    if (date.validity && date.validity.badInput) {
      // a date field with a date half typed: its value is empty, which would mean today
      renderError("The date is not complete: finish it (day, month and year) or clear it for today.");
      setStatus("Not checked: the date is not complete.");
      return;
    }
    var payload = {decklist: text, format: format.value};
    if (date.value) {
      payload.as_of = date.value;
    }
    var controller = window.AbortController ? new AbortController() : null;
    inflight = controller;
    var signal = controller ? controller.signal : undefined;
    setStatus("Checking\u2026");
    postJson(extrasUrl, payload, signal).then(function (answer) {
      if (mine !== seq) { return; }
      inflight = null;
      if (typeof answer.html !== "string") {
        throw new HttpError(500, "The server's answer had no result.");
      }
      setStatus(render(text, answer));
      var verdict = document.getElementById("verdict");
      if (focusVerdict === true && verdict) { verdict.focus(); }
      if ((revealNext || focusVerdict === true) && verdict && stacked && stacked.matches) {
        verdict.scrollIntoView({block: "start"});
      }
      revealNext = false;
    }).catch(function (err) {
      if (mine !== seq || (err && err.name === "AbortError")) { return; }
      inflight = null;
      if (err instanceof HttpError && err.status >= 400 && err.status < 500 && err.status !== 404 && err.status !== 405) {
        renderError(err.message);
        setStatus("Not checked: " + err.message);
      } else {
        setStatus("Live checking is unavailable right now; press Validate to check the list.");
      }
    });
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(validateNow, DELAY_MS);
  }

  /* -- copy as PTCGL export ----------------------------------------------------- */

  function copyExport() {
    var area = document.getElementById("export");
    var note = document.getElementById("copy-status");
    if (!area) { return; }
    function say(text) { if (note) { note.textContent = text; } }
    function fallback() {
      area.focus();
      area.select();
      var copied = false;
      try {
        copied = document.execCommand && document.execCommand("copy");
      } catch (e) {
        copied = false;
      }
      say(copied ? "Copied the PTCGL export." : "The export is selected: press Ctrl+C (\u2318C on a Mac) to copy it.");
    }
    if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
      navigator.clipboard.writeText(area.value).then(function () {
        say("Copied the PTCGL export.");
      }, fallback);
    } else {
      fallback();
    }
  }

  /* -- wiring ------------------------------------------------------------------- */

  /* The chosen format's description on the chosen date, with or without a list: the option carries
   * the description from each day it changes on (Format.descriptions, oldest first, the first with no
   * day), the same sentences the server writes for that date (an empty date is today); a date half typed
   * keeps the sentence the server wrote for the page. */
  function showFormatHelp() {
    var option = format.options[format.selectedIndex];
    if (!formatHelp || !option) { return; }
    var text = option.getAttribute("data-description") || "";
    var now = new Date();
    var day = date.value || [now.getFullYear(), now.getMonth() + 1, now.getDate()].map(function (n) {
      return (n < 10 ? "0" : "") + n; // an empty date is today, as the server reads it
    }).join("-");
    if (ISO_DAY.test(day) && !(date.validity && date.validity.badInput)) {
      var changes = [];
      try {
        changes = JSON.parse(option.getAttribute("data-descriptions") || "[]");
      } catch (e) {
        changes = [];
      }
      changes.forEach(function (change) {
        if (change[0] === null || change[0] <= day) { text = change[1]; }
      });
    }
    formatHelp.textContent = text;
  }

  deck.addEventListener("input", schedule);
  deck.addEventListener("paste", function () { revealNext = true; });
  format.addEventListener("change", function () { showFormatHelp(); schedule(); });
  date.addEventListener("change", function () { showFormatHelp(); schedule(); });
  result.addEventListener("click", function (event) {
    var target = event.target;
    if (!target || !target.closest) { return; }
    if (target.closest("#copy-export")) {
      copyExport();
      return;
    }
    var fix = target.closest(".fix");
    if (fix && fix.getAttribute("data-edits") && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      if (!applyFix(fix.getAttribute("data-edits"))) {
        // the list changed since this result was made: check it as it is now, with fresh fixes
        setStatus("The list changed since these fixes were made; checking it again.");
        validateNow(true);
      }
    }
  });
  result.addEventListener("change", remember);
  // a card image that cannot load (blocked, offline, missing): the tile shows the card as text
  result.addEventListener("error", function (event) {
    if (event.target && event.target.tagName === "IMG") { markBroken(event.target); }
  }, true);
  enhanceResult();
  // a list restored by the browser (back button) but never checked: check it now
  if (deck.value.trim() && !result.firstElementChild) {
    schedule();
  }
  form.setAttribute("data-enhanced", "true");
}());

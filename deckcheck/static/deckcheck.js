/* deckcheck: progressive enhancement of the decklist form.
 *
 * Without this script the form posts to "/" and the server renders the result.
 * With it, the list is validated while typing (debounced) through the JSON API,
 * POST /api/v1/validate, and the page's extras (PTCGL export, share link,
 * opening-hand odds) come from POST /extras. The result is built from DOM nodes
 * with textContent only: user text is never parsed as HTML.
 */
(function () {
  "use strict";

  var DELAY_MS = 400;
  var LINE_BREAK = /\r\n|\r|\n/;
  var SEVERITIES = [["error", "Errors"], ["warning", "Warnings"], ["info", "Notes"]];
  var STATUS = {
    "legal": ["\u2713", "Legal"],
    "not-legal": ["\u2717", "Not legal"],
    "banned": ["\u2717", "Banned"],
    "unknown": ["?", "Unknown card"],
    "unchecked": ["\u2013", "Legality not checked"],
    "unread": ["\u2717", "Not a card line"]
  };

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
  var validateUrl = form.getAttribute("data-validate-url");
  var extrasUrl = form.getAttribute("data-extras-url");

  var timer = null;
  var seq = 0;
  var inflight = null;

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

  function hidden(text) {
    return el("span", {className: "visually-hidden"}, [text]);
  }

  function setStatus(text) {
    if (live) {
      live.textContent = text;
    }
  }

  /* -- the result ------------------------------------------------------------- */

  function isJsonDeck(text) {
    return text.replace(/^\ufeff/, "").trim().charAt(0) === "{";
  }

  function cardLabel(card) {
    return card.name + " (" + card.set + " " + card.number + ")";
  }

  function rowStatus(entry, unchecked) {
    if (!entry.card) { return "unknown"; }
    if (unchecked) { return "unchecked"; }
    if (entry.banned) { return "banned"; }
    return entry.legal ? "legal" : "not-legal";
  }

  function buildRows(text, report, problems, extras) {
    var unchecked = (report.problems || []).some(function (p) { return p.rule === "date-out-of-range"; });
    var viaLabels = (extras && extras.legal_via) || {};
    var byLine = {};
    (report.cards || []).forEach(function (entry) {
      var row = {line: entry.line, text: entry.text || "", status: rowStatus(entry, unchecked), problems: []};
      if (entry.card) {
        row.card = cardLabel(entry.card);
        if (row.status === "legal" && entry.legal_via) {
          row.via = viaLabels[String(entry.line)] || entry.legal_via;
        }
      } else {
        row.suggestions = entry.suggestions || [];
      }
      byLine[entry.line] = row;
    });
    var rows = {};
    if (isJsonDeck(text)) {
      rows = byLine;
    } else {
      text.replace(/^\ufeff/, "").split(LINE_BREAK).forEach(function (raw, i) {
        if (raw.trim()) {
          rows[i + 1] = byLine[i + 1] || {line: i + 1, text: raw, status: null, problems: []};
        }
      });
    }
    problems.forEach(function (p) {
      (p.lines || []).forEach(function (n) {
        var row = rows[n] || (rows[n] = {line: n, text: "", status: null, problems: []});
        row.problems.push(p);
        if (p.rule === "unparsed-line" && !row.status) {
          row.status = "unread";
        }
      });
    });
    return Object.keys(rows).map(Number).sort(function (a, b) { return a - b; })
      .map(function (n) { return rows[n]; });
  }

  function worst(problems) {
    for (var i = 0; i < SEVERITIES.length; i++) {
      var sev = SEVERITIES[i][0];
      if (problems.some(function (p) { return p.severity === sev; })) {
        return sev;
      }
    }
    return null;
  }

  function verdictSection(report) {
    var ok = report.valid === true;
    return el("section", {
      id: "verdict", className: "verdict verdict--" + (ok ? "valid" : "invalid"), tabindex: "-1",
      "aria-labelledby": "verdict-title", "data-valid": ok ? "true" : "false"
    }, [
      el("h2", {id: "verdict-title", className: "verdict-title"}, [
        el("span", {className: "verdict-icon", "aria-hidden": "true"}, [ok ? "\u2713" : "\u2717"]), " ",
        el("span", {className: "verdict-word"}, [ok ? "Valid" : "Not valid"])
      ]),
      el("p", {className: "verdict-summary"}, [report.summary || ""])
    ]);
  }

  function problemsSection(problems) {
    var children = [el("h2", {id: "problems-title"}, ["Problems"])];
    if (!problems.length) {
      children.push(el("p", {className: "none"}, ["No problems found."]));
    }
    SEVERITIES.forEach(function (pair) {
      var items = problems.filter(function (p) { return p.severity === pair[0]; });
      if (!items.length) {
        return;
      }
      children.push(el("h3", {className: "severity-heading"}, [pair[1] + " (" + items.length + ")"]));
      children.push(el("ul", {className: "problem-list"}, items.map(function (p) {
        var links = [];
        (p.lines || []).forEach(function (n, i) {
          if (i) { links.push(", "); }
          links.push(el("a", {href: "#line-" + n}, ["line " + n]));
        });
        return el("li", {id: p.id, className: "problem problem--" + p.severity}, [
          el("span", {className: "badge badge--" + p.severity}, [p.code]), " ",
          el("span", {className: "problem-message"}, [p.message]), " ",
          p.hint ? el("span", {className: "problem-hint"}, [p.hint]) : null,
          links.length ? el("span", {className: "problem-lines"}, links) : null
        ]);
      })));
    });
    return el("section", {className: "panel problems", "aria-labelledby": "problems-title"}, children);
  }

  function echoSection(rows) {
    return el("section", {className: "panel echo-panel", "aria-labelledby": "echo-title"}, [
      el("h2", {id: "echo-title"}, ["Your list, line by line"]),
      el("ol", {className: "echo"}, rows.map(function (row) {
        var cls = "echo-row" + (row.status ? " echo-row--" + row.status : "");
        var w = worst(row.problems);
        if (w) { cls += " echo-row--has-" + w; }
        var marks = [];
        if (row.status) {
          marks.push(el("span", {className: "status status--" + row.status}, [
            el("span", {"aria-hidden": "true"}, [STATUS[row.status][0] + " "]), STATUS[row.status][1]
          ]), " ");
        }
        if (row.card) { marks.push(el("span", {className: "card-name"}, [row.card]), " "); }
        if (row.via) { marks.push(el("span", {className: "via"}, ["legal as " + row.via]), " "); }
        if (row.suggestions && row.suggestions.length) {
          marks.push(el("span", {className: "suggestions"}, ["Did you mean " + row.suggestions.join(", ") + "?"]), " ");
        }
        row.problems.forEach(function (p) {
          marks.push(el("a", {className: "badge badge--" + p.severity, href: "#" + p.id}, [hidden("problem "), p.code]), " ");
        });
        return el("li", {id: "line-" + row.line, className: cls}, [
          el("span", {className: "ln"}, [hidden("Line "), String(row.line)]), " ",
          el("code", {className: "raw"}, [row.text]), " ",
          el("span", {className: "marks"}, marks)
        ]);
      }))
    ]);
  }

  function countsSection(report, extras) {
    var c = report.counts || {};
    var rows = [["Pok\u00e9mon", c.pokemon], ["Trainer", c.trainer], ["Energy", c.energy], ["Unknown", c.unknown]]
      .map(function (pair) {
        return el("tr", {}, [el("th", {scope: "row"}, [pair[0]]), el("td", {}, [String(pair[1])])]);
      });
    rows.push(el("tr", {className: "total"}, [el("th", {scope: "row"}, ["Total"]), el("td", {}, [String(c.total)])]));
    var odds = extras && extras.opening_hand;
    var oddsText;
    if (odds) {
      oddsText = ["A " + odds.hand + "-card opening hand holds at least one Basic Pok\u00e9mon ",
        el("strong", {className: "odds-percent"}, [odds.percent]),
        " of the time (" + odds.basics + " Basic Pok\u00e9mon in " + odds.deck_size + " cards)."];
    } else if (extras) {
      oddsText = ["No cards, so no opening hand."];
    } else {
      oddsText = ["The opening-hand odds could not be computed just now; press Validate."];
    }
    return el("section", {className: "panel counts-panel", "aria-labelledby": "counts-title"}, [
      el("h2", {id: "counts-title"}, ["Counts"]),
      el("table", {className: "counts"}, [
        el("caption", {className: "visually-hidden"}, ["Cards by supertype"]),
        el("tbody", {}, rows)
      ]),
      el("p", {id: "odds", className: "odds"}, oddsText)
    ]);
  }

  function sharePanel(extras) {
    var share = extras && extras.share;
    var shareField;
    if (share && share.path && share.path.charAt(0) === "/" && share.path.charAt(1) !== "/") {
      var url = new URL(share.path, window.location.href).href;
      shareField = [
        el("label", {"for": "share-url"}, ["Share link (reproduces this result)"]),
        el("input", {id: "share-url", className: "share-url", type: "url", readonly: true, value: url}),
        el("p", {className: "help"}, [el("a", {id: "share-link", href: share.path}, ["Open the share link"])])
      ];
    } else {
      shareField = [
        el("label", {"for": "share-url"}, ["Share link (reproduces this result)"]),
        el("p", {id: "share-note", className: "help"}, [
          (share && share.note) || "The share link could not be made just now; press Validate."
        ])
      ];
    }
    var exportArea = el("textarea", {id: "export", className: "export", readonly: true, rows: "10", spellcheck: "false"});
    exportArea.value = (extras && extras.export) || "";
    var db = (extras && extras.database) || {};
    return el("section", {className: "panel share-panel", "aria-labelledby": "share-title"}, [
      el("h2", {id: "share-title"}, ["Share and export"]),
      el("div", {className: "field"}, shareField),
      el("div", {className: "field"}, [
        el("label", {"for": "export"}, ["PTCGL export of the cleaned list"]),
        exportArea,
        el("p", {className: "actions"}, [
          el("button", {type: "button", id: "copy-export", className: "button button--secondary"}, ["Copy as PTCGL export"]),
          " ",
          el("span", {id: "copy-status", className: "copy-status", role: "status"}, [])
        ])
      ]),
      db.version ? el("p", {className: "help database"}, [
        "Checked against card database " + db.version + " (" + Number(db.cards).toLocaleString("en-US") + " cards)."
      ]) : null
    ]);
  }

  function render(text, report, extras) {
    var problems = (report.problems || []).map(function (p, i) {
      var copy = {};
      Object.keys(p).forEach(function (k) { copy[k] = p[k]; });
      copy.id = "problem-" + (i + 1);
      return copy;
    });
    var nodes = [
      verdictSection(report),
      problemsSection(problems),
      echoSection(buildRows(text, report, problems, extras)),
      countsSection(report, extras),
      sharePanel(extras)
    ];
    result.replaceChildren.apply(result, nodes);
    document.title = (report.valid ? "Valid" : "Not valid") + " \u2013 deckcheck: check a Pok\u00e9mon TCG decklist";
  }

  function renderError(message) {
    result.replaceChildren(el("div", {id: "error", className: "alert", role: "alert", tabindex: "-1"}, [
      el("h2", {className: "alert-title"}, [el("span", {"aria-hidden": "true"}, ["! "]), "The list was not checked"]),
      el("p", {className: "alert-message"}, [message])
    ]));
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

  function validateNow() {
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
      setStatus("");
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
    Promise.all([
      postJson(validateUrl, payload, signal),
      postJson(extrasUrl, payload, signal).catch(function (err) {
        if (err && err.name === "AbortError") { throw err; }
        return null;
      })
    ]).then(function (answers) {
      if (mine !== seq) { return; }
      inflight = null;
      render(text, answers[0], answers[1]);
      setStatus(answers[0].summary || "");
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

  function showFormatHelp() {
    var option = format.options[format.selectedIndex];
    if (formatHelp && option) {
      formatHelp.textContent = option.getAttribute("data-description") || "";
    }
  }

  deck.addEventListener("input", schedule);
  format.addEventListener("change", function () { showFormatHelp(); schedule(); });
  date.addEventListener("change", schedule);
  result.addEventListener("click", function (event) {
    var target = event.target;
    if (target && target.closest && target.closest("#copy-export")) {
      copyExport();
    }
  });
  var serverCopy = document.getElementById("copy-export");
  if (serverCopy) {
    serverCopy.hidden = false;
  }
  // a list restored by the browser (back button) but never checked: check it now
  if (deck.value.trim() && !result.firstElementChild) {
    schedule();
  }
  form.setAttribute("data-enhanced", "true");
}());

"""The ``junit`` output format: JUnit XML, one test case per deck, for CI systems that show test reports."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .commandsafe import xml_command_safe
from .results import DEFAULT_OPTIONS, Options, Results, fails
from .text import render_text

# characters XML 1.0 cannot carry at all, even escaped: the complement of its Char production (tab, LF, CR,
# U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF), written as the few ranges it leaves out (the negated
# class of the allowed ranges is far costlier to compile). Compiled when this module is first imported:
# for the first JUnit output.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render_junit(results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
    """JUnit XML: one test case per deck, a ``<failure>`` for each deck that fails the run.

    A passing deck with warnings or info lists them in ``<system-out>``.
    """
    failed = sum(fails(r, opts.fail_on) for _, r in results)
    counts = {"tests": str(len(results)), "failures": str(failed), "errors": "0", "skipped": "0"}
    suites = ET.Element("testsuites", {"name": "deckcheck", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": "deckcheck", **counts})
    for path, report in results:
        case = ET.SubElement(
            suite, "testcase", classname=f"deckcheck.{report.format}", name=_xml_text(path), file=_xml_text(path)
        )
        lines = render_text([(path, report)], Options(summary=False))
        if fails(report, opts.fail_on):
            first = report.problems[0]
            failure = ET.SubElement(case, "failure", type=first.rule, message=_xml_text(report.summary))
            failure.text = _xml_text(lines)
        elif lines:
            ET.SubElement(case, "system-out").text = _xml_text(lines)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml_command_safe(ET.tostring(suites, encoding="unicode")) + "\n"

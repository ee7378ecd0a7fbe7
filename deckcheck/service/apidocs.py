"""A readable API reference at /api/v1/docs, rendered on the server from the OpenAPI document.

flask-smorest's Swagger UI, ReDoc and RapiDoc pages load their scripts from a
CDN; this page needs no script and no external asset, so it works offline and
behind strict content security policies. The interactive route is the JSON
document itself (``/api/v1/openapi.json``) in any OpenAPI tool.
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template
from markupsafe import Markup, escape

from ..patterns import Pattern
from .paths import API_PREFIX

bp = Blueprint("apidocs", __name__, url_prefix=API_PREFIX)

METHODS = ("get", "post", "put", "patch", "delete")
_CODE = Pattern(r"`([^`]+)`")


def _spec() -> dict:
    api = current_app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    return api.spec.to_dict()


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def type_label(schema: dict) -> Markup:
    """``string``, ``array of <a>Problem</a>``, ``date or null``... for a property or parameter."""
    if not schema:
        return Markup("any")
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        label = Markup('<a href="#schema-{0}">{0}</a>').format(name)
    elif "allOf" in schema and len(schema["allOf"]) == 1:
        label = type_label(schema["allOf"][0])
    elif schema.get("type") == "array":
        label = Markup("array of ") + type_label(schema.get("items", {}))
    elif schema.get("type") == "object" and "additionalProperties" in schema and not schema.get("properties"):
        label = Markup("object of ") + type_label(schema["additionalProperties"] or {})
    else:
        label = escape(schema.get("type", "any"))
        if schema.get("format"):
            label += Markup(" (") + escape(schema["format"]) + Markup(")")
    if schema.get("enum"):
        label += Markup(": one of ") + escape(", ".join(str(v) for v in schema["enum"]))
    if schema.get("nullable"):
        label += Markup(" or null")
    return label


def prose(text: str) -> Markup:
    """Paragraphs (split on blank lines), ``* `` bullet lists and `code` spans of a description, escaped."""
    out: list[Markup] = []
    items: list[Markup] = []
    words: list[str] = []

    def flush() -> None:
        if items:
            out.append(Markup("<ul>{}</ul>").format(Markup("").join(items)))
            items.clear()
        if words:
            out.append(Markup("<p>{}</p>").format(_inline(" ".join(words))))
            words.clear()

    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("* "):
            if words:
                flush()
            items.append(Markup("<li>{}</li>").format(_inline(line[2:])))
        elif line:
            if items:
                flush()
            words.append(line)
        else:
            flush()
    flush()
    return Markup("").join(out)


def _inline(text: str) -> Markup:
    parts = _CODE.split(text)
    return Markup("").join(
        escape(p) if i % 2 == 0 else Markup("<code>{}</code>").format(p) for i, p in enumerate(parts)
    )


def operations(spec: dict) -> list[dict]:
    """Every operation of the document, in path order, ready for the template."""
    out = []
    for path, item in spec.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            body = op.get("requestBody", {}).get("content", {})
            out.append(
                {
                    "id": f"{method}-{path}".replace("/", "-").replace("{", "").replace("}", ""),
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "parameters": item.get("parameters", []) + op.get("parameters", []),
                    "body": [(ctype, media.get("schema", {})) for ctype, media in body.items()],
                    "responses": [
                        (status, _response(spec, resp)) for status, resp in sorted(op.get("responses", {}).items())
                    ],
                }
            )
    return out


def _response(spec: dict, resp: dict) -> dict:
    if "$ref" in resp:
        resp = spec["components"]["responses"][_ref_name(resp["$ref"])]
    content: dict = resp.get("content", {})
    first: dict = next(iter(content.values()), {})
    schema = first.get("schema", {})
    return {"description": resp.get("description", ""), "schema": schema}


@bp.route("/docs")
def reference():
    """The API reference as one HTML page."""
    spec = _spec()
    return render_template(
        "apidocs/reference.html",
        spec=spec,
        info=spec["info"],
        operations=operations(spec),
        schemas=spec.get("components", {}).get("schemas", {}),
        type_label=type_label,
        prose=prose,
    )

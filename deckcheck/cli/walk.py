"""Which files ``deckcheck check`` reads: named files, quoted globs and folders walked as git would.

A folder is walked with ``.gitignore`` semantics (pathspec, matched by RE2 in time linear in the
path: :data:`~deckcheck.cli.globs.GLOB_ENGINE`): the ``.gitignore`` of every folder from the
repository root down, and ``.git/info/exclude``, each relative to its own folder, the deeper one
deciding; an ignored folder is never entered. Folders are walked with a stack, never recursion,
and a folder that cannot be listed (a path past the system's limit, no permission) is an
``unreachable-path`` problem, never a silent skip. We read the files
ourselves instead of asking ``git ls-files``: the result is the same inside and outside a
work tree, untracked decks are checked too, and no ``git`` binary is needed.

Only regular files are read: a FIFO, socket or device is never opened. A symbolic link to a
folder is not followed (its target, when inside the tree, is walked anyway); a link to a file
is read only when its target lies inside the tree being checked (the folder walked, or the
working directory for a named file), otherwise the deck gets a ``symlink-outside-tree``
problem and nothing of the target is read. A path written inside the working directory
that leads out of it through a link (``decks -> /etc``, ``decks/out/x.txt`` with ``decks/out``
a link) is one such problem too, whether named, matched by a glob or given as a folder.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import Any

from ..problems import Problem
from .globs import IgnoreRules, matchable, re2_options, re2_words
from .repoconfig import Config

STDIN = "-"
IGNORE_FILES = (".gitignore",)
#: the most of a ``.gitignore`` read (git reads the whole file; a larger one is someone's mistake)
IGNORE_MAX_BYTES = 1 << 20
_MAGIC = frozenset("*?[")


class PathError(ValueError):
    """A path on the command line names nothing (a usage error)."""


class Found:
    """A deck to report on: its path, the problem that keeps it from being read, if any, and whether
    a folder's walk found it (rather than the command line or a glob naming it): a file found in a
    folder that holds no card line is prose beside the decks (a README), not a deck. Read-only by
    convention."""

    __slots__ = ("path", "problem", "in_folder")

    path: str
    problem: Problem | None
    in_folder: bool

    def __init__(self, path: str, problem: Problem | None = None, in_folder: bool = False) -> None:
        self.path, self.problem, self.in_folder = path, problem, in_folder


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip(os.sep) + os.sep)


def _repo_root(folder: str) -> str | None:
    for here in (folder, *_parents(folder)):
        if os.path.exists(os.path.join(here, ".git")):
            return here
    return None


def _parents(folder: str):
    while True:
        up = os.path.dirname(folder)
        if up == folder:
            return
        yield up
        folder = up


def _read_ignore(path: str) -> IgnoreRules | None:
    try:
        # O_NONBLOCK and a regular file only: a FIFO named .gitignore must not hang the walk
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, encoding="utf-8", errors="replace") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            lines = fh.read(IGNORE_MAX_BYTES).splitlines()
    except OSError:
        return None
    rules = IgnoreRules(lines)
    return rules if rules else None


class _Ignores:
    """The ``.gitignore`` rules in force in one folder: (folder, spec) pairs, outermost first."""

    def __init__(self, rules: tuple = ()) -> None:
        self.rules = rules

    def below(self, folder: str, *extra: str) -> _Ignores:
        added = tuple(
            (folder, spec)
            for name in (*IGNORE_FILES, *extra)
            if (spec := _read_ignore(os.path.join(folder, name))) is not None
        )
        return _Ignores(self.rules + added) if added else self

    def ignored(self, path: str, folder: bool) -> bool:
        """The deepest ``.gitignore`` with a pattern that matches decides (pathspec's git rules)."""
        for base, spec in reversed(self.rules):
            rel = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if folder else "")
            decided = spec.decides(rel)
            if decided is not None:
                return decided
        return False

    @classmethod
    def for_folder(cls, folder: str) -> _Ignores:
        """The rules from the repository root down to ``folder`` (inclusive); none outside a repository."""
        folder = os.path.abspath(folder)
        root = _repo_root(folder)
        if root is None:
            return cls().below(folder)
        chain = [folder, *_parents(folder)]
        chain = chain[: chain.index(root) + 1][::-1]
        out = cls()
        for here in chain:
            out = out.below(here, *((os.path.join(".git", "info", "exclude"),) if here == root else ()))
        return out


def _outside_link(path: str, target: str, tree: str) -> Found:
    return Found(
        path,
        Problem(
            "symlink-outside-tree",
            f"The file is a symbolic link to {target!r}, outside "
            f"{tree}, the tree being checked; it was not followed "
            "or read.",
        ),
    )


def _escapes_cwd(given: str) -> Found | None:
    """A path written inside the working directory that a symbolic link (the path itself or a
    folder on the way) leads out of it: one ``symlink-outside-tree`` problem, nothing read or
    walked. A path written outside it (``/srv/decks``, ``../other``) is the user's own choice."""
    cwd = os.getcwd()
    if not _inside(os.path.abspath(given), cwd):
        return None
    real, tree = os.path.realpath(given), os.path.realpath(cwd)
    if _inside(real, tree):
        return None
    target = os.readlink(given) if os.path.islink(given) else real
    kind = "file" if not os.path.isdir(given) else "folder"
    via = "is a symbolic link to" if os.path.islink(given) else "leads through a symbolic link to"
    return Found(
        given,
        Problem(
            "symlink-outside-tree",
            f"The {kind} {via} {target!r}, outside the working "
            "directory, the tree being checked; it was not followed "
            "or read.",
        ),
    )


def _not_regular(path: str, mode: int) -> Found:
    kind = (
        "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return Found(path, Problem("unreadable-file", f"The path is {kind}, not a regular file; it was not read."))


def _name_regex(part: str) -> str:
    """One path component of a shell glob as a regular expression that never crosses ``/``:
    ``*``, ``?``, ``[abc]``, ``[!a-z]`` (or ``[^…]``), ``\\x`` for a literal ``x``. Linear in ``part``."""
    out, i = [], 0
    while i < len(part):
        c = part[i]
        if c == "*":
            out.append("[^/]*")
            while i + 1 < len(part) and part[i + 1] == "*":
                i += 1
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < len(part):
            i += 1
            out.append(re.escape(part[i]))
        elif c == "[":
            j = i + 1
            if j < len(part) and part[j] in "!^":
                j += 1
            if j < len(part) and part[j] == "]":
                j += 1
            while j < len(part) and part[j] != "]":
                j += 1
            if j >= len(part):  # no closing bracket: a literal [
                out.append(re.escape(c))
            else:
                body = part[i + 1 : j]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                # escaped: a backslash is literal, and [ & ~ | would be Python's future set syntax
                body = "".join("\\" + ch if ch in "\\[&~|" else ch for ch in body)
                out.append("[" + ("^/" if negate else "") + body + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _glob_regex(rest: str, given: str) -> Any:
    """The part of a glob after its literal head, as a regular expression for paths below the
    head: ``**`` as a whole component crosses any number of folders (also none; at the end:
    everything below), any other component stays within one name."""
    parts = rest.split("/")
    pieces = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            pieces.append(".+" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_name_regex(part) + ("" if last else "/"))
    import re2

    try:
        # matched by RE2, in time linear in the path, as every glob (globs.GLOB_ENGINE)
        return re2.compile("".join(pieces), re2_options())
    except re2.error as exc:
        raise PathError(f"{given!r} is not a valid glob ({re2_words(exc)})") from None


def _unreachable(folder: str, exc: OSError) -> Found:
    """The problem of a folder that cannot be listed: the run reports it and fails, never skips it silently."""
    why = exc.strerror or str(exc)
    if exc.errno == errno.ENAMETOOLONG:
        why += f" (its path is {len(os.fsencode(folder)):,} bytes, {folder.count(os.sep) + 1:,} folders deep)"
    return Found(
        folder,
        Problem(
            "unreachable-path",
            f"The folder could not be opened: {why}; the decklists in it were not checked.",
        ),
    )


def _entries(folder: str) -> list[os.DirEntry[str]]:
    """A folder's entries by name (raises OSError when it cannot be listed)."""
    with os.scandir(folder) as it:
        return sorted(it, key=lambda e: e.name)


def _expand(given: str) -> tuple[list[str], list[Found]]:
    """A quoted glob as the shell would expand it, without following links to folders: the
    files and folders below its literal head whose path matches the rest (``*``, ``?``, ``[]``
    within a name, ``**`` across folders; hidden names only when the glob spells the dot; a
    trailing ``/``: folders only); and an ``unreachable-path`` problem for each folder below the
    head that could not be listed. Walked with a stack, not recursion: any depth."""
    parts = given.replace(os.sep, "/").split("/")
    folders_only = given.endswith("/")
    if folders_only:
        parts = parts[:-1]
    n = next(i for i, part in enumerate(parts) if _MAGIC & set(part))
    head = "/".join(parts[:n]) or ("/" if given.startswith("/") else ".")
    rest = parts[n:]
    regex = _glob_regex("/".join(rest), given)
    dots = any(part.startswith(".") for part in rest)
    depth = None if "**" in rest else len(rest)  # without **, nothing deeper than the glob can match
    out: list[str] = []
    problems: list[Found] = []
    stack = [(head, 0)]
    while stack:
        folder, level = stack.pop()
        try:
            entries = _entries(folder)
        except OSError as exc:
            if folder != head:  # a head that is no folder: the glob matches nothing
                problems.append(_unreachable(folder, exc))
            continue
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if (folders_only and not is_dir) or (name.startswith(".") and not dots):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, head).replace(os.sep, "/")
            if regex.fullmatch(matchable(rel)):
                out.append(path if head != "." or given.startswith("./") else rel)
            # the names at the glob's depth are the deepest that can match; links to folders are not followed
            if is_dir and not entry.is_symlink() and (depth is None or level + 1 < depth):
                stack.append((path, level + 1))
    return sorted(out), problems


def _missing(given: str) -> str:
    """Why a path cannot be found: it does not exist, or the system says why it cannot be looked up."""
    try:
        os.lstat(given)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            return f"cannot be looked up: {exc.strerror or exc}"
    return "does not exist"


class Collector:
    """Turns command-line paths into the decks to check, each once, in order."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.covers_config = False  # did a walked folder hold the configuration's whole folder?

    def collect(self, paths: tuple[str, ...]) -> list[Found]:
        seen: set[str] = set()
        out: list[Found] = []
        for given in paths:
            for found in self._one(given):
                key = found.path if found.path == STDIN else os.path.abspath(found.path)
                if key not in seen:
                    seen.add(key)
                    out.append(found)
        return out

    def _one(self, given: str) -> list[Found]:
        if given == STDIN:
            return [Found(STDIN)]
        if not os.path.lexists(given):
            if _MAGIC & set(given):
                matches, unreachable = _expand(given)
                if not matches and not unreachable:
                    raise PathError(f"no file matches {given!r}")
                # as in a walk, a glob's match that is a link to a folder is not followed
                found = [f for m in matches if not (os.path.islink(m) and os.path.isdir(m)) for f in self._one(m)]
                return found + unreachable
            raise PathError(f"Path {given!r} {_missing(given)}.")
        if os.path.isdir(given):
            escaped = _escapes_cwd(given)
            return [escaped] if escaped is not None else self._walk(given)
        if self.cfg.excluded(given):
            return []
        escaped = _escapes_cwd(given)
        if escaped is not None:
            return [escaped]
        return [self._file(given, os.path.realpath(os.getcwd()), "the working directory")]

    def _file(self, path: str, tree: str, shown: str) -> Found:
        """A file named or found: read only a regular file, through a link only inside ``tree``."""
        if os.path.islink(path):
            target = os.path.realpath(path)
            if not _inside(target, tree):
                return _outside_link(path, os.readlink(path), shown)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return Found(path)  # dangling or unreadable: reading it reports why
        return Found(path) if stat.S_ISREG(mode) else _not_regular(path, mode)

    def _walk(self, top: str) -> list[Found]:
        cfg = self.cfg
        tree = os.path.realpath(top)
        if _inside(str(cfg.root), tree):
            self.covers_config = True
        found: list[Found] = []
        stack = [(top, _Ignores.for_folder(top))]
        while stack:
            folder, ignores = stack.pop()
            try:
                entries = _entries(folder)
            except OSError as exc:
                found.append(_unreachable(folder, exc))
                continue
            subfolders = []
            for entry in entries:
                path = os.path.join(folder, entry.name) if folder != "." else entry.name
                if entry.is_dir(follow_symlinks=False):
                    # hidden folders (.git, .venv) are never decklists
                    if (
                        not entry.name.startswith(".")
                        and not ignores.ignored(path, True)
                        and not cfg.excluded(path, folder=True)
                    ):
                        subfolders.append(path)
                    continue
                if entry.is_symlink() and os.path.isdir(path):
                    continue  # links to folders are not followed
                if not cfg.included(path) or ignores.ignored(path, False) or cfg.excluded(path):
                    continue
                if entry.is_symlink() or entry.is_file(follow_symlinks=False):
                    one = self._file(path, tree, f"{top!r}")
                    found.append(Found(one.path, one.problem, in_folder=True))
                # FIFOs, sockets and devices found in a folder are skipped: never opened
            for sub in reversed(subfolders):
                stack.append((sub, ignores.below(sub)))
        return sorted(found, key=lambda f: f.path)

"""Which files ``deckcheck check`` reads: named files, quoted globs and folders walked as git would.

A folder is walked with ``.gitignore`` semantics (pathspec): the ``.gitignore`` of every
folder from the repository root down, and ``.git/info/exclude``, each relative to its own
folder, the deeper one deciding; an ignored folder is never entered. We read the files
ourselves instead of asking ``git ls-files``: the result is the same inside and outside a
work tree, untracked decks are checked too, and no ``git`` binary is needed.

Only regular files are read: a FIFO, socket or device is never opened. A symbolic link to a
folder is not followed (its target, when inside the tree, is walked anyway); a link to a file
is read only when its target lies inside the tree being checked (the folder walked, or the
working directory for a named file), otherwise the deck gets a ``symlink-outside-tree``
problem and nothing of the target is read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

import pathspec

from .config import Config
from .problems import Problem

STDIN = "-"
IGNORE_FILES = (".gitignore",)
_MAGIC = frozenset("*?[")


class PathError(ValueError):
    """A path on the command line names nothing (a usage error)."""


@dataclass(frozen=True)
class Found:
    """A deck to report on: its path, and the problem that keeps it from being read, if any."""

    path: str
    problem: Problem | None = None


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


def _read_ignore(path: str) -> pathspec.GitIgnoreSpec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read(1 << 20).splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if spec.patterns else None


class _Ignores:
    """The ``.gitignore`` rules in force in one folder: (folder, spec) pairs, outermost first."""

    def __init__(self, rules: tuple = ()) -> None:
        self.rules = rules

    def below(self, folder: str, *extra: str) -> "_Ignores":
        added = tuple((folder, spec) for name in (*IGNORE_FILES, *extra)
                      if (spec := _read_ignore(os.path.join(folder, name))) is not None)
        return _Ignores(self.rules + added) if added else self

    def ignored(self, path: str, folder: bool) -> bool:
        for base, spec in reversed(self.rules):
            rel = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if folder else "")
            decided = None
            for p in spec.patterns:
                if p.include is not None and p.regex.match(rel):
                    decided = p.include
            if decided is not None:
                return decided
        return False

    @classmethod
    def for_folder(cls, folder: str) -> "_Ignores":
        """The rules from the repository root down to ``folder`` (inclusive); none outside a repository."""
        folder = os.path.abspath(folder)
        root = _repo_root(folder)
        if root is None:
            return cls().below(folder)
        chain = [folder, *_parents(folder)]
        chain = chain[:chain.index(root) + 1][::-1]
        out = cls()
        for here in chain:
            out = out.below(here, *((os.path.join(".git", "info", "exclude"),) if here == root else ()))
        return out


def _outside_link(path: str, target: str, tree: str) -> Found:
    return Found(path, Problem("symlink-outside-tree", f"The file is a symbolic link to {target!r}, outside "
                                                       f"{tree}, the tree being checked; it was not followed "
                                                       "or read."))


def _not_regular(path: str, mode: int) -> Found:
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    return Found(path, Problem("unreadable-file", f"The path is {kind}, not a regular file; it was not read."))


def _expand(given: str) -> list[str]:
    """A quoted glob as the shell would expand it, without following links to folders: the
    files and folders below its literal head whose path matches the rest (``*``, ``?``, ``[]``
    within a name, ``**`` across folders; hidden names only when the glob spells the dot)."""
    parts = given.replace(os.sep, "/").split("/")
    n = next(i for i, part in enumerate(parts) if _MAGIC & set(part))
    head = "/".join(parts[:n]) or ("/" if given.startswith("/") else ".")
    rest = "/".join(parts[n:])
    regex = pathspec.GitIgnoreSpec.from_lines(["/" + rest]).patterns[0].regex
    dots = any(part.startswith(".") for part in parts[n:])
    out = []
    for folder, dirs, files in os.walk(head):
        if not dots:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in (*dirs, *files):
            if name.startswith(".") and not dots:
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, head).replace(os.sep, "/")
            m = regex.match(rel) if regex is not None else None
            if m is not None and m.end() == len(rel):
                out.append(path if head != "." or given.startswith("./") else rel)
    return sorted(out)


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
                matches = _expand(given)
                if not matches:
                    raise PathError(f"no file matches {given!r}")
                return [f for m in matches for f in self._one(m)]
            raise PathError(f"Path {given!r} does not exist.")
        if os.path.isdir(given):
            return self._walk(given)
        if self.cfg.excluded(given):
            return []
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
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            subfolders = []
            for entry in entries:
                path = os.path.join(folder, entry.name) if folder != "." else entry.name
                if entry.is_dir(follow_symlinks=False):
                    # hidden folders (.git, .venv) are never decklists
                    if not entry.name.startswith(".") and not ignores.ignored(path, True) \
                            and not cfg.excluded(path, folder=True):
                        subfolders.append(path)
                    continue
                if entry.is_symlink() and os.path.isdir(path):
                    continue  # links to folders are not followed
                if not cfg.included(path) or ignores.ignored(path, False) or cfg.excluded(path):
                    continue
                if entry.is_symlink() or entry.is_file(follow_symlinks=False):
                    found.append(self._file(path, tree, f"{top!r}"))
                # FIFOs, sockets and devices found in a folder are skipped: never opened
            for sub in reversed(subfolders):
                stack.append((sub, ignores.below(sub)))
        return sorted(found, key=lambda f: f.path)

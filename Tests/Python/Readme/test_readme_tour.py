#!/usr/bin/env python3
"""The README's curl tour, run as a test: pasted into a shell, every command works and prints
what the README shows.

    python3 Tests/Python/Readme/test_readme_tour.py --url http://127.0.0.1:PORT

(scripts/check-readme.sh starts a server and runs it; TREE_URL may give the URL instead of
--url.) Plain Python 3, standard library only.

Which blocks: every ```sh fenced block of README.md from the tour's heading
(`## A session with curl`, TOUR_HEADING) up to the next level-2 heading (a line starting with
`## `); its `### ` subsections are part of the tour. Blocks of other languages are not run.

How a block is read:
  - a line that is not a comment and not blank starts a command; a line ending with `\\`
    continues it on the next line;
  - the comment lines right after a command (`# text`, or `#` alone), up to the first blank or
    command line, are what it prints, `# ` removed; a command with none must print nothing;
  - other comment lines (after a blank line) are narration and are not checked.

The first command must be `S=http://127.0.0.1:8080`: the test puts the URL it is given there.
The commands run in order, in one `bash -euo pipefail` process (stderr joined to stdout), from
a fresh temporary copy of the repository (every file git lists, tracked or not ignored, made a
git repository of its own, as a fresh clone is), which the tour must leave as it found it.

How an output is compared:
  - when the README shows JSON (the expected text starts with `{` or `[`), the output is parsed
    and compared structurally: `...` as a member of an object stands for any other members,
    as an element of an array for any number of elements, as a value for any value; member
    order does not matter. Values random by nature are not compared, only required: every
    `createdAt` and `expiresAt`, and the `id` of a session summary (an object with a
    `nodeCount` member);
  - else as text, line by line, after collapsing runs of whitespace and dropping blank lines:
    a line `...` stands for any number of lines, and `...` within a line for any characters.

Exits 0 when every command passed; else 1, naming the first command that failed or printed
something else, with what the README shows and what it printed.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
README = REPO / "README.md"
TOUR_HEADING = "## A session with curl"
FIRST_COMMAND = "S=http://127.0.0.1:8080"
MARK = "@@readme-tour-step"
RANDOM_MEMBERS = {"createdAt", "expiresAt"}


class TourError(Exception):
    pass


# ---------------------------------------------------------------- reading the README

class Step:
    source = "README.md"

    def __init__(self, line, command):
        self.line = line          # README line of the command's first line (1-based)
        self.command = command    # the command's text, continuation lines included
        self.expected = []        # the lines it prints, `# ` removed

    def name(self):
        lines = self.command.splitlines()
        more = " ..." if len(lines) > 1 else ""
        return f"{self.source} line {self.line}: {lines[0].strip()}{more}"


def tour_blocks(text):
    """The ```sh blocks between TOUR_HEADING and the next `## ` heading: [(first line, lines)]."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.rstrip() == TOUR_HEADING)
    except StopIteration:
        raise TourError(f"{Step.source} has no heading {TOUR_HEADING!r}")
    blocks, i = [], start + 1
    while i < len(lines) and not lines[i].startswith("## "):
        fence = lines[i].strip()
        if fence.startswith("```"):
            language = fence[3:].strip()
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            if j == len(lines):
                raise TourError(f"{Step.source} line {i + 1}: the block is not closed")
            if language == "sh":
                blocks.append((i + 2, lines[i + 1:j]))
            i = j
        i += 1
    if not blocks:
        raise TourError(f"no ```sh block under {TOUR_HEADING!r}")
    return blocks


def steps_of(blocks):
    steps = []
    for first, lines in blocks:
        i, current = 0, None
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if not stripped:
                current = None
            elif stripped.startswith("#"):
                if current is not None:
                    if stripped != "#" and not stripped.startswith("# "):
                        raise TourError(f"{Step.source} line {first + i}: a line of output must start with '# ' (or be '#' alone)")
                    current.expected.append(stripped[2:])
            else:
                step = Step(first + i, line)
                while line.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = lines[i]
                    step.command += "\n" + line
                steps.append(step)
                current = step
            i += 1
    if not steps or steps[0].command.strip() != FIRST_COMMAND:
        raise TourError(f"the tour's first command must be `{FIRST_COMMAND}`")
    return steps


# ---------------------------------------------------------------- JSON patterns

class Any:
    """`...` as a value: anything."""


class Rest:
    """`...` as an array element: any number of elements."""


class ObjectPattern:
    def __init__(self, members, open_):
        self.members, self.open = members, open_


class PatternParser:
    """JSON, where `...` may stand for members, elements or a value (see the module's doc)."""

    def __init__(self, text):
        self.text, self.i = text, 0
        self.decoder = json.JSONDecoder()

    def fail(self, what):
        raise ValueError(f"{what} at character {self.i} of the JSON shown")

    def ws(self):
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1

    def ellipsis(self):
        self.ws()
        if self.text.startswith("...", self.i):
            self.i += 3
            return True
        return False

    def expect(self, char):
        self.ws()
        if not self.text.startswith(char, self.i):
            self.fail(f"expected {char!r}")
        self.i += 1

    def peek(self, char):
        self.ws()
        return self.text.startswith(char, self.i)

    def document(self):
        value = self.value()
        self.ws()
        if self.i != len(self.text):
            self.fail("unexpected text after the JSON")
        return value

    def value(self):
        if self.ellipsis():
            return Any()
        self.ws()
        if self.peek("{"):
            return self.object()
        if self.peek("["):
            return self.array()
        try:
            value, self.i = self.decoder.raw_decode(self.text, self.i)
        except json.JSONDecodeError as error:
            self.fail(f"not JSON ({error.msg})")
        return value

    def object(self):
        self.expect("{")
        members, open_ = {}, False
        if self.peek("}"):
            self.i += 1
            return ObjectPattern(members, open_)
        while True:
            if self.ellipsis():
                open_ = True
            else:
                self.ws()
                try:
                    key, self.i = self.decoder.raw_decode(self.text, self.i)
                except json.JSONDecodeError:
                    self.fail("expected a member name")
                if not isinstance(key, str):
                    self.fail("expected a member name")
                self.expect(":")
                members[key] = self.value()
            if self.peek(","):
                self.i += 1
                continue
            self.expect("}")
            return ObjectPattern(members, open_)

    def array(self):
        self.expect("[")
        items = []
        if self.peek("]"):
            self.i += 1
            return items
        while True:
            items.append(Rest() if self.ellipsis() else self.value())
            if self.peek(","):
                self.i += 1
                continue
            self.expect("]")
            return items


def show(value):
    return json.dumps(value, ensure_ascii=False)


def mismatch(pattern, value, path):
    """None when `value` matches `pattern`, else what differs and where."""
    if isinstance(pattern, Any):
        return None
    if isinstance(pattern, ObjectPattern):
        if not isinstance(value, dict):
            return f"at {path}: expected an object, got {show(value)}"
        for key, member in pattern.members.items():
            if key not in value:
                return f"at {path}: the member {key!r} is missing"
            if key in RANDOM_MEMBERS or (key == "id" and "nodeCount" in value):
                continue
            difference = mismatch(member, value[key], f"{path}.{key}")
            if difference:
                return difference
        if not pattern.open:
            extra = [key for key in value if key not in pattern.members]
            if extra:
                return f"at {path}: unexpected member {extra[0]!r} (the README shows no `...` there)"
        return None
    if isinstance(pattern, list):
        if not isinstance(value, list):
            return f"at {path}: expected an array, got {show(value)}"
        if not any(isinstance(p, Rest) for p in pattern):
            if len(pattern) != len(value):
                return f"at {path}: expected {len(pattern)} elements, got {len(value)}: {show(value)}"
            for k, (p, v) in enumerate(zip(pattern, value)):
                difference = mismatch(p, v, f"{path}[{k}]")
                if difference:
                    return difference
            return None
        if array_matches(pattern, value):
            return None
        return f"at {path}: the elements do not match: {show(value)}"
    if isinstance(pattern, bool) or isinstance(value, bool) or not (
            isinstance(pattern, (int, float)) and isinstance(value, (int, float))):
        same = type(pattern) is type(value) and pattern == value
    else:
        same = pattern == value
    return None if same else f"at {path}: expected {show(pattern)}, got {show(value)}"


def array_matches(pattern, value):
    if not pattern:
        return not value
    head, rest = pattern[0], pattern[1:]
    if isinstance(head, Rest):
        return any(array_matches(rest, value[k:]) for k in range(len(value) + 1))
    return bool(value) and mismatch(head, value[0], "$") is None and array_matches(rest, value[1:])


# ---------------------------------------------------------------- text

def text_lines(text):
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def line_matches(pattern, line):
    parts = [re.escape(part) for part in pattern.split("...")]
    return re.fullmatch(".*".join(parts), line) is not None


def lines_match(patterns, lines):
    if not patterns:
        return not lines
    if patterns[0] == "...":
        return any(lines_match(patterns[1:], lines[k:]) for k in range(len(lines) + 1))
    return bool(lines) and line_matches(patterns[0], lines[0]) and lines_match(patterns[1:], lines[1:])


def compare(step, output):
    """None when the output is what the README shows, else why not."""
    expected = "\n".join(step.expected).strip()
    if not expected:
        return None if not output.strip() else "the README shows no output, but it printed some"
    if expected[0] in "{[":
        try:
            pattern = PatternParser(expected).document()
        except ValueError as error:
            raise TourError(f"{step.name()}: the JSON shown cannot be read: {error}")
        try:
            value = json.loads(output)
        except json.JSONDecodeError as error:
            return f"the README shows JSON, but the output is not JSON ({error.msg})"
        return mismatch(pattern, value, "$")
    patterns, lines = text_lines(expected), text_lines(output)
    if lines_match(patterns, lines):
        return None
    # Where it goes wrong, roughly: the first line shown that the output lacks (in order).
    k = 0
    for pattern in patterns:
        if pattern == "...":
            continue
        while k < len(lines) and not line_matches(pattern, lines[k]):
            k += 1
        if k == len(lines):
            return f"the text differs (line by line, whitespace collapsed): no line {pattern!r} where the README shows it"
        k += 1
    return "the text differs (line by line, whitespace collapsed): the output has lines the README does not show"


# ---------------------------------------------------------------- running

def fresh_checkout(dest):
    """A copy of every file git lists in the repository (tracked, or untracked and not
    ignored), made a git repository with those files added: what a fresh clone holds."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True).stdout
    for name in sorted(set(listed.decode().split("\0")) - {""}):
        source, target = REPO / name, dest / name
        if not source.is_symlink() and not source.exists():
            continue                      # deleted in the work tree, not committed yet
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    for command in (["git", "-c", "init.defaultBranch=main", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(command, cwd=dest, check=True, capture_output=True)


def tree_state(directory):
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=directory,
                          capture_output=True, text=True, check=True).stdout


def run_tour(steps, url, timeout):
    script = ["exec 2>&1"]
    for k, step in enumerate(steps):
        command = f"S={url}" if k == 0 else step.command
        script += [f"printf '\\n{MARK} {k}@@\\n'", command]
    script.append(f"printf '\\n{MARK} end@@\\n'")
    with tempfile.TemporaryDirectory(prefix="readme-tour-") as scratch:
        checkout = Path(scratch) / "checkout"
        checkout.mkdir()
        fresh_checkout(checkout)
        before = tree_state(checkout)
        (Path(scratch) / "tour.sh").write_text("\n".join(script) + "\n")
        environment = dict(os.environ, TMPDIR=scratch)
        # The output goes to a file, not a pipe: a command left running in the background (a
        # stream, after a later command failed) must not keep the tour from ending.
        with open(Path(scratch) / "output", "w+b") as log:
            process = subprocess.Popen(["bash", "-euo", "pipefail", str(Path(scratch) / "tour.sh")],
                                       cwd=checkout, stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, env=environment, start_new_session=True)
            try:
                status = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                status = None
            try:
                os.killpg(process.pid, signal.SIGKILL)    # whatever the tour left running
            except ProcessLookupError:
                pass
            process.wait()
            log.seek(0)
            raw = log.read()
        after = tree_state(checkout)
    pieces = re.split(rf"\n?{re.escape(MARK)} (\d+|end)@@\n", raw.decode(errors="replace"))
    outputs, finished = {}, False
    for label, body in zip(pieces[1::2], pieces[2::2]):
        if label == "end":
            finished = True
        else:
            outputs[int(label)] = body
    return outputs, finished, status, (before, after)


def check(url, timeout=120, readme=README, verbose=False):
    Step.source = Path(readme).name
    steps = steps_of(tour_blocks(Path(readme).read_text()))
    outputs, finished, status, (before, after) = run_tour(steps, url.rstrip("/"), timeout)
    for k, step in enumerate(steps):
        if k not in outputs:
            break
        output = outputs[k]
        last = k == max(outputs)
        if last and not finished:
            why = (f"it did not finish within {timeout} s" if status is None
                   else f"it failed (bash exited with status {status})")
            raise TourError(f"{step.name()}\n  {why}; it printed:\n{indent(output)}")
        difference = compare(step, output)
        if difference:
            shown = "\n".join(step.expected) or "(nothing)"
            raise TourError(f"{step.name()}\n  {difference}\n  the README shows:\n{indent(shown)}\n"
                            f"  it printed:\n{indent(output)}")
        if verbose:
            print(f"ok  {step.name()}")
    if not finished:
        raise TourError(f"the tour stopped before its first command (bash status {status}):\n"
                        f"{indent(outputs.get(0, ''))}")
    if before != after:
        raise TourError(f"the tour changed the checkout it ran in:\n{indent(after)}")
    return len(steps)


def indent(text):
    return "\n".join("    " + line for line in (text.rstrip("\n").splitlines() or ["(nothing)"]))


def test_readme_tour():
    """For a test runner: the URL comes from TREE_URL (skipped without it)."""
    url = os.environ.get("TREE_URL")
    if not url:
        raise unittest.SkipTest("TREE_URL is not set (scripts/check-readme.sh starts a server)")
    check(url)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("TREE_URL"),
                        help="the running server's base URL, e.g. http://127.0.0.1:18180")
    parser.add_argument("--timeout", type=float, default=120, help="seconds for the whole tour")
    parser.add_argument("--readme", default=str(README), help="the README to read (default: the repository's)")
    parser.add_argument("-v", "--verbose", action="store_true", help="name every command that passed")
    arguments = parser.parse_args()
    if not arguments.url:
        parser.error("--url (or TREE_URL) is required")
    try:
        count = check(arguments.url, arguments.timeout, arguments.readme, arguments.verbose)
    except TourError as error:
        print(f"README tour: FAILED\n{error}", file=sys.stderr)
        return 1
    print(f"README tour: {count} commands, every output as the README shows")
    return 0


if __name__ == "__main__":
    sys.exit(main())

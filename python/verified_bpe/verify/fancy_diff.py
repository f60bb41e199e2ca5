r"""The regex semantics against fancy-regex itself, at the version tiktoken 0.14 runs.

``python -m verified_bpe.verify.fancy_diff --patterns N --seed S`` draws ``N`` random patterns
of the fragment of ``lean/Bpe/Regex/Syntax.lean`` over :data:`~.regex_gen.FANCY_ALPHABET`
(:func:`~.regex_gen.random_pattern` with :data:`~.regex_gen.FANCY_FRAGMENT`), each with
``--texts`` random texts, prints each pattern (:func:`~verified_bpe.spec.regex.print.to_regex`)
and runs it with fancy-regex 0.19.0 (``rust/fancy_diff``, built by cargo into ``rust/target``):
``Regex::new`` and ``find_iter`` over the whole text, as tiktoken's ``encode_ordinary`` does,
and ``^(?:p)`` on the text from each offset (the anchored match).  The same pairs go through the
semantics' Python mirror (:mod:`verified_bpe.spec.regex.match`: ``find_iter_spans`` and
``match_at``, with the classes :data:`~.regex_gen.CLASSES`; the mirror is cross-checked against
compiled Lean by route 3, docs/regex.md).  A pair differs when the matches or an anchored end
differ, or fancy-regex fails (compile error, backtrack limit, stack).

The last line is ``fancy-regex differential: P patterns, T texts, D differ``; the exit status
is 1 when ``D > 0``.  ``--release`` builds the binary optimised (for long runs).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..spec.regex.match import find_iter_spans, match_at
from ..spec.regex.print import char_to_regex, property_to_regex, to_regex
from ..spec.regex.syntax import Classes, Property, Re
from .regex_gen import (
    CLASSES,
    FANCY_ALPHABET,
    FANCY_FRAGMENT,
    has,
    orbit,
    random_pattern,
    random_text,
)

REPO = Path(__file__).resolve().parents[3]
CRATE = REPO / "rust" / "fancy_diff"
TARGET = REPO / "rust" / "target"

#: fancy-regex's version: tiktoken 0.14.0's, pinned in rust/fancy_diff/Cargo.toml.
FANCY_REGEX_VERSION = "0.19.0"


def build(release: bool = False) -> Path:
    """Build ``rust/fancy_diff`` with cargo (``--locked``; a no-op when it is up to date) and
    return the binary."""
    cmd = ["cargo", "build", "--quiet", "--locked", "--manifest-path", str(CRATE / "Cargo.toml")]
    cmd += ["--target-dir", str(TARGET)] + (["--release"] if release else [])
    subprocess.run(cmd, check=True)
    return TARGET / ("release" if release else "debug") / "fancy_diff"


@dataclass(frozen=True)
class Answer:
    """fancy-regex on one text: ``find_iter``'s spans (code-point offsets), the error that
    ended it (or ``None``), and the anchored match's end from each offset (``None``: no match;
    ``-1``: an error)."""

    spans: list[tuple[int, int]]
    error: str | None
    anchored: list[int | None]


def _parse(line: str) -> Answer:
    found, _, anchored = line.partition("|")
    spans: list[tuple[int, int]] = []
    error = None
    for tok in found.split():
        if tok.startswith("!"):
            error = found[found.index("!") + 1 :].strip()
            break
        a, b = tok.split(":")
        spans.append((int(a), int(b)))
    ends = [None if t == "-" else -1 if t == "!" else int(t) for t in anchored.split()]
    return Answer(spans, error, ends)


def run_fancy(
    binary: Path, jobs: Sequence[tuple[str, Sequence[str]]]
) -> list[tuple[str | None, list[Answer]]]:
    """Run each ``(pattern, texts)`` of ``jobs`` with fancy-regex: the compile error (or
    ``None``) and the answers on the texts."""
    lines = []
    for pattern, texts in jobs:
        lines.append("P" + pattern.encode().hex())
        lines += ["T" + t.encode().hex() for t in texts]
    out = subprocess.run(
        [str(binary)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout.split("\n")
    results: list[tuple[str | None, list[Answer]]] = []
    pos = 0
    for _, texts in jobs:
        head = out[pos]
        pos += 1
        compile_error = None if head == "ok" else head.removeprefix("err ")
        answers = [_parse(out[pos + i]) for i in range(len(texts))]
        pos += len(texts)
        results.append((compile_error, answers))
    return results


def _cased() -> str:
    """The code points that Python's case mappings move, and the alphabet's orbits: where a
    case orbit of the alphabet can lie (the cheap scan of :func:`class_mismatches`)."""
    cps = {ord(c) for c in FANCY_ALPHABET} | {y for c in FANCY_ALPHABET for y in orbit(ord(c))}
    for x in range(0x1F000):  # the last cased code points are Adlam's, U+1E900-U+1E943
        c = chr(x)
        if not 0xD800 <= x < 0xE000 and (c.lower() != c or c.upper() != c or c.casefold() != c):
            cps.add(x)
    return "".join(chr(x) for x in sorted(cps))


def class_mismatches(binary: Path, everywhere: bool = False) -> list[str]:
    """Where :data:`~.regex_gen.CLASSES` is not fancy-regex's on the alphabet: each property
    (``\\p{…}``, ``\\s``) on each character, and each character's case orbit, i.e. the
    code points that ``(?i:c)`` matches, over every Unicode scalar value (``everywhere``) or
    over the cased ones (:func:`_cased`)."""
    bad = []
    props = list(Property)
    jobs = [(property_to_regex(False, p), [FANCY_ALPHABET]) for p in props]
    for p, (err, [ans]) in zip(props, run_fancy(binary, jobs), strict=True):
        found = {a for a, _ in ans.spans} if err is None else set()
        if found != {i for i, c in enumerate(FANCY_ALPHABET) if has(p, ord(c))}:
            bad.append(f"class {p.value}: fancy-regex {sorted(FANCY_ALPHABET[i] for i in found)}")
    chars = sorted(set(FANCY_ALPHABET))
    pats = [f"(?i:{char_to_regex(False, ord(c))})" for c in chars]
    if everywhere:
        lines = "".join(f"P{p.encode().hex()}\nU\n" for p in pats)
        out = subprocess.run(
            [str(binary)], input=lines, capture_output=True, text=True, check=True
        ).stdout.split("\n")
        matched = [sorted(int(x) for x in out[2 * i + 1].split()) for i in range(len(pats))]
    else:
        text = _cased()
        answers = run_fancy(binary, [(p, [text]) for p in pats])
        matched = [sorted(ord(text[a]) for a, _ in ans[0].spans) for _, ans in answers]
    for c, cps in zip(chars, matched, strict=True):
        if cps != sorted([ord(c), *orbit(ord(c))]):
            bad.append(f"orbit {c!r}: fancy-regex {[hex(x) for x in cps]}")
    return bad


def differences(
    r: Re, text: str, compile_error: str | None, ans: Answer | None, classes: Classes = CLASSES
) -> list[str]:
    """How fancy-regex's answer on ``text`` differs from the semantics' under ``classes``
    (empty: they agree)."""
    pattern = to_regex(r)
    if compile_error is not None or ans is None:
        return [f"compile {pattern!r}: {compile_error}"]
    t = [ord(c) for c in text]
    out = []
    if ans.error is not None:
        out.append(f"error {pattern!r} {text!r}: {ans.error}")
    elif find_iter_spans(classes, r, t) != ans.spans:
        spec = find_iter_spans(classes, r, t)
        out.append(f"find_iter {pattern!r} {text!r}: semantics {spec}, fancy-regex {ans.spans}")
    for i, end in enumerate(ans.anchored):
        if match_at(classes, r, t, i) != end:
            spec_end = match_at(classes, r, t, i)
            out.append(f"match_at {pattern!r} {text!r} at {i}: semantics {spec_end}, fancy {end}")
    return out


def run(
    binary: Path,
    n_patterns: int,
    seed: int,
    texts_per_pattern: int = 3,
    batch: int = 2000,
    classes: Classes = CLASSES,
) -> tuple[int, int, list[str]]:
    """``n_patterns`` random patterns, each on ``texts_per_pattern`` random texts: the numbers
    of patterns and texts and the differing pairs (one line each)."""
    rng = random.Random(seed)
    bad: list[str] = []
    done = 0
    while done < n_patterns:
        cases = []
        for _ in range(min(batch, n_patterns - done)):
            r = random_pattern(rng, FANCY_FRAGMENT)
            cases.append((r, [random_text(rng, FANCY_FRAGMENT) for _ in range(texts_per_pattern)]))
        results = run_fancy(binary, [(to_regex(r), texts) for r, texts in cases])
        for (r, texts), (compile_error, answers) in zip(cases, results, strict=True):
            for k, text in enumerate(texts):
                ans = answers[k] if compile_error is None else None
                diff = differences(r, text, compile_error, ans, classes)
                if diff:
                    bad.append("; ".join(diff))
        done += len(cases)
    return n_patterns, n_patterns * texts_per_pattern, bad


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m verified_bpe.verify.fancy_diff", description=__doc__
    )
    ap.add_argument("--patterns", type=int, default=1000, help="random patterns (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="the generator's seed (default 0)")
    ap.add_argument("--texts", type=int, default=3, help="random texts per pattern (default 3)")
    ap.add_argument("--release", action="store_true", help="build the binary optimised")
    ap.add_argument("--show", type=int, default=20, help="differences printed (default 20)")
    ap.add_argument(
        "--orbits-everywhere",
        action="store_true",
        help="pin the case orbits over every code point (default: over the cased ones)",
    )
    args = ap.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    start = time.monotonic()
    binary = build(release=args.release)
    built = time.monotonic()
    classes_bad = class_mismatches(binary, everywhere=args.orbits_everywhere)
    pinned = time.monotonic()
    n, t, bad = run(binary, args.patterns, args.seed, args.texts)
    bad = classes_bad + bad
    for line in bad[: args.show]:
        print(line)
    print(
        f"fancy-regex {FANCY_REGEX_VERSION}, seed {args.seed}: build {built - start:.1f} s, "
        f"classes pinned {pinned - built:.1f} s, run {time.monotonic() - pinned:.1f} s"
    )
    print(f"fancy-regex differential: {n} patterns, {t} texts, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

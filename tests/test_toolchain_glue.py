"""The patches to emscripten's `lean.js` glue (Lean: none; toolchain).

The slimmed export bindings must leave every binding that the glue reads as the stock glue
sets it; the oracle is the stock glue run by node on the same exports object.

The indexed `dlsym` must answer exactly as the stock glue's `Object.keys(obj).indexOf(name)`
and `Object.keys(obj)[i]` do, including after the exports object gains keys (the glue adds
`invoke_*` wrappers at run time). The oracle is the stock expression itself, run by node on
the same object.
"""

import json
import shutil
import subprocess

import pytest

from verified_bpe.toolchain.install import (
    DLSYM_HELPERS,
    DLSYM_INDEX_ORIG,
    DLSYM_INDEX_PATCHED,
    DLSYM_KEY_ORIG,
    DLSYM_KEY_PATCHED,
    MOUNT_ORIG,
    MOUNT_PATCHED,
    POOL_ORIG,
    POOL_PATCHED,
    SLIM_MARK,
    WORKER_ORIG,
    WORKER_PATCHED,
    ToolchainError,
    patch_lean_js,
    slim_exports,
)

# A stand-in for the export part of the glue: `_malloc` and `wasmTable` are read elsewhere,
# `_l_unused` and `_g_unused` are not; `_main` is bound to a differently named export.
EXPORTS = (
    "var _main,_malloc,_l_unused,_g_unused,wasmTable;"
    "function assignWasmExports(wasmExports){"
    '_main=Module["_main"]=wasmExports["__main_argc_argv"];'
    '_malloc=Module["_malloc"]=wasmExports["malloc"];'
    '_l_unused=Module["_l_unused"]=wasmExports["l_unused"];'
    '_g_unused=Module["_g_unused"]=wasmExports["g_unused"].value;'
    'Module["__indirect_function_table"]=wasmTable=wasmExports["__indirect_function_table"]'
    "}var wasmImports;var run=()=>[_main(),_malloc(),wasmTable];"
)

# A stand-in for the glue with each patched spot exactly once.
GLUE = (
    "var x=1;"
    + WORKER_ORIG
    + ";"
    + MOUNT_ORIG
    + POOL_ORIG
    + "var __dlsym_catchup_js=(handle,symbolIndex)=>{var symDict=handle;"
    + DLSYM_KEY_ORIG
    + "return symName};"
    + "var __dlsym_js=(lib,symbol)=>{var newSymIndex;"
    + DLSYM_INDEX_ORIG
    + "return newSymIndex};"
    + EXPORTS
)


def test_patch_applies_each_patch_once():
    out = patch_lean_js(GLUE)
    assert DLSYM_INDEX_PATCHED in out and DLSYM_INDEX_ORIG not in out
    assert DLSYM_KEY_PATCHED in out and DLSYM_KEY_ORIG not in out
    assert out.count(DLSYM_HELPERS) == 1
    assert out.index(DLSYM_HELPERS) < out.index("var __dlsym_catchup_js=")
    # no worker is started before `main`: the glue starts one per thread Lean creates
    assert POOL_PATCHED in out and POOL_ORIG not in out


def test_patch_is_idempotent_and_upgrades_an_older_glue():
    once = patch_lean_js(GLUE)
    assert patch_lean_js(once) == once
    # an install patched before the dlsym patches existed: worker and mount patches only
    older = GLUE.replace(WORKER_ORIG, WORKER_PATCHED).replace(MOUNT_ORIG, MOUNT_PATCHED)
    assert patch_lean_js(older) == once


def test_slim_exports_drops_only_unread_bindings():
    out = slim_exports(EXPORTS)
    assert out.startswith(SLIM_MARK + "var _main,_malloc,wasmTable;")
    assert "_l_unused" not in out and "_g_unused" not in out
    assert '_malloc=Module["_malloc"]=wasmExports["malloc"]' in out
    assert 'wasmTable=wasmExports["__indirect_function_table"]' in out
    assert slim_exports(out) == out


SLIM_SCRIPT = r"""
const Module = {};
const wasmExports = {
  __main_argc_argv: () => 1, malloc: () => 2, l_unused: () => 3,
  g_unused: {value: 4}, __indirect_function_table: [5],
};
%s
assignWasmExports(wasmExports);
console.log(JSON.stringify([run(), Object.keys(Module).sort()]));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_slim_exports_runs_as_the_stock_glue(tmp_path):
    results = []
    for glue in (EXPORTS, slim_exports(EXPORTS)):
        script = tmp_path / "exports.js"
        script.write_text(SLIM_SCRIPT % glue)
        out = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout))
    (stock_run, stock_keys), (slim_run, slim_keys) = results
    assert slim_run == stock_run == [1, 2, [5]]
    # only the unread bindings are gone from Module
    assert set(stock_keys) - set(slim_keys) == {"_l_unused", "_g_unused"}


def test_patch_refuses_changed_glue():
    with pytest.raises(ToolchainError, match="expected exactly one occurrence"):
        patch_lean_js(GLUE.replace(DLSYM_INDEX_ORIG, ""))
    with pytest.raises(ToolchainError, match="expected exactly one occurrence"):
        patch_lean_js(GLUE + DLSYM_KEY_ORIG)
    with pytest.raises(ToolchainError, match="export declaration"):
        patch_lean_js(GLUE.replace("function assignWasmExports", "function other"))


NODE_SCRIPT = (
    DLSYM_HELPERS
    + r"""
const stockIndex = (obj, name) => Object.keys(obj).indexOf(name);
const stockKey = (obj, i) => Object.keys(obj)[i];
const obj = {};
for (let i = 0; i < 2000; i++) obj["l_f" + i] = () => i;
Object.defineProperty(obj, "hidden", {value: 1, enumerable: false});
const names = ["l_f0", "l_f1999", "l_f7", "missing", "hidden", "toString", "__proto__"];
const answers = [];
const ask = () => {
  for (const n of names) answers.push([n, dlsymIndexOf(obj, n), stockIndex(obj, n)]);
  for (const i of [0, 5, 1999, 2000, 2001, 2500])
    answers.push([i, dlsymKeyAt(obj, i) ?? null, stockKey(obj, i) ?? null]);
};
ask();
// keys added after the first lookups (as the glue adds invoke_* wrappers)
obj["invoke_vi"] = () => 0; obj["missing"] = () => 1; obj["l_f7"] = () => 7;
names.push("invoke_vi");
ask();
console.log(JSON.stringify(answers));
"""
)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_indexed_dlsym_answers_as_the_stock_glue(tmp_path):
    script = tmp_path / "dlsym.js"
    script.write_text(NODE_SCRIPT)
    out = subprocess.run(["node", str(script)], capture_output=True, text=True, check=True)
    answers = json.loads(out.stdout)
    assert len(answers) == 2 * 6 + 7 + 8
    for query, ours, stock in answers:
        assert ours == stock, (query, ours, stock)
    # the cache was exercised on names that exist and that appeared later
    assert ["invoke_vi", 2000, 2000] in answers and ["missing", 2001, 2001] in answers

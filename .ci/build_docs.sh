#!/usr/bin/env bash
# Build the HTML documentation with warnings as errors.
#
# Usage: .ci/build_docs.sh <path-to-an-existing-venv> [output-dir]
#
# Activates the venv, installs the project with its "docs" extra, and runs
# sphinx-build -W --keep-going from a clean state (no cached environment),
# which also executes the gallery examples.  The HTML goes to output-dir
# (default: doc/_build/html).  Needs no network beyond the package index;
# set SKLEARN_RANKMETRICS_INTERSPHINX=1 to also link to the Python, NumPy,
# SciPy and scikit-learn docs (their inventories are then downloaded).
set -euo pipefail

if [ $# -lt 1 ] || [ ! -f "$1/bin/activate" ]; then
    echo "usage: $0 <path-to-an-existing-venv> [output-dir]" >&2
    exit 2
fi
venv=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
root=$(pwd)
out=${2:-$root/doc/_build/html}

# shellcheck disable=SC1091
. "$venv/bin/activate"
python -m pip install --quiet -e ".[docs]"

# Start clean: autosummary stubs, gallery output and the doctree cache are
# all rebuilt, so the result does not depend on an earlier build.
rm -rf doc/generated doc/auto_examples doc/_build/doctrees "$out"

start=$(date +%s)
MPLBACKEND=agg python -m sphinx -W --keep-going -b html \
    -d "$root/doc/_build/doctrees" doc "$out"
echo "Documentation built in $(($(date +%s) - start)) s: $out/index.html"

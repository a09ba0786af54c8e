#!/bin/sh
# Runs the whole open-banking flow of this workspace with newman and writes reports/report.html (see index.html).
# Needs only Node.js 20.19 or later. runner/run.mjs first asks for the secrets this folder does not hold (kept for the
# run only, never saved), then installs newman into runner/node_modules/ on the first run (runner/package-lock.json).
if ! command -v node >/dev/null 2>&1; then
  echo "error: run.sh needs Node.js 20.19 or later: install it from https://nodejs.org/ (or your package manager) and run again." >&2
  exit 2
fi
# Not cd: a key file typed as a relative path is relative to where the person is.
exec node "$(dirname "$0")/runner/run.mjs" "$@"

#!/bin/sh
# Runs the whole open-banking flow of this workspace with newman and writes reports/report.html (see index.html).
# Needs only Node.js 20.19 or later; newman is installed into node_modules/ on the first run (package-lock.json).
cd "$(dirname "$0")" || exit 2
if ! command -v node >/dev/null 2>&1; then
  echo "error: run.sh needs Node.js 20.19 or later: install it from https://nodejs.org/ (or your package manager) and run again." >&2
  exit 2
fi
if [ ! -f node_modules/newman/package.json ]; then
  echo "installing the runner (newman, pinned in package-lock.json) into node_modules/ (first run only)…" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2 || { echo "error: npm ci failed: check the network (or the npm registry setting) and run again." >&2; exit 2; }
fi
exec node run.mjs "$@"

@echo off
rem Runs the whole open-banking flow of this workspace with newman and writes reports\report.html (see index.html).
rem Needs only Node.js 20.19 or later; newman is installed into node_modules\ on the first run (package-lock.json).
setlocal
cd /d "%~dp0"
where node >nul 2>nul
if errorlevel 1 (
  echo error: run.cmd needs Node.js 20.19 or later: install it from https://nodejs.org/ and run again. 1>&2
  exit /b 2
)
if not exist node_modules\newman\package.json (
  echo installing the runner ^(newman, pinned in package-lock.json^) into node_modules\ ^(first run only^)... 1>&2
  call npm ci --no-audit --no-fund --loglevel=error 1>&2
  if errorlevel 1 (
    echo error: npm ci failed: check the network ^(or the npm registry setting^) and run again. 1>&2
    exit /b 2
  )
)
node run.mjs %*
exit /b %errorlevel%

@echo off
rem Runs the whole open-banking flow of this workspace with newman and writes reports\report.html (see index.html).
rem Needs only Node.js 20.19 or later. runner\run.mjs first asks for the secrets this folder does not hold (kept for the
rem run only, never saved), then installs newman into runner\node_modules\ on the first run (runner\package-lock.json).
setlocal
where node >nul 2>nul
if errorlevel 1 (
  echo error: run.cmd needs Node.js 20.19 or later: install it from https://nodejs.org/ and run again. 1>&2
  exit /b 2
)
node "%~dp0runner\run.mjs" %*
exit /b %errorlevel%

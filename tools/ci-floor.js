// CI that cannot shrink: checks one CI pass's vitest JSON report against what the pass must have run — each test file
// it names exists and ran (a named file that is gone, renamed or failed to load is a failure, not a smaller pass), and
// at least as many tests ran as the pass's floor in tools/ci-floors.json. vitest itself exits 0 when some of the files
// it was given do not exist, and nothing else notices a pass that lost tests.
//
// Floors follow the suite: a pass that ran more than its floor plus the file's `slack` fails too ("the floor lags the
// suite"), so the change that adds tests raises the floor with them and a floor never falls so far behind the count
// that tests could vanish unnoticed (a floor of 1,200 under a suite of 1,408 let 200 go).
//
//   node tools/ci-floor.js <vitest.json> <floor> [--files a.test.ts b.test.ts …]
//       <floor>: a key of tools/ci-floors.json ("every test", "end-to-end"), or "none" (a CI_TEST_FILES trial run:
//       the named files are still checked, the count is not)
//   node tools/ci-floor.js --raise <vitest.json> <floor>
//       sets that floor to the number of tests the report ran (only upwards; a floor is lowered by hand, with the
//       reason in the commit), after a green pass that added tests
//
// Tests skipped for a prerequisite OBFLOW_ALLOW_SKIPPED allows count as run (they are there; tools/check-skipped.js
// rules on the skips).
//
// Exit 0 with one line ("<floor>: N tests ran, floor F"); exit 1 with a line per problem.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const FLOORS = process.env.OBFLOW_CI_FLOORS ?? join(root, 'tools', 'ci-floors.json');

/**
 * Tests that ran (passed or failed) in a vitest JSON report, and the files it holds results for (repo-relative).
 * A test skipped for a prerequisite the job allows (OBFLOW_ALLOW_SKIPPED, as tools/check-skipped.js reads it: the spec
 * files on GitHub without OBFLOW_SPECS_REPO) counts as there: the job gave leave for it, it was not removed.
 */
export function ranIn(report, allowed = new Set()) {
  let ran = 0;
  let excused = 0;
  const files = new Set();
  for (const module of report.testResults ?? []) {
    files.add(relative(root, resolve(root, module.name)).split('\\').join('/'));
    for (const test of module.assertionResults ?? []) {
      if (test.status === 'passed' || test.status === 'failed') ran += 1;
      else if (allowed.has(test.meta?.skipPrerequisite)) excused += 1;
    }
  }
  return { ran: ran + excused, excused, files };
}

/** The problems of one pass (empty when it holds): named files missing or not run, fewer tests than the floor, or more
 *  than the floor plus the slack (the floor lags). */
export function problemsOf(
  report,
  { floor, slack, files = [], allowed = new Set(), exists = (path) => existsSync(resolve(root, path)), raise = '' },
) {
  const problems = [];
  const { ran, excused, files: reported } = ranIn(report, allowed);
  for (const file of files) {
    const path = relative(root, resolve(root, file)).split('\\').join('/');
    if (!exists(path))
      problems.push(`named test file missing: ${path} (the pass names it; restore it or take it out of the list in .ci/run)`);
    else if (!reported.has(path)) problems.push(`named test file did not run: ${path}`);
  }
  if (floor !== undefined && ran < floor) {
    problems.push(`${ran} tests ran, fewer than the floor of ${floor}: the pass shrank (tests removed, files not collected)`);
  }
  if (floor !== undefined && slack !== undefined && ran > floor + slack) {
    problems.push(
      `${ran} tests ran, more than the floor of ${floor} plus its slack of ${slack}: the floor lags the suite; raise it with the ` +
        `change that added the tests (${raise || 'node tools/ci-floor.js --raise <vitest.json> <floor>'}) and commit tools/ci-floors.json`,
    );
  }
  return { ran, excused, problems };
}

function readJson(file, what) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.log(`${what} ${file} cannot be read (${error.message})`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const args = process.argv.slice(2);
  const floors = readJson(FLOORS, 'the floors file');
  if (args[0] === '--raise') {
    const [, file, name] = args;
    const { ran } = ranIn(readJson(file, 'no vitest JSON report at'));
    const was = floors.floors[name];
    if (was === undefined) {
      console.log(`no floor named "${name}" in ${relative(root, FLOORS)} (${Object.keys(floors.floors).join(', ')})`);
      process.exit(1);
    }
    if (ran > was) {
      floors.floors[name] = ran;
      writeFileSync(FLOORS, `${JSON.stringify(floors, null, 2)}\n`);
    }
    console.log(`${name}: floor ${Math.max(ran, was)} (was ${was}; this report ran ${ran})`);
    process.exit(0);
  }
  const [file, name, ...rest] = args;
  const files = rest[0] === '--files' ? rest.slice(1) : rest;
  if (file === undefined || name === undefined) {
    console.log('usage: node tools/ci-floor.js <vitest.json> <floor|none> [--files …]');
    process.exit(1);
  }
  const floor = name === 'none' ? undefined : floors.floors[name];
  if (name !== 'none' && floor === undefined) {
    console.log(`no floor named "${name}" in ${relative(root, FLOORS)} (${Object.keys(floors.floors).join(', ')})`);
    process.exit(1);
  }
  const allowed = new Set(
    (process.env.OBFLOW_ALLOW_SKIPPED ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
  const slack = name === 'none' ? undefined : floors.slack;
  const raise = `node tools/ci-floor.js --raise ${file} '${name}'`;
  const { ran, excused, problems } = problemsOf(readJson(file, 'no vitest JSON report at'), { floor, slack, files, allowed, raise });
  for (const problem of problems) console.log(`CI ${problem.includes('the floor lags') ? 'floor' : 'shrank'}: ${problem}`);
  const leave = excused > 0 ? ` (${excused} of them skipped for an allowed prerequisite)` : '';
  console.log(
    `${name === 'none' ? 'no floor (a trial on named files)' : name}: ${ran} tests ran${leave}${floor === undefined ? '' : `, floor ${floor}`}`,
  );
  process.exit(problems.length > 0 ? 1 : 0);
}

// CI's skip gate on GitHub (.github/workflows/ci.yml; .ci/run counts the same report its own way): reads vitest's JSON
// report and fails when any test did not run — an `it.skip`, a `skipIf` without a note, a todo — unless it was skipped
// for a missing prerequisite the job allows by id (OBFLOW_ALLOW_SKIPPED, comma-separated: `specs` when no repository
// provides the spec files). Prerequisites record their id in the test's meta (test/helpers/prerequisites.ts).
//
//   node tools/check-skipped.js test-results/vitest.json
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/vitest.json';
const allowed = new Set(
  (process.env.OBFLOW_ALLOW_SKIPPED ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== ''),
);

let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`no vitest JSON report at ${file} (${error.message}): the tests did not run to the end`);
  process.exit(1);
}

let ran = 0;
const refused = [];
let excused = 0;
for (const module of report.testResults ?? []) {
  for (const test of module.assertionResults ?? []) {
    if (test.status === 'passed' || test.status === 'failed') {
      ran += 1;
      continue;
    }
    const id = test.meta?.skipPrerequisite;
    if (id !== undefined && allowed.has(id)) {
      excused += 1;
      continue;
    }
    refused.push(`${module.name}: ${test.fullName} (${test.status}: ${test.meta?.skipReason ?? 'no reason given'})`);
  }
}
for (const line of refused) console.log(`not run: ${line}`);
console.log(
  `${ran} tests ran, ${refused.length} did not run without leave` +
    (excused > 0 ? `, ${excused} skipped for an allowed prerequisite (${[...allowed].join(', ')})` : ''),
);
process.exitCode = refused.length > 0 ? 1 : 0;

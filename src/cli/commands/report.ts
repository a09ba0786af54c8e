// `obflow report merge <reports…> --out <dir>`: the JSON reports of a CI matrix's legs (and the leg-status files of
// legs that wrote none) merged into one page, one JUnit file and one summary (src/report/merge*.ts). Exit 1 when any
// leg failed or left no report (ERR_LEGS_FAILED, after every file is written), so the CI job's verdict is the matrix's.

import { ObflowError } from '../../errors.js';
import { DEFAULT_SLOWER_THRESHOLD } from '../../report/defaults.js';
import { defineCommand } from '../command.js';
import { loadCore } from '../context.js';

const mergeCommand = defineCommand({
  command: 'merge <reports..>',
  describe: "Merge the legs' JSON run reports into one page (legs × steps), a JUnit file and a summary JSON",
  positionals: {
    reports: {
      type: 'string',
      array: true,
      describe: 'Folders searched for obflow-run.json and obflow-leg.json (one leg per folder), or those files',
    },
  },
  options: [
    {
      out: { type: 'string', demandOption: true, describe: 'Folder for index.html, obflow-merged.{json,xml,md} and legs/' },
      previous: { type: 'string', describe: "The previous merge's folder or obflow-merged.json: what changed since" },
      'slower-threshold': {
        type: 'string',
        default: DEFAULT_SLOWER_THRESHOLD,
        describe: 'A step is slower when it took more than this share and/or time longer than before (50%, 500ms, 2s)',
      },
    },
  ],
  examples: [
    ['$0 report merge legs --out merged', 'every leg under legs/ (the artefacts of the CI jobs)'],
    ['$0 report merge legs --out merged --previous last-night/obflow-merged.json', 'and what changed since last night'],
    ['$0 report merge out/*/reports --out merged --slower-threshold 100%,2s', 'slower only when twice as long and 2 s more'],
  ],
  handler: async (argv, state) => {
    const core = await loadCore();
    const { summary, files } = await core.mergeRunReports({
      inputs: (argv.reports as string[] | undefined) ?? [],
      out: String(argv.out),
      ...(typeof argv.previous === 'string' ? { previous: argv.previous } : {}),
      slowerThreshold: String(argv['slower-threshold']),
      cwd: state.io.cwd,
    });
    const { counts } = summary;
    state.output.result({ passed: summary.passed, counts, files, ...(summary.changes !== undefined ? { changes: summary.changes } : {}) });
    for (const leg of summary.legs) {
      const failed = leg.steps.find((step) => step.status === 'failed');
      const why =
        leg.status === 'no-report'
          ? (leg.reason ?? '')
          : failed !== undefined
            ? `${failed.name}: ${failed.failures[0]?.check ?? 'failed'}`
            : (leg.reason ?? '');
      state.output.line(`${leg.status === 'passed' ? '✓' : '✗'} ${leg.id}${why !== '' ? ` — ${why}` : ''}`);
    }
    state.output.line(`wrote ${files[files.length - 1] ?? ''} (${counts.passed}/${counts.legs} legs passed)`);
    if (summary.passed) return;
    throw new ObflowError(
      'ERR_LEGS_FAILED',
      `${counts.failed + counts.noReport} of ${counts.legs} legs failed (${counts.failed} at a step or exit, ${counts.noReport} without a report)`,
      {
        hint: `Open ${files[files.length - 1] ?? 'index.html'}: the grid names each failing step and its rule, and links to that leg's report.`,
      },
    );
  },
});

export const reportCommand = defineCommand({
  command: 'report <command>',
  describe: 'Reports of many runs: merge the legs of a CI matrix into one page',
  refine: (yargs, state) => yargs.command(mergeCommand(state)).demandCommand(1, 'Name a report command: obflow report merge'),
  handler: () => undefined,
});

// The bench's comparisons with obflow's peers, run by bench/run.js after its own rows; also runnable alone
// while working on one of them: `node bench/peers.js [start] [flow] [generate] [emulator]` prints their table.
//
//  start      `npm start` wall (median of 5, identity present)  vs  plain newman of the whole flow; `obflow --help`
//             vs `node -e 0`; the demo's run step as it prints it vs plain newman (bench/start.js)
//  jo         `obflow demo --psu-user jo` (wall, peak RSS)  vs  plain newman as jo (bench/start.js)
//  flow       whole flow, script cost, jo paging (bench/flow.js)
//  generate   `obflow generate` cold  vs  Portman and openapi-to-postmanv2 on the OBIE AIS spec (bench/generate-peers.js)
//  emulator   GET /accounts at 32 keep-alive mTLS connections  vs  a bare node:https server (bench/emulator.js)

import { emulatorRows } from './emulator.js';
import { startFixture } from './fixture.js';
import { flowRows } from './flow.js';
import { generateRows } from './generate-peers.js';
import { benchOptions, errorRow, printTable, verdict } from './lib.js';
import { joRows, startRows } from './start.js';

export const SECTIONS = ['start', 'jo', 'flow', 'generate', 'emulator'];

/** Runs the named sections in order and returns their rows; each section's failure becomes a row, not a crash. */
export async function peerRows(sections = SECTIONS, log = (line) => console.error(line)) {
  const rows = [];
  let fixture;
  const bank = async () => (fixture ??= await startFixture());
  try {
    for (const section of sections) {
      log(`bench: ${section}…`);
      try {
        if (section === 'start') rows.push(...(await startRows(await bank())));
        else if (section === 'jo') rows.push(...(await joRows(await bank())));
        else if (section === 'flow') rows.push(...(await flowRows(await bank())));
        else if (section === 'generate') rows.push(...(await generateRows()));
        else if (section === 'emulator') rows.push(...(await emulatorRows(await bank())));
        else throw new Error(`unknown section ${section} (one of ${SECTIONS.join(', ')})`);
      } catch (error) {
        rows.push(errorRow(section, error));
      }
    }
  } finally {
    await fixture?.close();
  }
  return rows;
}

if (process.argv[1] === import.meta.filename) {
  const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const rows = await peerRows(wanted.length > 0 ? wanted : SECTIONS);
  printTable(rows);
  const { code, lines } = verdict(rows, benchOptions());
  for (const line of lines) console.log(line);
  process.exit(code);
}

// Another Node.js than the one running the tests, for the tests of what happens when obflow's native modules were
// built for a different runtime (ERR_NATIVE_MODULE): a runtime pinned in tools/runtimes.json and already fetched by
// tools/runtime.js (.ci/run fetches them before its first pass), or OBFLOW_TEST_OTHER_NODE. It must have another
// NODE_MODULE_VERSION than this one, or the modules would load. Missing, the tests are skipped with the reason (a
// failure under OBFLOW_REQUIRE_PREREQUISITES=1 / `runtime`).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT, type Prerequisite } from './prerequisites.js';

function modulesOf(node: string): string | undefined {
  const result = spawnSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function findOtherNode(): string | undefined {
  const candidates: string[] = [];
  if (process.env.OBFLOW_TEST_OTHER_NODE) candidates.push(process.env.OBFLOW_TEST_OTHER_NODE);
  const pins = JSON.parse(readFileSync(join(REPO_ROOT, 'tools', 'runtimes.json'), 'utf8')) as { runtimes: Record<string, unknown> };
  for (const line of Object.keys(pins.runtimes)) {
    const cached = spawnSync(process.execPath, [join(REPO_ROOT, 'tools', 'runtime.js'), line, '--cached'], { encoding: 'utf8' });
    if (cached.status === 0) candidates.push(join(cached.stdout.trim(), 'node'));
  }
  return candidates.find((node) => {
    const modules = modulesOf(node);
    return modules !== undefined && modules !== process.versions.modules;
  });
}

const found = findOtherNode();

/** The path of a Node.js whose native-module ABI differs from this one's (when `otherRuntime.missing` is undefined). */
export const OTHER_NODE = found ?? '';

export const otherRuntime: Prerequisite = {
  id: 'runtime',
  what: `a Node.js other than ${process.version} (another NODE_MODULE_VERSION)`,
  missing:
    found === undefined
      ? `none fetched: run \`node tools/runtime.js 24\` (or 26; tools/runtimes.json), or set OBFLOW_TEST_OTHER_NODE to one`
      : undefined,
};

// Prints, after vitest's own summary, every skipped test grouped by its reason: the note of ctx.skip(note) or the
// meta.skipReason of describeWith() (test/helpers/prerequisites.ts). A plain clone without ../shared or Chromium shows
// here exactly what it did not run and why; CI (OBFLOW_REQUIRE_PREREQUISITES=1) must show nothing.

import { relative } from 'node:path';

import type { Reporter, TestModule } from 'vitest/node';

const NO_REASON = 'no reason given (it.skip / skipIf without a note)';

export default class SkipReasons implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, Map<string, number>>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const reason = result.note ?? test.meta().skipReason ?? NO_REASON;
        const files = byReason.get(reason) ?? new Map<string, number>();
        const file = relative(process.cwd(), module.moduleId);
        files.set(file, (files.get(file) ?? 0) + 1);
        byReason.set(reason, files);
      }
    }
    if (byReason.size === 0) return;
    const lines = ['', ' Skipped tests, by reason:'];
    for (const [reason, files] of [...byReason].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const total = [...files.values()].reduce((sum, n) => sum + n, 0);
      lines.push(`   ${total} skipped: ${reason}`);
      for (const [file, n] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`      ${file} (${n})`);
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}

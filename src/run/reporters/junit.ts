// The `junit` reporter: newman's own JUnit XML, one file per newman.run (a batch of consecutive steps), redacted in
// place after the batch and once more at the end of the run (a token issued in a later step may already be quoted in
// an earlier file). Until redacted a file is marked unfinished, so an interrupt removes it (docs/errors.md
// "Interrupts"); when newman fails, the file is removed: never left behind with secrets in it.

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { markUnfinished, writeFileAtomic } from '../../fs.js';
import type { ReporterFactory } from '../events.js';

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

export const createJunitReporter: ReporterFactory = (context) => {
  const files: string[] = [];
  const unfinished = new Map<string, () => void>();
  const redactFile = async (path: string): Promise<void> => {
    const original = await readFile(path, 'utf8');
    const text = context.redact(original);
    if (text !== original) await writeFileAtomic(path, text, { secret: true });
  };
  return {
    onEvent: () => undefined,
    newmanReport: {
      open(steps) {
        const first = steps[0] ?? 'run';
        const last = steps[steps.length - 1] ?? first;
        const file = join(context.reportDir, `${safeFileName(first === last ? first : `${first}--${last}`)}.xml`);
        // newman writes the report before obflow redacts it: until then an interrupt removes it.
        unfinished.set(file, markUnfinished(file));
        return { reporter: 'junit', options: { export: file }, file };
      },
      async close(file, completed) {
        try {
          if (!completed) {
            await rm(file, { force: true });
            return;
          }
          await redactFile(file).catch(async (cause: unknown) => {
            await rm(file, { force: true });
            throw cause;
          });
          if (!files.includes(file)) files.push(file);
        } finally {
          unfinished.get(file)?.();
          unfinished.delete(file);
        }
      },
    },
    async finish() {
      for (const file of files) await redactFile(file);
      return [...files];
    },
  };
};

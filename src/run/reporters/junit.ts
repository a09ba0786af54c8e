// The `junit` reporter: newman's own JUnit XML, one file per newman.run (a batch of consecutive steps), redacted in
// place after the batch and once more at the end of the run (a token issued in a later step may already be quoted in
// an earlier file). Until redacted a file is marked unfinished, so an interrupt removes it (docs/errors.md
// "Interrupts"); when newman fails, the file is removed: never left behind with secrets in it. newman writes nothing for
// a request a script skipped (it sees no event for it): obflow adds a suite per skipped request, its one case
// `<skipped message="why"/>` (the JUnit schema's own element), so CI shows it skipped, never passed or missing.

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { markUnfinished, writeFileAtomic } from '../../fs.js';
import type { ReporterFactory, SkipEvent } from '../events.js';
import { money, vrpLimitText, type RunOutcomes } from '../../runner-rules.js';
import { buildRunSummary, outcomesOf } from '../summary.js';

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The file of a batch of consecutive steps: `<step>.xml`, or `<first>--<last>.xml`. */
export function junitFileName(first: string, last: string): string {
  return `${safeFileName(first === last ? first : `${first}--${last}`)}.xml`;
}

const xmlEscape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** The suites of the skipped requests, added to newman's file (before `</testsuites>`, or into an empty `<testsuites/>`). */
export function withSkippedCases(xml: string, skips: readonly Pick<SkipEvent, 'step' | 'item' | 'reason'>[]): string {
  if (skips.length === 0) return xml;
  const suites = skips
    .map(
      (skip) =>
        `  <testsuite name="${xmlEscape(`${skip.step} / ${skip.item}`)}" tests="1" failures="0" errors="0" skipped="1" time="0.000">\n` +
        `    <testcase name="${xmlEscape(skip.item)}" time="0.000" classname="${xmlEscape(skip.step)}">\n` +
        `      <skipped message="${xmlEscape(skip.reason)}"/>\n` +
        '    </testcase>\n' +
        '  </testsuite>\n',
    )
    .join('');
  if (xml.includes('</testsuites>')) return xml.replace(/<\/testsuites>\s*$/, `${suites}</testsuites>\n`);
  return xml.replace(/<testsuites([^>]*?)\/>\s*$/, `<testsuites$1>\n${suites}</testsuites>\n`);
}

/** What the run paid and checked as JUnit properties (a suite of no case: CI lists them with the run's suites), added
 *  to the run's last file: ids, amounts, statuses, signature counts, never a key or a signature. */
export function withOutcomeProperties(xml: string, outcome: RunOutcomes): string {
  const properties: [string, string | number | boolean | undefined][] = [];
  const { payment, funds, vrp } = outcome;
  if (payment !== undefined)
    properties.push(
      ['payment.DomesticPaymentId', payment.paymentId],
      ['payment.InstructedAmount', payment.amount === undefined ? undefined : `${payment.amount} ${payment.currency ?? ''}`.trimEnd()],
      ['payment.CreditorAccount.Name', payment.creditor],
      ['payment.Status', payment.status],
      ['payment.ConsentId', payment.consentId],
      ['payment.consent.Status', payment.consentStatus],
      ['payment.FundsAvailable', payment.fundsAvailable],
      ['payment.requestsSigned', payment.signatures?.signed],
      ['payment.bankSignaturesVerified', payment.signatures?.verified],
    );
  if (funds !== undefined) {
    properties.push(['funds.ConsentId', funds.consentId], ['funds.consent.Status', funds.consentStatus]);
    funds.checks.forEach((check, index) =>
      properties.push([`funds.check${index + 1}`, `${check.amount} ${check.currency} FundsAvailable ${check.available}`]),
    );
  }
  if (vrp !== undefined) {
    const currency = vrp.limits[0]?.currency ?? '';
    properties.push(
      ['vrp.ConsentId', vrp.consentId],
      ['vrp.consent.Status', vrp.consentStatus],
      ['vrp.VRPType', vrp.vrpType],
      ['vrp.paymentsMade', `${vrp.made} (${money(vrp.madeMinor)} ${currency})`],
      ['vrp.refusedAtLimit', vrp.refused],
      ['vrp.madePastLimit', vrp.madePastLimit],
      // One property per limit, as the terminal says it: the limit, what the run used of it, which payment hit it.
      ...vrp.limits.map((limit): [string, string] => [`vrp.${limit.member}`, `${limit.label}: ${vrpLimitText(limit)}`]),
    );
  }
  const lines = properties
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([name, value]) => `      <property name="${xmlEscape(name)}" value="${xmlEscape(String(value))}"/>\n`);
  if (lines.length === 0) return xml;
  const suite =
    '  <testsuite name="obflow: what the run paid and checked" tests="0" failures="0" errors="0" skipped="0" time="0.000">\n' +
    `    <properties>\n${lines.join('')}    </properties>\n` +
    '  </testsuite>\n';
  if (xml.includes('</testsuites>')) return xml.replace(/<\/testsuites>\s*$/, `${suite}</testsuites>\n`);
  return xml.replace(/<testsuites([^>]*?)\/>\s*$/, `<testsuites$1>\n${suite}</testsuites>\n`);
}

export const createJunitReporter: ReporterFactory = (context) => {
  const files: string[] = [];
  const unfinished = new Map<string, () => void>();
  const skips: SkipEvent[] = [];
  const batches = new Map<string, readonly string[]>();
  let outcome: RunOutcomes = {};
  const redactFile = async (path: string): Promise<void> => {
    const original = await readFile(path, 'utf8');
    const text = context.redact(original);
    if (text !== original) await writeFileAtomic(path, text, { secret: true });
  };
  return {
    onEvent(event) {
      if (event.type === 'skip') skips.push(event);
      if (event.type === 'done') {
        const summary = buildRunSummary({
          environment: event.result.environment,
          steps: event.result.steps,
          ...(event.result.planned !== undefined ? { planned: event.result.planned } : {}),
        });
        outcome = outcomesOf(summary);
      }
    },
    newmanReport: {
      open(steps) {
        const first = steps[0] ?? 'run';
        const last = steps[steps.length - 1] ?? first;
        const file = join(context.reportDir, junitFileName(first, last));
        // newman writes the report before obflow redacts it: until then an interrupt removes it.
        unfinished.set(file, markUnfinished(file));
        batches.set(file, steps);
        return { reporter: 'junit', options: { export: file }, file };
      },
      async close(file, completed) {
        try {
          if (!completed) {
            await rm(file, { force: true });
            return;
          }
          const steps = batches.get(file) ?? [];
          const skipped = skips.filter((skip) => steps.includes(skip.step));
          if (skipped.length > 0) {
            const original = await readFile(file, 'utf8');
            await writeFileAtomic(file, withSkippedCases(original, skipped), { secret: true });
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
      const last = files.at(-1);
      if (last !== undefined && Object.keys(outcome).length > 0)
        await writeFileAtomic(last, withOutcomeProperties(await readFile(last, 'utf8'), outcome), { secret: true });
      for (const file of files) await redactFile(file);
      return [...files];
    },
  };
};

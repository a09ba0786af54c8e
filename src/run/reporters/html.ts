// The html reporter as a subscriber of the run's typed events (src/run/events.ts), the `html` row of the reporters
// table (src/run/reporters/index.ts); the page itself is src/run/reporters/page.ts's. Events arrive redacted; the
// model's texts go through the context's `redact` once more when the file is written (a secret first seen later). The
// model is the one a workspace's run.mjs builds too.

import { join } from 'node:path';
import { writeFileAtomic } from '../../fs.js';
import { FAMILY_LIST } from '../../api-families.js';
import { apiLabel, knownVersionRow } from '../../generate/api-versions.js';
import { comparisonKindOf } from './compare-outcomes.js';
import { loadReportModule, obflowVersion, renderHtmlReport, type ReportCollector, type ReportModel } from './page.js';
import type { ReporterContext, RunEvent, RunStartEvent, RunSubscriber, RunTargetInfo } from '../events.js';
import { buildRunSummary, outcomesOf } from '../summary.js';
import { failureSummary } from '../verdict.js';

export const HTML_REPORT_FILE = 'report.html';

/** Events → the report model (pure apart from loading report.mjs once); `write` puts it somewhere when the run ends. */
export function reportSubscriber(
  context: ReporterContext,
  write: (model: ReportModel) => Promise<readonly string[]>,
  runner = 'obflow',
): RunSubscriber {
  let collector: ReportCollector | undefined;
  let start: RunStartEvent | undefined;
  let model: ReportModel | undefined;
  const began = new Map<string, number>();
  return {
    async onEvent(event: RunEvent) {
      collector ??= (await loadReportModule()).createReportCollector({ secretKeys: [], redact: context.redact });
      switch (event.type) {
        case 'start':
          start = event;
          break;
        case 'step':
          if (event.phase === 'begin') began.set(event.step, Date.parse(event.at));
          else {
            // The step's wall time, for the timing picture (a local step has no request times to add up).
            const ms = Date.parse(event.at) - (began.get(event.step) ?? Number.NaN);
            collector.step({
              name: event.step,
              passed: event.result.passed,
              ...(event.kind === 'local' ? { local: true } : {}),
              ...(Number.isFinite(ms) ? { ms: Math.max(0, ms) } : {}),
            });
          }
          break;
        case 'request':
          collector.request({ ...event, ms: event.responseTime, error: event.failure?.message });
          break;
        case 'assertion':
          if (event.status !== 'skipped')
            collector.assertion({
              step: event.step,
              item: event.item,
              name: event.name,
              passed: event.status === 'passed',
              ...(event.message !== undefined ? { message: event.message } : {}),
            });
          break;
        case 'skip':
          collector.skip({ step: event.step, item: event.item, reason: event.reason });
          break;
        case 'script':
          collector.assertion({
            step: event.step,
            item: event.item,
            name: `${event.listen} script: ${event.name}`,
            passed: false,
            message: event.message,
          });
          break;
        case 'done': {
          const { result } = event;
          const order = start?.steps.map((step) => step.name) ?? result.steps.map((step) => step.name);
          const summary = buildRunSummary({
            environment: result.environment,
            steps: result.steps,
            executions: result.executions,
            ...(result.planned !== undefined ? { planned: result.planned } : {}),
          });
          // The same "whose side, what to do" as the CLI's (src/run/verdict.ts); the details are on this page.
          const failure = failureSummary(result, 'the failed step below, and its checks');
          model = collector.model(
            {
              bank:
                start?.target === undefined ? 'unknown' : start.target.name === 'sandbox' ? 'obflow sandbox (emulator)' : start.target.name,
              profile: start?.target?.profile ?? '',
              obflowVersion: obflowVersion(),
              ranAt: start?.startedAt ?? event.finishedAt,
              runner,
              // The page names the API and version it ran (two legs' pages side by side are told apart), and the
              // balance as the version does (ITAV in AIS v4.0: its row's reportBalanceType).
              ...apiMeta(start?.target),
              ...(failure !== undefined ? { failure } : {}),
              ...outcomesOf(summary),
              order,
              complete: order.every((name) => result.steps.some((step) => step.name === name)),
            },
            summary.accounts,
          );
          // A run over several versions: the leg that holds the comparison gets it from the stage (computed once
          // there, src/pipeline/legs.ts); a difference the v4.0 code mapping does not explain fails the page, as it
          // fails the CLI's run. The other leg's page links to it.
          const page = context.versionPage;
          const comparison = page?.comparison?.(result);
          if (comparison !== undefined) model = { ...model, comparison, passed: model.passed && comparison.differences.length === 0 };
          if (page?.comparedIn !== undefined) model = { ...model, comparedIn: page.comparedIn };
          // A money family's later leg: its outcome beside the other version's, in the family row's words; a difference
          // fails the page as it fails the run (src/pipeline/verdict.ts).
          const outcomes = page?.outcomeComparison?.(result);
          if (outcomes !== undefined) {
            const { title, anchor, note } = comparisonKindOf(outcomes);
            const section = { ...outcomes, title, anchor, note };
            model = { ...model, outcomeComparisons: [section], passed: model.passed && outcomes.differences.length === 0 };
          }
          break;
        }
      }
    },
    async finish() {
      return model === undefined ? [] : write(model);
    },
  };
}

/** The page's API label (`AIS v4.0`, each family the run covered) and the balance type its version names, from the
 *  run's target: the version's row (src/generate/api-versions.ts) and the families' (src/api-families.ts). */
function apiMeta(target: RunTargetInfo | undefined): { api?: string; balanceType?: string } {
  const row = knownVersionRow(target?.apiVersion);
  if (row === undefined) return {};
  const families = (target?.families ?? []).flatMap((name) => FAMILY_LIST.filter((family) => family.name === name));
  return {
    ...(families.length > 0 ? { api: families.map((family) => apiLabel(family, row.version)).join(', ') } : {}),
    ...(row.reportBalanceType !== undefined ? { balanceType: row.reportBalanceType } : {}),
  };
}

export const htmlReporter = (context: ReporterContext): RunSubscriber =>
  reportSubscriber(context, async (model) => {
    const path = join(context.reportDir, HTML_REPORT_FILE);
    await writeFileAtomic(path, await renderHtmlReport(model));
    return [path];
  });

// The html reporter as a subscriber of the run's typed events (src/run/events.ts), the `html` row of the reporters
// table (src/run/reporters/index.ts); the page itself is src/run/reporters/page.ts's. Events arrive redacted; the
// model's texts go through the context's `redact` once more when the file is written (a secret first seen later). The
// model is the one a workspace's run.mjs builds too.

import { join } from 'node:path';
import { writeFileAtomic } from '../../fs.js';
import { compareVersions, legOfRun } from './compare-versions.js';
import { API_VERSIONS, BALANCE_TYPES, type ApiVersion } from '../../generate/api-versions.js';
import {
  loadReportModule,
  obflowVersion,
  renderHtmlReport,
  type ReportCollector,
  type ReportComparison,
  type ReportModel,
} from './page.js';
import type { ReporterContext, RunEvent, RunStartEvent, RunSubscriber } from '../events.js';
import { buildRunSummary } from '../summary.js';
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
              // AIS v4.0 names the balance by its ISO 20022 code.
              ...(start?.target?.apiVersion === '4.0' ? { balanceType: BALANCE_TYPES['4.0'] } : {}),
              ...(failure !== undefined ? { failure } : {}),
              order,
              complete: order.every((name) => result.steps.some((step) => step.name === name)),
            },
            summary.accounts,
          );
          const comparison = versionsSection(context, start, result);
          // A difference the v4.0 code mapping does not explain is a failed check of the page (as of the CLI's run).
          if (comparison !== undefined) model = { ...model, comparison, passed: model.passed && comparison.differences.length === 0 };
          break;
        }
      }
    },
    async finish() {
      return model === undefined ? [] : write(model);
    },
  };
}

/**
 * The "v3.1 beside v4.0" section of the later version's page in a run over both (`--api-version 3.1,4.0`): this run
 * and the other version's (ReporterContext.compareWith), compared as the CLI compares them. Undefined otherwise.
 */
function versionsSection(
  context: ReporterContext,
  start: RunStartEvent | undefined,
  result: Parameters<typeof legOfRun>[1],
): ReportComparison | undefined {
  const other = context.compareWith;
  const own = start?.target?.apiVersion ?? '3.1';
  const version = API_VERSIONS.find((candidate) => candidate === own);
  if (other === undefined || version === undefined || version === other.version) return undefined;
  const legs = new Map<ApiVersion, ReturnType<typeof legOfRun>>([
    [version, legOfRun(version, result)],
    [other.version, legOfRun(other.version, other.result)],
  ]);
  const v31 = legs.get('3.1');
  const v40 = legs.get('4.0');
  if (v31 === undefined || v40 === undefined) return undefined;
  return { ...compareVersions(v31, v40), other: { version: other.version, href: `../v${other.version}/${HTML_REPORT_FILE}` } };
}

export const htmlReporter = (context: ReporterContext): RunSubscriber =>
  reportSubscriber(context, async (model) => {
    const path = join(context.reportDir, HTML_REPORT_FILE);
    await writeFileAtomic(path, await renderHtmlReport(model));
    return [path];
  });

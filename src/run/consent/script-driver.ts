// Passing a bank's consent pages with a consent script (script.ts: the steps as data): each step waits for its element
// (or the bank's error message, which ends the consent with the bank's words), then fills, clicks or ticks. A step
// that finds nothing is one coded line naming the step and its selector (docs/pipeline.md, "Consent modes").

import type { Locator, Page } from 'playwright-core';
import { ObflowError } from '../../errors.js';
import { describeStep, type ConsentScript, type ConsentScriptStep, type CredentialName } from './script.js';

/** What a script's fill and tick steps take: the PSU's credentials, the accounts to share (default all offered). */
export interface ScriptInputs {
  credentials?: Partial<Record<CredentialName, string>>;
  accounts?: readonly string[] | undefined;
}

/** Runs the script's steps in order, counting in `ticked` the accounts its tick steps tick. */
export async function runScript(
  page: Page,
  script: ConsentScript,
  input: ScriptInputs,
  ticked: { count: number },
  beforeLast: () => void,
): Promise<void> {
  const errors = script.errorSelector === undefined ? undefined : page.locator(script.errorSelector);
  for (const [index, step] of script.steps.entries()) {
    const target = targetOf(page, step);
    await waitForStep(page, target, errors, script.steps, index);
    if (index === script.steps.length - 1) beforeLast();
    try {
      if ('fill' in step) {
        const value = input.credentials?.[step.with];
        if (value === undefined) throw new TypeError(`consent script: no ${step.with} was resolved for ${describeStep(step, index)}`);
        await target.fill(value);
      } else if ('click' in step) {
        await target.click();
      } else if ('tick' in step) {
        ticked.count += await tickAccounts(page, step.tick, input.accounts, describeStep(step, index));
      }
    } catch (error) {
      if (error instanceof ObflowError || error instanceof TypeError) throw error;
      throw scriptError(page, step, index, error);
    }
  }
}

function targetOf(page: Page, step: ConsentScriptStep): Locator {
  if ('waitFor' in step) return page.getByText(step.waitFor).first();
  return page.locator('fill' in step ? step.fill : 'click' in step ? step.click : step.tick).first();
}

/** Waits until the step's element is visible — or the bank's error message, which ends the consent with its words. */
async function waitForStep(
  page: Page,
  target: Locator,
  errors: Locator | undefined,
  steps: readonly ConsentScriptStep[],
  index: number,
): Promise<void> {
  const step = steps[index];
  if (step === undefined) throw new TypeError('waitForStep: no such step');
  try {
    await (errors === undefined ? target : target.or(errors.first())).first().waitFor({ state: 'visible' });
  } catch (error) {
    throw scriptError(page, step, index, error);
  }
  if (errors !== undefined && !(await target.isVisible()) && (await errors.first().isVisible())) {
    const said = (
      await errors
        .first()
        .innerText()
        .catch(() => '')
    )
      .replace(/\s+/g, ' ')
      .trim();
    const previous = steps[index - 1];
    const where = previous === undefined ? `at ${describeStep(step, index)}` : `after ${describeStep(previous, index - 1)}`;
    throw new ObflowError('ERR_CONSENT_REJECTED', `the bank refused ${where}: ${said}`, {
      hint: "Check the PSU's credentials (sandbox: README test users alex, sam, jo) and the accounts chosen; start the flow again.",
    });
  }
}

/** A step that found nothing (wrong selector, page changed) or failed: one coded line naming the step and selector. */
function scriptError(page: Page, step: ConsentScriptStep, index: number, error: unknown): ObflowError {
  const reason =
    (error as Error).name === 'TimeoutError'
      ? 'nothing on the page matched in time'
      : ((error as Error).message.split('\n')[0] ?? 'failed');
  const path = URL.canParse(page.url()) ? new URL(page.url()).pathname : page.url();
  return new ObflowError('ERR_CONSENT_SCRIPT', `consent script ${describeStep(step, index)} on ${path}: ${reason}`, {
    hint: "Fix that step's selector in flow.browser.script to match the bank's page (open the consent URL in a browser and inspect it).",
    cause: error,
  });
}

/** Ticks the checkboxes `selector` matches whose value or label is one of `accounts` (all when undefined). */
async function tickAccounts(page: Page, selector: string, accounts: readonly string[] | undefined, step: string): Promise<number> {
  const boxes = page.locator(selector);
  const total = await boxes.count();
  let selected = 0;
  for (let index = 0; index < total; index += 1) {
    const box = boxes.nth(index);
    const value = (await box.getAttribute('value')) ?? '';
    // The label a person reads: <label for>, a wrapping <label>, or aria-label.
    const label = await box.evaluate((element) => {
      const input = element as HTMLInputElement;
      return Array.from(input.labels ?? [], (node) => node.innerText).join(' ') || (input.getAttribute('aria-label') ?? '');
    });
    const wanted = accounts === undefined || accounts.some((choice) => choice === value || (choice !== '' && label.includes(choice)));
    if (wanted) {
      await box.check();
      selected += 1;
    }
  }
  if (selected === 0) {
    throw new ObflowError(
      'ERR_CONSENT_REJECTED',
      `none of the ${total} accounts offered at ${step} matched ${JSON.stringify(accounts ?? [])}`,
      {
        hint: 'Choose accounts the PSU holds (flow.browser.accounts: AccountIds or names), or leave it out to share all of them.',
      },
    );
  }
  return selected;
}

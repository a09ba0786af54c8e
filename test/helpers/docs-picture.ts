// The README's pictures of the bank's own pages (the payment and VRP consent pages) come from the browser tests that
// hold those pages, so a picture shows exactly what a test checked: `npm run docs:images` runs those tests with
// OBFLOW_DOCS_IMAGES naming the folder (docs/images). Without the variable nothing is written: a test never changes a
// tracked file.

import { join } from 'node:path';

import type { Page } from 'playwright-core';

/** Photographs the page into OBFLOW_DOCS_IMAGES/<name> when docs:images asks; otherwise does nothing. */
export async function docsPicture(page: Page, name: string): Promise<void> {
  const folder = process.env.OBFLOW_DOCS_IMAGES;
  if (folder === undefined || folder === '') return;
  await page.setViewportSize({ width: 900, height: 900 });
  await page.screenshot({ path: join(folder, name), fullPage: true });
}

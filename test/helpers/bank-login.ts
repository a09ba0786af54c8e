// The bank's PSU pages in Chromium: open a consent URL and log in as one of the emulator's test users, the redirect
// back to the TPP answered by a blank page so the test reads the URL the bank finally sent the browser to.

import type { Page } from 'playwright-core';

import { userByUsername } from '../../src/sandbox/data/users.js';

/** Opens the consent URL, logs in as `username`; resolves with the URL the bank finally redirected to. */
export async function loggedIn(page: Page, consentUrl: string, redirectUri: string, username: string): Promise<{ done: Promise<string> }> {
  const callbackOrigin = new URL(redirectUri).origin;
  let resolve: (url: string) => void = () => {};
  const done = new Promise<string>((r) => {
    resolve = r;
  });
  await page.route(`${callbackOrigin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>TPP</title>' }));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().startsWith(callbackOrigin)) resolve(frame.url());
  });
  await page.goto(consentUrl);
  const user = userByUsername(username);
  await page.getByLabel('Username').fill(user?.username ?? '');
  await page.getByLabel('Password').fill(user?.password ?? '');
  await page.getByRole('button', { name: 'Log in' }).click();
  return { done };
}

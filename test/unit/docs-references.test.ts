// Every citation of the repo's own docs in src/ and test/ resolves: `docs/bank-interface.md §N[.M]` names a numbered
// section of that file, `docs/<file>.md#anchor` a heading of that file; the bank's contract and the newman findings are
// cited from the repository only (docs/bank-interface.md, docs/pipeline.md#newman-findings), never from outside it.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';

function sources(dir: string): { path: string; text: string }[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ path: join(dir, file), text: readFileSync(join(REPO_ROOT, dir, file), 'utf8') }));
}

const files = [...sources('src'), ...sources('test')];
const doc = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchorsOf = (markdown: string): Set<string> =>
  new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] ?? '')));

describe("citations of the repo's docs", () => {
  it("cite the bank's interface and the newman findings from docs/ only", () => {
    const outside = files.flatMap(({ path, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          /(?<!docs\/)(bank-interface|newman-notes)\.md/.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(outside).toEqual([]);
  });

  it('docs/bank-interface.md §N names a section that exists', () => {
    const sections = new Set([...doc('docs/bank-interface.md').matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((match) => match[1]));
    const cited = files.flatMap(({ path, text }) =>
      [...text.matchAll(/docs\/bank-interface\.md[^§\n]*((?:§\d+(?:\.\d+)?[^§\n]*?)+)/g)].flatMap((match) =>
        [...(match[1] ?? '').matchAll(/§(\d+(?:\.\d+)?)/g)].map((section) => ({ path, section: section[1] ?? '' })),
      ),
    );
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter(({ section }) => !sections.has(section))).toEqual([]);
  });

  it('docs/<file>.md#anchor names a heading of that file', () => {
    const cited = files.flatMap(({ path, text }) =>
      [...text.matchAll(/docs\/([\w-]+\.md)#([\w-]+)/g)].map((match) => ({ path, file: match[1] ?? '', anchor: match[2] ?? '' })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ file, anchor }) => !anchorsOf(doc(`docs/${file}`)).has(anchor))).toEqual([]);
  });

  it('docs/<file>.md cited in src/ and test/ is a file of docs/; every relative link of the README and docs/ resolves', () => {
    const cited = files.flatMap(({ path, text }) =>
      [...text.matchAll(/docs\/([\w-]+\.md)\b/g)].map((match) => ({ path, file: match[1] ?? '' })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ file }) => !existsSync(join(REPO_ROOT, 'docs', file)))).toEqual([]);
    // Relative links of the Markdown pages (a document or a picture), resolved from the page's own folder.
    const pages = [
      'README.md',
      ...readdirSync(join(REPO_ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    const links = pages.flatMap((page) =>
      [...doc(page).matchAll(/\]\(([\w./-]+\.(?:md|png))(?:#[\w-]+)?\)/g)].map((match) => ({
        page,
        target: join(dirname(page), match[1] ?? ''),
      })),
    );
    expect(links).toContainEqual({ page: 'README.md', target: 'docs/postman-certificates.md' });
    expect(links).toContainEqual({ page: 'docs/postman-certificates.md', target: 'docs/images/postman-certificates.png' });
    expect(links.filter(({ target }) => !existsSync(join(REPO_ROOT, target)))).toEqual([]);
  });
});

// Every citation of the repo's own docs in src/ and test/ resolves: `docs/bank-interface.md §N[.M]` names a numbered
// section of that file, `docs/<file>.md#anchor` a heading of that file; the bank's contract and the newman findings are
// cited from the repository only (docs/bank-interface.md, docs/pipeline.md#newman-findings), never from outside it. And
// nothing a reader opens beside the code cites an issue by its number: a reader of the repository cannot open one.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Where the code and its tests are read. docs/notes.md, the team's dated history, keeps its numbers. */
const READ_BESIDE_THE_CODE = ['src', 'templates', 'bench', 'tools', '.ci', 'test', 'examples'];
/** The pages a user reads (docs/notes.md, the team's dated history, keeps its numbers) and the root's config files. */
const READ_BY_USERS = ['README.md', 'vitest.config.ts', 'eslint.config.js', 'package.json', 'tsconfig.json'];
/** This file, whose examples below are the forms the check refuses. */
const THIS_FILE = 'test/unit/docs-references.test.ts';
/** An issue cited by its number: the word before a number, with or without a hash, or a hash before one to four digits
 *  (a colour's six digits are not one). */
const ISSUE_NUMBER = /\b[Ii]ssues? #?\d+\b|(?<![&\w])#\d{1,4}\b/;
/** A hash before digits that is no issue: an HTML numeric character reference, whole or by the name a decoder gives it
 *  beside the named ones (test/helpers/sandbox-client.ts decodeHtml). */
const CHARACTER_REFERENCE = /&#\d+;|(?<=\|)#\d+(?=\))|'#\d+'(?=:)/g;
const citesAnIssue = (line: string): boolean => ISSUE_NUMBER.test(line.replace(CHARACTER_REFERENCE, ''));

function textFiles(dir: string): { path: string; text: string }[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((file) => join(dir, file))
    .filter((path) => path !== THIS_FILE && statSync(join(REPO_ROOT, path)).isFile())
    .map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }));
}

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

  it('cite the reason or a page a reader can open, never an issue number (the code, its tests, the docs but the notes, the README)', () => {
    // The check can fail: each form an issue was cited in is caught, and what only looks like one is not.
    const cited = ['// see #43', "it('#44 item 3: a rule')", '(issue 29)', 'Issue #19 item 5:', '(issues 13, 32)', "#43's start"];
    expect(cited.filter(citesAnIssue)).toEqual(cited);
    const notCited = ['&#39;', 'quot|#39);', "'#39': \"'\"", 'color: #202124;', '(OIDC Core §3.1.3.7 item 6)', 'src/pki/issue.ts'];
    expect(notCited.filter(citesAnIssue)).toEqual([]);
    const pages = [
      ...READ_BESIDE_THE_CODE.flatMap(textFiles),
      ...textFiles('docs').filter(({ path }) => path.endsWith('.md') && path !== join('docs', 'notes.md')),
      ...READ_BY_USERS.map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') })),
    ];
    const citations = pages.flatMap(({ path, text }) =>
      text.split('\n').flatMap((line, index) => (citesAnIssue(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(citations).toEqual([]);
  });
});

// The generate stage skips building and writing when the collections on disk are what it would write now (a stamp of
// the inputs' fingerprint and each file's SHA-256, src/generate/stamp.ts), and generates again when anything differs:
// a file edited or removed, a template changed, other options.

import { cpSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCollections } from '../../src/generate/collections.js';
import { stepFileName } from '../../src/generate/files.js';
import { currentCollections, GENERATED_STAMP_FILE, generatorFingerprint, stampText } from '../../src/generate/stamp.js';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../src/generate/templates.js';
import { generateStage } from '../../src/pipeline/generate.js';
import { tempDirSync } from '../helpers/temp.js';

const files = buildCollections({ templates: loadTemplates() });
const fresh = (): string => join(tempDirSync('obflow-stamp-'), 'collections');
const PAST = new Date('2020-01-01T00:00:00Z');

describe('generate stage: current collections are neither built nor written', () => {
  it('writes once, then finds them current (same files, same collections, untouched on disk)', async () => {
    const dir = fresh();
    const first = await generateStage(dir);
    expect(first.written).toBe(true);
    for (const file of files) expect(readFileSync(join(dir, file.fileName), 'utf8')).toBe(file.json);
    for (const file of files) utimesSync(join(dir, file.fileName), PAST, PAST);
    const second = await generateStage(dir);
    expect(second.written).toBe(false);
    expect(second.paths).toEqual(first.paths);
    expect(second.collections).toEqual(first.collections);
    for (const file of files) expect(statSync(join(dir, file.fileName)).mtime.getTime()).toBe(PAST.getTime());
  });

  it('generates again when a file was edited or removed, or the stamp is damaged', async () => {
    const dir = fresh();
    await generateStage(dir);
    const accounts = join(dir, stepFileName('accounts'));
    writeFileSync(accounts, readFileSync(accounts, 'utf8').replace('Bearer', 'Bearer '));
    expect((await generateStage(dir)).written).toBe(true);
    expect(readFileSync(accounts, 'utf8')).toBe(files.find((file) => file.fileName === stepFileName('accounts'))?.json);
    rmSync(accounts);
    expect((await generateStage(dir)).written).toBe(true);
    writeFileSync(join(dir, GENERATED_STAMP_FILE), '{not json');
    expect((await generateStage(dir)).written).toBe(true);
    expect((await generateStage(dir)).written).toBe(false);
  });

  it('the fingerprint changes with a template and with the options, and a stamp of another fingerprint is not current', async () => {
    const copy = join(tempDirSync('obflow-stamp-templates-'), 'templates');
    cpSync(DEFAULT_TEMPLATES_DIR, copy, { recursive: true });
    const base = generatorFingerprint({}, copy);
    expect(generatorFingerprint({}, DEFAULT_TEMPLATES_DIR)).toBe(base);
    const script = join(copy, 'scripts', 'check-echo.test.js');
    writeFileSync(script, `${readFileSync(script, 'utf8')}\n// changed\n`);
    expect(generatorFingerprint({}, copy)).not.toBe(base);
    expect(generatorFingerprint({ permissions: ['ReadAccountsBasic'] })).not.toBe(generatorFingerprint());

    const dir = fresh();
    await generateStage(dir);
    expect(await currentCollections(dir, generatorFingerprint())).toHaveLength(files.length);
    writeFileSync(join(dir, GENERATED_STAMP_FILE), stampText('another fingerprint', files));
    expect(await currentCollections(dir, generatorFingerprint())).toBeUndefined();
  });
});

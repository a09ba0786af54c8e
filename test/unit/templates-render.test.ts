// Line conditions in the collections' scripts (src/generate/templates.ts withLineConditions): a line that ends
// `// obflow:if <param>` is rendered without the marker when the param is true and left out otherwise, so one lintable
// script serves a variant (flow.jarm's response_mode lines in psu-consent.prerequest) and the default collections keep
// their bytes (generate.test's golden files).
import { describe, expect, it } from 'vitest';
import { buildCollections, loadTemplates } from '../../src/generate/index.js';
import { render, withLineConditions } from '../../src/generate/templates.js';

const SCRIPT = ['const a = 1;', "  a.mode = 'jwt'; // obflow:if jarm", 'done();'].join('\n');

describe('line conditions', () => {
  it('keep the line without its marker when the param is true, drop it when false', () => {
    expect(withLineConditions(SCRIPT, { jarm: true })).toBe("const a = 1;\n  a.mode = 'jwt';\ndone();");
    expect(withLineConditions(SCRIPT, { jarm: false })).toBe('const a = 1;\ndone();');
    expect(render(SCRIPT, { jarm: false })).toBe('const a = 1;\ndone();');
  });

  it('a marker naming a param the part does not give is an error, as a missing {{param}} is', () => {
    expect(() => withLineConditions(SCRIPT, {})).toThrow(/names "jarm"/);
  });

  it('flow.jarm: the consent URL asks response_mode=jwt; the default collections do not mention it', () => {
    const flowOf = (jarm: boolean) =>
      buildCollections({ templates: loadTemplates(), jarm }).find((file) => file.fileName === 'psu-consent.postman_collection.json')
        ?.json ?? '';
    expect(flowOf(true)).toContain("params.push(['response_mode', 'jwt'])");
    expect(flowOf(true)).not.toContain('obflow:if');
    expect(flowOf(false)).not.toContain('response_mode');
  });

  it('flow.jarm with PAR: the pushed request asks response_mode=jwt the same way (its lines marked in par.prerequest)', () => {
    const flowOf = (jarm: boolean) =>
      buildCollections({ templates: loadTemplates(), par: true, jarm }).find(
        (file) => file.fileName === 'psu-consent.postman_collection.json',
      )?.json ?? '';
    expect(flowOf(true)).toContain("params.push(['response_mode', 'jwt'])");
    expect(flowOf(false)).not.toContain('response_mode');
  });
});

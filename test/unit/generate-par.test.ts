// flow.par (issue 30): which collections push the authorization request, and what PAR adds to them — nothing at all
// when it is off (the golden files stay as they are: generate.test.ts "golden files").

import { describe, expect, it } from 'vitest';

import { buildCollections, FLOW_FILE_NAME, loadTemplates } from '../../src/generate/index.js';
import { parForGeneration } from '../../src/pipeline/generate.js';

type Mode = 'auto' | 'always' | 'never';
type SandboxPar = 'required' | 'optional' | 'off';
const config = (target: string, par: Mode, sandboxPar: SandboxPar = 'off') => ({ target, flow: { par }, sandbox: { par: sandboxPar } });

describe('parForGeneration', () => {
  it('always and never as they say; auto only for the embedded sandbox that requires PAR', () => {
    expect(parForGeneration(config('bank', 'always'))).toBe(true);
    expect(parForGeneration(config('sandbox', 'never', 'required'))).toBe(false);
    expect(parForGeneration(config('sandbox', 'auto', 'required'))).toBe(true);
    expect(parForGeneration(config('sandbox', 'auto', 'optional'))).toBe(false);
    expect(parForGeneration(config('bank', 'auto', 'required'))).toBe(false);
  });
});

describe('collections with PAR', () => {
  const templates = loadTemplates();
  const flowOf = (par: boolean): string =>
    buildCollections({ templates, par }).find((file) => file.fileName === FLOW_FILE_NAME)?.json ?? '';

  it('off: byte-identical to the default build', () => {
    expect(flowOf(false)).toBe(buildCollections({ templates }).find((file) => file.fileName === FLOW_FILE_NAME)?.json);
  });

  it('on: the pushed request before the authorization request, the endpoint checked at discovery, the verifier at the token endpoint', () => {
    const flow = flowOf(true);
    expect(flow).toContain('psu-consent: POST pushed authorization request');
    expect(flow).toContain('{{parEndpoint}}');
    expect(flow).toContain('{{code_verifier}}');
    expect(flow).toContain('pushed_authorization_request_endpoint');
    expect(flow.indexOf('POST pushed authorization request')).toBeLessThan(flow.indexOf('GET authorization endpoint'));
    expect(flowOf(false)).not.toContain('parEndpoint');
  });
});

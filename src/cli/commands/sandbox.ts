// `obflow sandbox`: run the bank emulator until Ctrl-C and print its addresses (one JSON line with --json).

import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { openCommand } from '../context.js';
import { whenStopRequested } from '../../interrupt.js';
import { SANDBOX_FAPI_OPTION, type SandboxFapiMode } from '../../fapi-profile.js';
import {
  API_FAMILY_NAMES,
  ID_TOKEN_FAULTS,
  PAGE_SKIN_NAMES,
  PAR_MODES,
  REFRESH_TOKEN_MODES,
  type ApiFamilyName,
  type IdTokenFault,
  type PageSkinName,
  type ParMode,
  type RefreshTokenMode,
  type TokenAuthMethod,
} from '../../sandbox/contracts.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../../client-auth.js';
import { parseFlagList } from '../../flag-list.js';
import { aisBasePath } from '../../generate/api-versions.js';

export const sandboxCommand = defineCommand({
  command: 'sandbox',
  describe: 'Run the local bank emulator (mTLS, DCR, discovery, token, authorise, AIS v3.1 and v4.0) until Ctrl-C',
  // The emulator's own options: its --apis are the families it serves and its --fapi is its mode (demo's
  // --sandbox-fapi), not the flow's --apis and --fapi of the shared table (src/cli/options.ts).
  options: [
    {
      'resource-port': { type: 'number', describe: 'Port of the resource server {sandbox_base_url} (default: free port)' },
      'auth-port': { type: 'number', describe: 'Port of the authorisation server {auth_url} (default: free port)' },
      'data-dir': { type: 'string', describe: 'Keep clients, consents and tokens here (default: <state-dir>/sandbox)' },
      seed: { type: 'string', describe: 'Seed of the emulated bank data' },
      'api-versions': {
        type: 'string',
        describe:
          'Account and Transaction API versions to serve side by side, comma-separated (3.1, 4.0; default: sandbox.apiVersions, else both)',
      },
      apis: {
        type: 'string',
        describe: 'API families to serve, comma-separated (accounts, payments, funds, vrp; default: sandbox.apis, else accounts)',
      },
      verbose: { type: 'boolean', describe: 'Log request and response bodies (secrets masked)' },
      'page-skin': {
        type: 'string',
        choices: PAGE_SKIN_NAMES,
        describe: 'Look of the PSU login and consent pages (alternate: other ids and texts, to test a consent script)',
      },
      'id-token-fault': {
        choices: ID_TOKEN_FAULTS,
        describe: 'Issue deliberately wrong id_tokens, to test that the TPP verifies them',
      },
      'token-auth': {
        type: 'string',
        describe:
          'Client authentication methods to accept, comma-separated (client_secret_basic, private_key_jwt, tls_client_auth; default: all)',
      },
      par: {
        choices: PAR_MODES,
        describe: 'Pushed authorization requests (RFC 9126): required, optional, or off (default: config sandbox.par)',
      },
      fapi: SANDBOX_FAPI_OPTION,
      'refresh-tokens': {
        choices: REFRESH_TOKEN_MODES,
        describe:
          'Refresh tokens: always (default: to every authorization_code client), or as-registered (only with grant_types refresh_token)',
      },
    },
  ],
  examples: [
    ['$0 sandbox --par required', 'as a FAPI 2.0 bank: only pushed authorization requests (with PKCE)'],
    ['$0 sandbox --refresh-tokens as-registered', 'the §2.1 registration (no refresh_token grant) gets no refresh token'],
    ['$0 sandbox --fapi 2.0', 'FAPI 2.0 Security Profile: PAR, PKCE S256, code only, iss, private_key_jwt or tls_client_auth'],
    ['$0 sandbox --resource-port 8443 --auth-port 9443', 'fixed ports, e.g. for Postman'],
    ['$0 sandbox --api-versions 3.1', 'v3.1 only, exactly docs/bank-interface.md (v4.0 paths 404)'],
    [
      '$0 sandbox --apis accounts,payments,funds,vrp',
      'also domestic payments (PISP), confirmation of funds (CBPII) and variable recurring payments, v3.1 and v4.0',
    ],
    ['$0 sandbox --json', 'one JSON line naming every address once ready'],
    ['$0 sandbox --page-skin alternate', "PSU pages another bank's consent script is written for"],
    ['$0 sandbox --id-token-fault bad-signature', 'id_tokens whose signature does not verify'],
    ['$0 sandbox --token-auth private_key_jwt,tls_client_auth', 'as the bank today: client_secret_basic refused'],
  ],
  handler: async (argv, state) => {
    // --fapi here is the emulator's mode (sandbox.fapi), not the TPP's profile (flow.fapi, the flag table's --fapi).
    const { core, config } = await openCommand(state, { ...argv, fapi: undefined });
    const fapiFlag = typeof argv.fapi === 'string' ? (argv.fapi as SandboxFapiMode) : undefined;
    const tokenAuth = typeof argv['token-auth'] === 'string' ? parseTokenAuth(argv['token-auth']) : undefined;
    const apis = typeof argv.apis === 'string' ? parseApis(argv.apis) : undefined;
    // FAPI 2.0 (the flag, config sandbox.fapi, or flow.fapi followed) requires PAR and private_key_jwt or
    // tls_client_auth (docs/sandbox.md, "FAPI modes"): a setting that contradicts it stops here, naming both.
    const contradiction = core.fapiContradiction(config, {
      ...(fapiFlag === undefined ? {} : { fapi: fapiFlag }),
      ...(typeof argv.par === 'string' ? { par: argv.par as ParMode } : {}),
      ...(tokenAuth === undefined ? {} : { tokenAuthMethods: tokenAuth }),
    });
    if (contradiction !== undefined) throw contradiction;
    // One sandbox per state folder: a second would share the data folder and take the addresses file from the first.
    await core.assertNoRunningSandbox(config.stateDir);
    if (await core.ensureLocalIdentity(config)) state.output.line(`issued a local test identity in ${core.localIdentityDir(config)}`);
    const dataDir =
      typeof argv['data-dir'] === 'string' ? resolve(state.io.cwd, argv['data-dir']) : core.stateLayout(config.stateDir).sandbox;
    const sandbox = await core.startEmbeddedSandbox(config, {
      dataDir,
      // Quiet or JSON: no request log at all, so the emulator formats no line per request only to drop it.
      ...(state.output.json || state.output.quiet ? {} : { log: (line: string) => state.io.stderr.write(`${line}\n`) }),
      verbose: argv.verbose === true,
      ...(typeof argv['page-skin'] === 'string' ? { pageSkin: argv['page-skin'] as PageSkinName } : {}),
      ...(typeof argv['id-token-fault'] === 'string' ? { idTokenFault: argv['id-token-fault'] as IdTokenFault } : {}),
      ...(tokenAuth === undefined ? {} : { tokenAuthMethods: tokenAuth }),
      ...(apis === undefined ? {} : { apis }),
      ...(typeof argv.par === 'string' ? { par: argv.par as ParMode } : {}),
      ...(fapiFlag === undefined ? {} : { fapi: fapiFlag }),
      ...(typeof argv['refresh-tokens'] === 'string' ? { refreshTokens: argv['refresh-tokens'] as RefreshTokenMode } : {}),
    });
    // Announce the addresses (and our pid, in the file only) so register/environment/run (target "sandbox") find this
    // emulator; another sandbox that claimed the file since the check above wins, and this one stops.
    try {
      await core.writeSandboxAddresses(config.stateDir, sandbox.urls);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    state.output.result(sandbox.urls);
    const { urls } = sandbox;
    state.output.line(`sandbox ready (data in ${dataDir}), FAPI mode ${sandbox.fapi}; Ctrl-C stops it`);
    state.output.line(`  {sandbox_base_url}     ${urls.sandbox_base_url}`);
    state.output.line(`  registration           ${urls.registration_endpoint}`);
    state.output.line(`  environment helper     ${urls.environment_helper}?client_id=…`);
    for (const version of config.sandbox.apiVersions)
      state.output.line(`  AIS v${version}               ${urls.sandbox_base_url}${aisBasePath(version)}`);
    for (const [name, profile] of Object.entries(urls.profiles)) {
      state.output.line(`  ${name.padEnd(22)} {auth_url} ${profile.auth_url}  token ${profile.token_url}`);
    }
    state.output.line(
      `  test users: ${Object.entries(core.SANDBOX_TEST_USERS)
        .map(([user, password]) => `${user} / ${password}`)
        .join(', ')}`,
    );
    // Ctrl-C or SIGTERM is this command's normal end (exit 0), not an interrupt (main.ts).
    await whenStopRequested();
    await sandbox.close();
    // Only our own announcement: a file naming another pid belongs to a sandbox that is still running.
    await core.removeSandboxAddresses(config.stateDir);
    state.output.line('sandbox stopped');
  },
});

/** `--apis a,b`: each a known API family, at least one (an unknown name would otherwise start a bank without it). */
function parseApis(text: string): ApiFamilyName[] {
  return parseFlagList(text, 'apis', API_FAMILY_NAMES, {
    unknownLabel: 'names unknown API families',
    hint: `Use one or more of ${API_FAMILY_NAMES.join(', ')}, comma-separated.`,
  });
}

/** `--token-auth a,b`: each a known method, at least one (a typo would otherwise start a bank that accepts nothing). */
function parseTokenAuth(text: string): TokenAuthMethod[] {
  return parseFlagList(text, 'token-auth', TOKEN_ENDPOINT_AUTH_METHODS, {
    unknownLabel: 'names unknown methods',
    hint: `Use one or more of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}, comma-separated.`,
  });
}

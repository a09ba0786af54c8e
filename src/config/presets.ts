// Bank presets: the published addresses of a well-known bank, filled into `bank` under whatever the config sets
// itself (file < environment < flags all win over the preset, key by key). One row per preset, with its source and
// the API versions that source documents.

import type { ApiVersion } from '../generate/api-versions.js';

/** The keys of `bank` a preset may fill (names as in the config). */
export interface BankPresetValues {
  name: string;
  sandbox_base_url: string;
  auth_url: string;
  token_url: string;
  environment_helper_path: string;
  registration_aud: string;
}

export interface BankPreset {
  /** Where the values come from (public; docs/pipeline.md "A model-bank preset" cites it). */
  source: string;
  /** The Account and Transaction API versions the source documents the bank serving (flow.apiVersion /
   *  --api-version choose among obflow's; docs/pipeline.md "A model-bank preset"). */
  apiVersions: readonly ApiVersion[];
  values: BankPresetValues;
}

/**
 * The UK Open Banking model bank (Ozone, "Model Bank v3.1.11"), from its public integration guide
 * (github.com/OpenBankingUK/OBL-ModelBank-Integration, branch v3.1.11, README: "OpenID Connect endpoints",
 * "3.1 Dynamic Client Registration" — `aud` must be the bank's issuer id 0015800001041RHAAY — and "3.1.4 Environment
 * File download" — GET {resource server}/ozone/v1.0/postman/environment with Basic client credentials).
 */
export const BANK_PRESETS = {
  'ozone-model-bank': {
    source: 'https://github.com/OpenBankingUK/OBL-ModelBank-Integration/tree/v3.1.11 (README)',
    // The branch the addresses come from documents "Model Bank v3.1.11": AIS at /open-banking/v3.1/aisp, nothing of
    // v4.0 — flow.apiVersion "3.1" (the default) with this preset, unless the bank's own pages say it serves v4.0.
    apiVersions: ['3.1'],
    values: {
      name: 'ozone-model-bank',
      sandbox_base_url: 'https://rs1.obie.uk.ozoneapi.io',
      auth_url: 'https://auth1.obie.uk.ozoneapi.io',
      token_url: 'https://as1.obie.uk.ozoneapi.io/token',
      environment_helper_path: '/ozone/v1.0/postman/environment',
      registration_aud: '0015800001041RHAAY',
    },
  },
} as const satisfies Record<string, BankPreset>;

export type BankPresetName = keyof typeof BANK_PRESETS;
export const BANK_PRESET_NAMES = Object.keys(BANK_PRESETS) as [BankPresetName, ...BankPresetName[]];

/** Pure: a raw (merged, unvalidated) config with its bank preset's values under the keys it does not set itself. An
 *  unknown preset name is left for the schema to report. */
export function applyBankPreset(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const bank = (raw as { bank?: unknown }).bank;
  if (typeof bank !== 'object' || bank === null || Array.isArray(bank)) return raw;
  const name = (bank as { preset?: unknown }).preset;
  if (typeof name !== 'string' || !Object.hasOwn(BANK_PRESETS, name)) return raw;
  const preset = BANK_PRESETS[name as BankPresetName];
  const filled: Record<string, unknown> = { ...preset.values };
  for (const [key, value] of Object.entries(bank)) if (value !== undefined) filled[key] = value;
  return { ...raw, bank: filled };
}

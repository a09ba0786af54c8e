// The data a flow step is made of: request items with their script parts. Steps return these; collections.ts turns
// them into Postman items. No I/O, no SDK here.

import type { ApiFamily } from '../api-families.js';
import type { FapiProfile } from '../fapi-profile.js';
import type { ApiVersion } from './api-versions.js';
import type { SchemaName } from './schemas.js';
import type { VrpSettings } from './vrp-plan.js';

/** The JSON schemas a script part can check a body against: templates/schemas/<name>.json. */
export type ResponseSchema = SchemaName | 'openid-configuration' | 'token-response' | 'oauth-error';

/** One rendered piece of a script: a template under templates/scripts/ and its parameters. */
export interface ScriptPart {
  template: string;
  params?: Record<string, unknown>;
  /**
   * The schema the part checks a body against. The part carries it: its name (`schemaName`), title (`schemaTitle`)
   * and JSON text without annotations (`schemaText`) are its parameters (docs/collections.md "Schemas").
   */
  schema?: ResponseSchema;
  /**
   * Which answers the part checks when it follows a status check (check-status.test): by default only the expected
   * one; `any` every answer; `error` only an answer with another status (checked against the error shape the standard
   * gives it, never against the success schema).
   */
  answer?: 'any' | 'error';
}

export type RequestBody =
  | { mode: 'raw'; template: string; contentType: string; params?: Record<string, unknown> }
  | { mode: 'urlencoded'; pairs: readonly (readonly [string, string])[] };

export interface RequestItemSpec {
  /** Unique across the whole flow: pm.execution.setNextRequest targets it by name. */
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Raw URL with {{variables}} only (no addresses, no secrets). */
  url: string;
  headers: readonly (readonly [string, string])[];
  body?: RequestBody;
  /** protocolProfileBehavior.followRedirects = false: the test script reads Location (newman notes "Redirects"). */
  followRedirects?: false;
  prerequest: readonly ScriptPart[];
  test: readonly ScriptPart[];
  /** An answer with this status means the bank does not offer what the item asks for (an endpoint it has not
   *  implemented is a 404, OB R/W Data API Profile "400 (Bad Request) v/s 404 (Not Found)"): the item's checks do not
   *  run, and its script logs `skipped: <reason>`, so the step is skipped with its reason (src/runner-rules.ts). */
  skipOn?: { status: number; reason: string };
}

export interface StepSpec {
  name: string;
  title: string;
  description: string;
  items: readonly RequestItemSpec[];
}

/** What every step builder receives: generation options already defaulted. */
export interface StepContext {
  /** The API family whose flow the steps build (src/api-families.ts): its scope, its steps. */
  family: ApiFamily;
  /** The API version the requests speak (steps/common.ts AIS_VERSIONS, steps/payments-common.ts). */
  apiVersion: ApiVersion;
  /** Permissions of the account-access consent (AIS v3.1 Account Access Consents, "Permissions"). */
  permissions: readonly string[];
  /** Unsupported calls, one per family (docs/bank-interface.md §4.5 rule 1, §4.7). */
  unsupported: readonly UnsupportedCall[];
  /** Pushed authorization requests with PKCE (flow.par resolved): the discovery step checks the endpoint,
   *  psu-consent pushes the request first, code-exchange sends the code_verifier. Absent: off (the default collections). */
  par?: boolean;
  /** JARM for response_type code (flow.jarm): response_mode=jwt asked, the response JWT verified before the
   *  code is taken. Absent: off (the default collections). */
  jarm?: boolean;
  /** The FAPI profile's row (flow.fapi, src/fapi-profile.ts): the steps read the request object's typ, whether iss is
   *  required in the redirect (RFC 9207) and whom a client assertion names as aud from it. */
  fapi: FapiProfile;
  /** The VRP family's type and mandate (flow.vrp): the consent's ControlParameters and the mandate walk planned from
   *  them (src/generate/vrp-plan.ts). Absent: the defaults (the golden collections). */
  vrp?: VrpSettings;
}

export interface UnsupportedCall {
  /** Path after /open-banking/v3.1/aisp, e.g. "/beneficiaries". */
  path: string;
  family: string;
}

/** Standard checks of a response: which templates/scripts/check-*.test.js parts a step gets (steps/common.ts). */
export interface Checks {
  /** Absent: the step's own script checks the status. */
  status?: number;
  /** Compare x-fapi-interaction-id with the one sent (resource server; FAPI 1 Baseline §6.2.1 item 11). */
  echo: 'required' | 'if-present';
  schema?: ResponseSchema;
  contentType?: string;
  /** The error shape the standard gives an answer with another status: `oauth`, an OAuth error response (RFC 6749
   *  §5.2, the token endpoint); `obie`, OBErrorResponse1 or no body by status (OBIE AIS v3.1); `obie-v4`, the v4.0
   *  OBErrorResponse1 or no body by status, each ErrorCode of the status's category. Absent: none checked. */
  errors?: 'oauth' | 'obie' | 'obie-v4';
  /** The error schema of the API's own file where it is not AIS's (the payments and funds files). */
  errorSchema?: ResponseSchema;
}

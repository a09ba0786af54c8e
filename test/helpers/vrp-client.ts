// A TPP of the VRP family for integration tests (a PaymentsTpp: its requests signed with Node's crypto, the bank's
// signatures checked against its JWKS) and the bank's clock the tests move: startSandbox({ now }) is the emulator's one
// clock seam (docs/sandbox-vrp.md, "The clock"), and the TPP signs with an iat of that clock, so a bank set months ahead
// still takes its signatures. Consents are made and authorised first, payments then made as the clock moves on.

import { randomUUID } from 'node:crypto';

import { OB_IAT, PaymentsTpp, paymentsIdentity } from './payments-client.js';
import type { SendOptions, Version } from './payments-client.js';
import type { AuthorizeOptions, AuthorizeResult, SandboxFixture, WireResponse } from './sandbox-client.js';
import type { TestSandbox } from './sandbox-client.js';
import { CREDITOR, vrpConsentRequest } from './vrp-requests.js';

export { CREDITOR, vrpConsentRequest } from './vrp-requests.js';
export type { MandateOptions } from './vrp-requests.js';

type Json = Record<string, unknown>;

/** The bank's clock: real time moved by an offset, so time still passes between requests. */
export class BankClock {
  private offset = 0;

  /** startSandbox's `now`. */
  readonly now = (): Date => new Date(Date.now() + this.offset);

  /** Sets the bank's time to `iso` (it runs on from there). */
  set(iso: string): void {
    this.offset = Date.parse(iso) - Date.now();
  }

  /** Moves the bank's time by `ms`. */
  advance(ms: number): void {
    this.offset += ms;
  }

  /** Back to real time. */
  reset(): void {
    this.offset = 0;
  }
}

export const DAY_MS = 86_400_000;

/** A VRP TPP: the calls of the VRP family, its signatures' iat read from the bank's clock. */
export class VrpTpp extends PaymentsTpp {
  clock: BankClock | undefined;

  static async openVrp(
    fixture: Pick<TestSandbox, 'urls'> & Partial<Pick<SandboxFixture, 'track'>>,
    clock?: BankClock,
    profile: PaymentsTpp['profile'] = 'strict-headless',
  ): Promise<VrpTpp> {
    const tpp = new VrpTpp(fixture.urls, await paymentsIdentity(), profile);
    fixture.track?.(tpp);
    tpp.clock = clock;
    // The software statement and the registration JWT carry real times: registered at real time, the clock moves on.
    clock?.reset();
    await tpp.register({ scope: 'openid accounts payments fundsconfirmations' });
    return tpp;
  }

  override post(url: string, token: string, body: unknown, options: SendOptions = {}): Promise<WireResponse> {
    if (this.clock === undefined || options.signature === false || options.rawSignature !== undefined)
      return super.post(url, token, body, options);
    const iat = Math.floor(this.clock.now().getTime() / 1000) - 1;
    return super.post(url, token, body, { ...options, signature: { [OB_IAT]: iat, ...(options.signature ?? {}) } });
  }

  /** The authorisation request with its request object's iat, nbf and exp of the bank's clock (RFC 9101 §4: the bank
   *  refuses one that has expired by its clock). */
  override authorize(options: AuthorizeOptions): Promise<AuthorizeResult> {
    if (this.clock === undefined) return super.authorize(options);
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return super.authorize({ ...options, objectClaims: { iat: now, nbf: now, exp: now + 300, ...(options.objectClaims ?? {}) } });
  }

  /** POST /domestic-vrp-consents with a fresh client-credentials token; throws unless 201. */
  async vrpConsent(
    version: Version,
    request: Json = vrpConsentRequest(version),
  ): Promise<{ consentId: string; token: string; body: Json }> {
    const token = await this.clientCredentials('payments');
    const response = await this.post(`${this.pisp(version)}/domestic-vrp-consents`, token, request);
    if (response.status !== 201) throw new Error(`VRP consent answered ${response.status}: ${response.text}`);
    const body = response.json<{ Data: { ConsentId: string } }>();
    return { consentId: body.Data.ConsentId, token, body: body as unknown as Json };
  }

  /** A consent made and authorised (headless, the default user): its id and the authorization-code token. */
  async mandate(
    version: Version,
    request: Json = vrpConsentRequest(version),
    user?: 'alex' | 'sam' | 'jo',
  ): Promise<{ consentId: string; payer: string; request: Json }> {
    const { consentId } = await this.vrpConsent(version, request);
    const payer = await this.authorised(consentId, 'openid payments', user);
    return { consentId, payer, request };
  }

  /** An OBDomesticVRPRequest under the consent made from `consentRequest`: its Initiation and Risk, an Instruction. */
  vrpPayment(consentId: string, consentRequest: Json, amount: string, instruction: Json = {}, data: Json = {}): Json {
    const consentData = consentRequest.Data as {
      Initiation: Json;
      ControlParameters: { VRPType: string[]; PSUAuthenticationMethods: string[] };
    };
    const initiation = consentData.Initiation;
    return {
      Data: {
        ConsentId: consentId,
        PSUAuthenticationMethod: consentData.ControlParameters.PSUAuthenticationMethods[0],
        VRPType: consentData.ControlParameters.VRPType[0],
        Initiation: initiation,
        Instruction: {
          InstructionIdentification: `VRP-${randomUUID().slice(0, 8)}`,
          EndToEndIdentification: 'E2E-SWEEP',
          InstructedAmount: { Amount: amount, Currency: 'GBP' },
          CreditorAccount: initiation.CreditorAccount ?? { ...CREDITOR },
          ...(initiation.RemittanceInformation === undefined ? {} : { RemittanceInformation: initiation.RemittanceInformation }),
          ...instruction,
        },
        ...data,
      },
      Risk: consentRequest.Risk,
    };
  }

  /** POST /domestic-vrps with the payer's token. */
  pay(version: Version, payer: string, body: Json, options: SendOptions = {}): Promise<WireResponse> {
    return this.post(`${this.pisp(version)}/domestic-vrps`, payer, body, options);
  }
}

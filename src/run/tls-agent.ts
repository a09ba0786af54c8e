// The https agent obflow hands newman (`requestAgents.https`): TLS contexts built per connection, not per request.
// With `sslExtraCaCerts` newman's HTTP client (postman-request) builds a fresh TLS context — the client key and
// certificate parsed, the CA added to a copy of the root store — for every request before it looks up its pooled
// agent, and throws it away when the pool already has one: ~2 ms a request, most of a jo paging run's TLS cost
// (docs/pipeline.md#newman-findings). Which certificate a request presents is still newman's choice (its
// `sslClientCertList` match hands the key and certificate in the request's options); this agent keys its sockets
// and contexts on them, so every origin keeps its own certificate.

import { Agent, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import tls, { type SecureContext, type SecureContextOptions } from 'node:tls';

/** The native context's call postman-request uses for `sslExtraCaCerts`: adds a CA to the default root store (not
 *  in place of it), so a public root still verifies as it does in plain newman. */
interface NativeContext {
  addCACert(pem: string | Buffer): void;
}

/** A keep-alive https agent (newman's default is keep-alive too) that adds `extraCa` (PEM, one or more
 *  certificates) to the roots every connection trusts, and builds each distinct TLS context once. */
export class ExtraCaAgent extends Agent {
  readonly #extraCa: string;
  readonly #contexts = new Map<string, SecureContext>();

  constructor(extraCa: string) {
    super({ keepAlive: true });
    this.#extraCa = extraCa;
  }

  override createConnection(options: RequestOptions, callback?: (error: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    let secureContext: SecureContext;
    try {
      secureContext = this.#contextFor(options);
    } catch (error) {
      // What postman-request does when its context throws (bad key, bad CA): the request fails with the error.
      if (callback === undefined) throw error;
      callback(error as Error, undefined as unknown as Duplex);
      return undefined;
    }
    // tls.connect takes the prepared context in place of building one from the options (Node docs, tls.connect).
    const connect: RequestOptions & { secureContext: SecureContext } = { ...options, secureContext };
    return super.createConnection(connect, callback);
  }

  /** The agent's socket name already holds every TLS option of the request (CA, key, certificate, ciphers, …) but
   *  the passphrase: the context is built once per name and passphrase. */
  #contextFor(options: RequestOptions): SecureContext {
    const key = `${this.getName(options)}\n${typeof options.passphrase === 'string' ? options.passphrase : ''}`;
    let context = this.#contexts.get(key);
    if (context === undefined) {
      context = tls.createSecureContext(options as SecureContextOptions);
      (context.context as NativeContext).addCACert(this.#extraCa);
      this.#contexts.set(key, context);
    }
    return context;
  }
}

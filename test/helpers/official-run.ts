// The official model bank's Postman sequences run folder by folder through newman's library against the emulator,
// the environment carried from one folder to the next as Postman would, every exchange with the bank recorded (the
// model bank's own helper server left out): what the official-*-sequence tests judge.

import newman from 'newman';

export interface Exchange {
  folder: string;
  item: string;
  method: string;
  url: URL;
  status: number;
  body: string;
  headers: Record<string, string>;
}

export interface EnvironmentValue {
  key: string;
  value: string;
}

export interface OfficialRunOptions {
  /** The official collection: its collection-level events and variables run with every folder. */
  collection: { event?: unknown[]; variable?: unknown[] };
  values: EnvironmentValue[];
  certList: unknown;
  caBundle: string;
  /** Requests to this origin (the model bank's signing helper, played by the test) are not the bank's. */
  helperOrigin: string;
}

export class OfficialRun {
  values: EnvironmentValue[];
  readonly exchanges: Exchange[] = [];
  readonly failures: string[] = [];

  constructor(private readonly options: OfficialRunOptions) {
    this.values = options.values;
  }

  valueOf = (name: string): string => this.values.find((entry) => entry.key === name)?.value ?? '';

  /** Sets one environment value, as a Postman user pasting it would. */
  set(key: string, value: string): void {
    this.values = [...this.values.filter((entry) => entry.key !== key), { key, value }];
  }

  /** Runs one folder's items with the environment so far, then keeps the environment newman leaves. */
  run = (folder: string, items: readonly unknown[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const { collection, certList, caBundle, helperOrigin } = this.options;
      const emitter = newman.run(
        {
          collection: {
            info: { name: folder, schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
            item: items,
            event: collection.event,
            variable: collection.variable,
          },
          environment: { values: this.values },
          reporters: [],
          sslClientCertList: certList,
          sslExtraCaCerts: caBundle,
          timeoutRequest: 30_000,
        } as unknown as newman.NewmanRunOptions,
        (error, summary) => {
          if (error) {
            reject(error);
            return;
          }
          this.failures.push(
            ...summary.run.failures.map(
              (failure) => `${folder} › ${failure.source?.name ?? '?'}: ${failure.error.name}: ${failure.error.message}`,
            ),
          );
          this.values = (summary.environment.toJSON() as { values: EnvironmentValue[] }).values.map(({ key, value }) => ({
            key,
            value: String(value),
          }));
          resolve();
        },
      );
      emitter.on(
        'request',
        (
          error: Error | null,
          args: {
            item: { name: string };
            request: { method: string; url: { toString(): string } };
            response?: { code: number; stream?: Buffer; headers: { toObject(): Record<string, string> } };
          },
        ) => {
          const url = new URL(args.request.url.toString());
          if (url.origin === helperOrigin) return;
          this.exchanges.push({
            folder,
            item: args.item.name,
            method: args.request.method,
            url,
            status: error || !args.response ? 0 : args.response.code,
            body: error ? String(error) : (args.response?.stream?.toString('utf8') ?? ''),
            headers: args.response?.headers.toObject() ?? {},
          });
        },
      );
    });
}

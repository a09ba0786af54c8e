// What config tests share: an identity block for bank-target configs (the files need not exist unless a test checks
// them; parseConfig only reads the paths).

export const BANK_IDENTITY = {
  softwareStatement: 'ssa.jwt',
  transport: { cert: 'transport.pem', key: 'transport.key' },
  signing: { key: 'signing.key', kid: 'k1' },
  directoryRoots: ['root.pem'],
  directoryIssuing: ['issuing.pem'],
  directoryJwks: 'directory.jwks.json',
};

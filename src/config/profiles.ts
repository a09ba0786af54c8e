// The emulator's client profiles, named as on the wire (each is its own issuer). Dependency-free: the CLI's command
// modules load at `--help` time, before any schema.

export const SANDBOX_PROFILES = ['strict-headless', 'strict-interactive', 'permissive-headless', 'permissive-interactive'] as const;
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];

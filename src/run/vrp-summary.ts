// The mandate as a person reads it: its model lives with the rules every workspace ships (src/runner-rules.ts), so a
// workspace's run and report read it as obflow does; docs/collections.md, "The mandate walk".

export { money, vrpLimitText, vrpMandateFromValues, vrpMandateLines, type VrpLimitUse, type VrpMandateRow } from '../runner-rules.js';

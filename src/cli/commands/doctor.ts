// `obflow doctor`: check the bank interface's five prerequisites for the configured target, one line per check.

import { ObflowError } from '../../errors.js';
import { defineCommand } from '../command.js';
import { openCommand } from '../context.js';

export const doctorCommand = defineCommand({
  command: 'doctor',
  describe: 'Check the prerequisites: statement, transport certificate, redirect URIs, directory certificates',
  examples: [
    ['$0 doctor', 'check the local test identity'],
    ['$0 doctor --config obflow.config.json --json', "check a real bank's prerequisites, as JSON"],
  ],
  handler: async (argv, state) => {
    const { core, config, overrides } = await openCommand(state, argv, { checkFiles: false });
    const { paths } = await core.resolveIdentity(config);
    const checks = await core.runDoctorChecks(paths, new Date());
    // The bank's discovery against the config (PAR, JARM, PKCE, FAPI 2.0, token auth), once the identity
    // that reaches it is sound; for the sandbox target only when `obflow sandbox` runs.
    if (!checks.some((check) => !check.ok)) {
      const discovery = await core.discoveryDoctorCheck(config, overrides);
      if (discovery !== undefined) checks.push(discovery);
    }
    for (const check of checks) {
      if (check.ok) state.output.check(true, `${check.name}: ${check.detail}`);
      else state.output.check(false, `${check.name}: ${check.code} ${check.message}`, check.hint);
    }
    // What the config and discovery cannot settle before a VRP consent is asked (flow.apis vrp): said, never passed.
    for (const note of core.vrpDoctorNotes(config, new Date())) state.output.line(`note: ${note}`);
    const problems = checks.filter((check) => !check.ok).length;
    state.output.result({ ok: problems === 0, checks });
    if (problems === 0) {
      state.output.line(`all ${checks.length} checks passed`);
      return;
    }
    const first = checks.find((check) => !check.ok);
    throw new ObflowError(
      'ERR_DOCTOR_PROBLEMS',
      `${problems} of ${checks.length} checks found a problem${first && !first.ok ? ` (first: ${first.code})` : ''}`,
      {
        hint: 'Fix each problem as its hint says, then run `obflow doctor` again.',
      },
    );
  },
});

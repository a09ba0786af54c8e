// No refresh token from the code exchange (RFC 6749 §5.1: the bank MAY issue one): nothing to refresh. The `skipped:`
// line is the reason a runner shows (src/runner-rules.ts SKIP_NOTE); it names what would make the step run.
if ((pm.environment.get('refresh_token') || '') === '') {
  console.info(
    'skipped: the bank issued no refresh token at the code exchange; obflow asks for the refresh_token grant at ' +
      'registration with registration.refresh_token_grant: true (then register --force and environment again)',
  );
  pm.execution.skipRequest();
}

// No refresh token from the code exchange (the bank did not offer the grant, RFC 6749 §1.5): nothing to refresh.
if ((pm.environment.get('refresh_token') || '') === '') {
  console.info('refresh: the code exchange returned no refresh_token; skipped');
  pm.execution.skipRequest();
}

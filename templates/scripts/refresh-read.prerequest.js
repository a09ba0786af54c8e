// The read with the refreshed token depends on the refresh: without a refresh token there was none, and the old
// access token must not pass for a refreshed one.
if ((pm.environment.get('refresh_token') || '') === '') {
  console.info('skipped: the refresh did not run (the bank issued no refresh token), so there is no refreshed token to read with');
  pm.execution.skipRequest();
}

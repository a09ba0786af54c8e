// With PAR (flow.par), interactive consent: a request_uri is used once (RFC 9126 §2.2, §4), and the PSU's browser must
// present it — par.test wrote it into psu_consent_url. So newman does not GET the consent URL first (that would spend
// it): this request is skipped, saying why. Headless consent GETs it as before.
if ((pm.environment.get('consent_mode') || 'headless') === 'interactive') {
  console.log('skipped: interactive consent with PAR: the browser presents the pushed request_uri, which is used once (RFC 9126 §4)');
  pm.execution.skipRequest();
}

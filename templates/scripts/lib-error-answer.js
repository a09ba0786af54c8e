// The bank's error answer in one line, for the message of a failed status check: the status, then what the answer
// says went wrong — an OAuth error response's error and error_description (RFC 6749 §5.2), an OBIE error body's
// Errors[].ErrorCode and Message (OBErrorResponse1), a Bearer challenge's error (RFC 6750 §3) — or that it has no body.
// Only those fields, never the whole body.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function obflowErrorAnswer() {
  const text = pm.response.text();
  const parts = [String(pm.response.code)];
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body && typeof body.error === 'string')
    parts.push(body.error + (typeof body.error_description === 'string' ? ' (' + body.error_description + ')' : ''));
  else if (body && Array.isArray(body.Errors))
    parts.push(
      body.Errors.filter((error) => error && typeof error.ErrorCode === 'string')
        .map((error) => error.ErrorCode + (typeof error.Message === 'string' ? ' (' + error.Message + ')' : ''))
        .join('; ') || String(body.Code),
    );
  const challenge = /\berror="([^"]*)"/.exec(pm.response.headers.get('WWW-Authenticate') || '');
  if (challenge) parts.push('WWW-Authenticate error ' + challenge[1]);
  if (text === '') parts.push('no body');
  return parts.join(' ');
}

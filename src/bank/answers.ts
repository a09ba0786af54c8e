// What a refusal of the bank says, read one way for every caller: the OAuth shape (RFC 6749 §5.2, RFC 7591 §3.2.2:
// error, error_description) and the OBIE shape (Read/Write Data API: Errors[] of ErrorCode and Message).

/** The members of a JSON object answer (none for anything else). */
export function answerFields(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/** RFC 6749 §5.2 / RFC 7591 §3.2.2: `error` and `error_description`, each when it is a string. */
export function oauthErrorOf(body: unknown): { error?: string; description?: string } {
  const fields = answerFields(body);
  return {
    ...(typeof fields.error === 'string' ? { error: fields.error } : {}),
    ...(typeof fields.error_description === 'string' ? { description: fields.error_description } : {}),
  };
}

/** The first of an OBIE error answer's Errors (ErrorCode, Message as text); undefined when there is none. */
export function obieErrorOf(body: unknown): { code: string; message: string } | undefined {
  const fields = answerFields(body);
  const first = Array.isArray(fields.Errors) ? (fields.Errors as { ErrorCode?: unknown; Message?: unknown }[])[0] : undefined;
  return first === undefined ? undefined : { code: String(first.ErrorCode ?? ''), message: String(first.Message ?? '') };
}

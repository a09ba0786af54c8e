// The origin of a bank URL as newman's certificate matching and obflow's checks compare it: https, port explicit.

/** `https://host:port` of a URL, the port always explicit (443 when the URL has none). */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:') return undefined;
  // URL.hostname keeps the brackets of an IPv6 literal ([::1]), so the origin reads back as a URL.
  return `https://${parsed.hostname}:${parsed.port === '' ? '443' : parsed.port}`;
}

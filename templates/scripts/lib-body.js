// The response body as JSON, parsed once per script execution however many parts read it (the schema check and the
// step's own checks both read a 100-transaction page). JSON on the wire is UTF-8 (RFC 8259 §8.1): pm.response.text()
// and pm.response.json() decode it byte by byte in the sandbox's Buffer polyfill on every call; String.fromCharCode
// over chunks and decodeURIComponent(escape()) decode it with the engine's own code, about five times faster. A body
// that is all ASCII (a transactions page, usually) is its own UTF-8 decoding: it skips escape(), which would
// percent-encode every quote, brace and colon only for decodeURIComponent to decode them again. Bytes that are not
// UTF-8 fall back to pm.response.text(). A leading byte order mark is ignored (RFC 8259 §8.1 allows it). A body that
// is not JSON throws on every call, so each reader reports it.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
var obflowBody = (function () {
  let parsed;
  function text() {
    const bytes = pm.response.stream;
    if (!bytes || typeof bytes.subarray !== 'function') return pm.response.text();
    let binary = '';
    for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    if (!/[\u0080-\uffff]/.test(binary)) return binary;
    try {
      return decodeURIComponent(escape(binary));
    } catch {
      return pm.response.text();
    }
  }
  return function () {
    if (parsed === undefined) parsed = { value: JSON.parse(text().replace(/^\uFEFF/, '')) };
    return parsed.value;
  };
})();

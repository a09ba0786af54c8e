/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A redirect's Location split into its base (before ? and #), query and fragment parameters (the sandbox has no URL).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function obflowLocation(location) {
  const qs = require('querystring');
  const text = String(location || '');
  const hashAt = text.indexOf('#');
  const beforeHash = hashAt >= 0 ? text.slice(0, hashAt) : text;
  const queryAt = beforeHash.indexOf('?');
  return {
    base: queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash,
    query: queryAt >= 0 ? qs.parse(beforeHash.slice(queryAt + 1)) : {},
    fragment: hashAt >= 0 ? qs.parse(text.slice(hashAt + 1)) : {},
  };
}

/* global obflowBody */
// Client credentials grant (RFC 6749 §4.4, bank-interface.md §5.3 step 1): a Bearer token for the consent calls.
const token = obflowBody();

pm.test('token_type is Bearer', function () {
  pm.expect(String(token.token_type).toLowerCase()).to.equal('bearer');
});
if (token.scope !== undefined) {
  pm.test('granted scope includes {{js scope}}', function () {
    pm.expect(String(token.scope).split(' ')).to.include('{{js scope}}');
  });
}
pm.environment.set('client_credentials_token', token.access_token || '');

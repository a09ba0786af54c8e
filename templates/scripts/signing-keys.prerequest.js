// Where the bank's signing keys are: discovery's jwks_uri (the item's URL), or bank_jws_jwks_uri where the bank
// publishes them elsewhere (flow.messageSigning.bankJwksUri; OB R/W Data API Profile, "Key Stores": e.g. the directory's
// keystore). A new flow counts its signatures afresh.
const elsewhere = pm.environment.get('bank_jws_jwks_uri') || '';
if (elsewhere !== '') pm.request.url = elsewhere;
pm.environment.set('signatures_checked', JSON.stringify({ signed: 0, verified: 0 }));
